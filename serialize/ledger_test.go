package serialize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// jsCost is an independent reference for stringCost on valid UTF-8 input,
// following the contract's table rune by rune.
func jsCost(s string) int64 {
	cost := int64(2)
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\b' || r == '\t' || r == '\n' || r == '\f' || r == '\r':
			cost += 2
		case r < 0x20:
			cost += 6
		default:
			cost += int64(utf8.RuneLen(r))
		}
	}
	return cost
}

func TestStringCost(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
	}{
		{"empty", "", 2},
		{"ascii", "abc", 5},
		{"lt and gt are not escaped", "<a>&", 6},
		{"del is not escaped", "\x7f", 3},
		{"quote", `"`, 4},
		{"backslash", `\`, 4},
		{"short escapes", "\b\t\n\f\r", 12},
		{"nul", "\x00", 8},
		{"other controls", "\x01\x0b\x1f", 20},
		{"two-byte", "é", 4},
		{"euro", "€", 5},
		{"U+2028", "\u2028", 5},
		{"U+FFFD", "\uFFFD", 5},
		{"astral", "\xF0\x9F\x98\x80", 6},
		{"max code point", "\U0010FFFF", 6},
		{"lone high surrogate", "\xED\xA0\x80", 8},
		{"lone low surrogate", "\xED\xBF\xBF", 8},
		{"U+D7FF is not a surrogate", "\xED\x9F\xBF", 5},
		{"CESU pair counts as two lone surrogates", "\xED\xA0\xBD\xED\xB8\x80", 14},
		{"invalid byte", "\xFF", 5},
		{"stray continuation", "a\x80b", 7},
		{"truncated euro", "\xE2\x82", 8},
		{"overlong", "\xC0\xAF", 8},
		{"overlong three-byte", "\xE0\x80\x80", 11},
		{"above U+10FFFF", "\xF4\x90\x80\x80", 14},
		{"specials after a full word", "abcdefgh\"ijklmnop\x01", 2 + 8 + 2 + 8 + 6},
		{"non-ASCII mid-word", "abc€defghij", 2 + 10 + 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, stringCost([]byte(tc.in)))
		})
	}
}

func TestStringCostMatchesJSONStringify(t *testing.T) {
	// Every single byte, and every byte embedded in a longer run so that the
	// word-at-a-time path sees it at each position.
	for c := 0; c < 0x80; c++ {
		s := string(rune(c))
		require.Equal(t, jsCost(s), stringCost([]byte(s)), "byte %#x", c)
		for pos := 0; pos < 16; pos++ {
			long := strings.Repeat("x", pos) + s + strings.Repeat("y", 16-pos)
			require.Equal(t, jsCost(long), stringCost([]byte(long)), "byte %#x at %d", c, pos)
		}
	}
}

func TestOutputLimitMessage(t *testing.T) {
	msg := OutputLimitMessage(64)
	require.Equal(t, "output exceeded 64 bytes (MaxOutputBytes)", msg)
	require.Equal(t, int64(43), stringCost([]byte(msg)))
	require.Equal(t, "output exceeded 67108864 bytes (MaxOutputBytes)", OutputLimitMessage(64<<20))
}

func TestFitString(t *testing.T) {
	require.Equal(t, "Whole", FitWhole.String())
	require.Equal(t, "Prefix", fitPrefix.String())
	require.Equal(t, "None", FitNone.String())
	require.Equal(t, "Fit(7)", Fit(7).String())
}

func TestLedgerValue(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		logs  []string
		value int64 // length of the value's compact JSON
		fits  bool
	}{
		{"euro at exact cap", 7, nil, int64(len(`"€"`)), true},
		{"euro one under", 6, nil, int64(len(`"€"`)), false},
		{"log then value at exact cap", 11, []string{"abc"}, int64(len(`"xy"`)), true},
		{"log then value one under", 10, []string{"abc"}, int64(len(`"xy"`)), false},
		{"two logs then value", 14, []string{"a", "b"}, int64(len(`[1,2]`)), true}, // ["a","b"] is 9
		{"two logs then value one under", 13, []string{"a", "b"}, int64(len(`[1,2]`)), false},
		{"64 MiB exactly", 64 << 20, nil, 64<<20 - 2, true},
		{"64 MiB plus one", 64 << 20, nil, 64<<20 - 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger(tc.limit)
			for _, e := range tc.logs {
				got, fit := l.AddLog([]byte(e))
				require.Equal(t, FitWhole, fit)
				require.Equal(t, e, got)
			}
			require.Equal(t, tc.fits, l.FitsValue(tc.value))
		})
	}
}

func TestLedgerFitsValueEdges(t *testing.T) {
	l := NewLedger(10)
	require.True(t, l.FitsValue(0))
	require.True(t, l.FitsValue(8))
	require.False(t, l.FitsValue(9))
	require.False(t, l.FitsValue(-1))
	require.Equal(t, int64(2), l.Used(), "FitsValue does not charge")
	require.Equal(t, int64(10), l.Limit())
}

func TestLedgerAddLog(t *testing.T) {
	type step struct {
		in   string
		want string
		fit  Fit
		used int64
	}
	tests := []struct {
		name  string
		limit int64
		steps []step
	}{
		{"fits exactly", 7, []step{{"abc", "abc", FitWhole, 7}}},
		{"second entry pays a comma", 11, []step{
			{"abc", "abc", FitWhole, 7},
			{"", "", FitWhole, 10},
			{"", "", FitNone, 10},
		}},
		{"prefix", 6, []step{{"abc", "ab", fitPrefix, 6}, {"x", "", FitNone, 6}}},
		{"empty prefix", 4, []step{{"abc", "", fitPrefix, 4}}},
		{"nothing fits", 3, []step{{"abc", "", FitNone, 2}, {"", "", FitNone, 2}}},
		{"no room for comma and quotes", 9, []step{
			{"abc", "abc", FitWhole, 7},
			{"d", "", FitNone, 7},
		}},
		{"prefix does not split euro", 4 + 5, []step{{"€€", "€", fitPrefix, 7}}},
		{"prefix of euro is empty", 4 + 2, []step{{"€€", "", fitPrefix, 4}}},
		{"escape is all or nothing", 4 + 2, []step{{"a\n", "a", fitPrefix, 5}}},
		{"control escape is all or nothing", 4 + 6, []step{{"ab\x01", "ab", fitPrefix, 6}}},
		{"astral costs 4", 8, []step{{"😀", "😀", FitWhole, 8}}},
		{"astral not split", 7, []step{{"😀", "", fitPrefix, 4}}},
		{"lone surrogate becomes U+FFFD but costs 6", 10, []step{{"\xED\xA0\x80", "\uFFFD", FitWhole, 10}}},
		{"lone surrogate does not fit in 5", 9, []step{{"\xED\xA0\x80", "", fitPrefix, 4}}},
		{"invalid byte becomes U+FFFD", 9, []step{{"a\xFFb", "a\uFFFDb", FitWhole, 9}}},
		{"surrogate kept in prefix", 11, []step{{"a\xED\xB0\x80bc", "a\uFFFD", fitPrefix, 11}}},
		{"U+2028 costs 3", 7, []step{{"\u2028", "\u2028", FitWhole, 7}}},
		{"quote and backslash", 8, []step{{`"\`, `"\`, FitWhole, 8}}},
		{"word path stops at budget", 4 + 9, []step{{"0123456789abcdef", "012345678", fitPrefix, 13}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger(tc.limit)
			for i, s := range tc.steps {
				got, fit := l.AddLog([]byte(s.in))
				require.Equal(t, s.fit, fit, "step %d", i)
				require.Equal(t, s.want, got, "step %d", i)
				require.True(t, utf8.ValidString(got), "step %d", i)
				require.Equal(t, s.used, l.Used(), "step %d", i)
				require.LessOrEqual(t, l.Used(), l.Limit(), "step %d", i)
				require.Equal(t, fit != FitWhole, l.Closed(), "step %d", i)
			}
		})
	}
}

func TestLedger64MiBLog(t *testing.T) {
	const limit = 64 << 20
	room := len(`"output exceeded 67108864 bytes (MaxOutputBytes)"`)
	entry := []byte(strings.Repeat("a", limit-room-4)) // [""] is 4
	tests := []struct {
		name string
		in   []byte
		fit  Fit
		kept int
	}{
		{"exactly the log limit", entry, FitWhole, len(entry)},
		{"one over", append(entry, 'b'), fitPrefix, len(entry)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger(limit)
			got, fit := l.AddLog(tc.in)
			require.Equal(t, tc.fit, fit)
			require.Len(t, got, tc.kept)
			require.Equal(t, int64(limit-room), l.Used())
			require.True(t, l.FitsValue(int64(room)), "a value may use the room kept for the message")
			require.False(t, l.FitsValue(int64(room+1)))
			msg, whole := l.FitMessage(OutputLimitMessage(limit))
			require.True(t, whole)
			require.Equal(t, "output exceeded 67108864 bytes (MaxOutputBytes)", msg)
		})
	}
}

// TestLedgerReservesOutputLimitMessage checks that logs stop short of the
// cap by the room of the output-limit message, so that a log flood reports
// the message whole, while a cap too small for the message reserves
// nothing and the value may still use the whole cap.
func TestLedgerReservesOutputLimitMessage(t *testing.T) {
	tests := []struct {
		limit    int64
		logLimit int64
		message  string // FitMessage(OutputLimitMessage) after a flood
	}{
		{4, 4, ""},
		{11, 11, ""},
		{44, 44, ""}, // the message needs 43 and "[]" 2
		{45, 2, "output exceeded 45 bytes (MaxOutputBytes)"},     // exactly enough: no logs at all
		{64, 21, "output exceeded 64 bytes (MaxOutputBytes)"},    // 64 - 43
		{300, 256, "output exceeded 300 bytes (MaxOutputBytes)"}, // 300 - 44
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			l := NewLedger(tc.limit)
			require.Equal(t, tc.logLimit, l.LogLimit())
			require.True(t, l.FitsValue(tc.limit-2), "the value may use the whole cap when there are no logs")
			for i := 0; !l.Closed(); i++ {
				l.AddLog(fmt.Appendf(nil, "spam line %d", i))
				require.LessOrEqual(t, l.Used(), tc.logLimit)
			}
			msg, whole := l.FitMessage(OutputLimitMessage(tc.limit))
			require.Equal(t, tc.message, msg)
			require.Equal(t, tc.logLimit != tc.limit, whole)
			if whole {
				require.LessOrEqual(t, l.Used()+stringCost([]byte(msg)), tc.limit)
			}
		})
	}
}

// TestLedgerSpam checks that the kept logs, re-encoded, are exactly what was
// charged and never exceed the cap.
func TestLedgerSpam(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		line  string
	}{
		{"ascii", 300, "spam line %d"},
		{"escapes", 300, "spam\t\"line\" %d\x01"},
		{"multibyte", 301, "spam € 😀 line %d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger(tc.limit)
			var kept []string
			trimmed := false
			for i := range 1000 {
				got, fit := l.AddLog(fmt.Appendf(nil, tc.line, i))
				if fit != FitNone {
					kept = append(kept, got)
				}
				if fit != FitWhole {
					trimmed = true
				}
				require.LessOrEqual(t, l.Used(), tc.limit-int64(len(OutputLimitMessage(tc.limit)))-2)
			}
			msg, whole := l.FitMessage(OutputLimitMessage(tc.limit))
			require.True(t, whole, "the output-limit message fits whole: %q", msg)
			require.True(t, trimmed)
			require.NotEmpty(t, kept)
			require.True(t, l.Closed())

			want := int64(2) + int64(len(kept)-1)
			for _, e := range kept {
				want += stringCost([]byte(e))
			}
			require.Equal(t, want, l.Used())

			// For text without lone surrogates, the ledger cost is the
			// length of the compact JSON that a JS engine would print;
			// Go's encoder agrees once HTML escaping is off.
			var sb strings.Builder
			enc := json.NewEncoder(&sb)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(kept))
			require.Equal(t, l.Used(), int64(len(strings.TrimSuffix(sb.String(), "\n"))))
		})
	}
}

func TestLedgerAddLogReadsOnlyTheBudget(t *testing.T) {
	// A 100 MB entry against a 64-byte cap. The bytes past the budget are
	// invalid UTF-8, so if AddLog looked at them the result would change.
	const limit = 64
	big := bytes.Repeat([]byte{0xFF}, 100<<20)
	copy(big, strings.Repeat("a", 200))
	l := NewLedger(limit)
	got, fit := l.AddLog(big)
	require.Equal(t, fitPrefix, fit)
	require.Equal(t, strings.Repeat("a", int(l.LogLimit())-4), got)
	require.Equal(t, int64(64-43), l.LogLimit(), `"output exceeded 64 bytes (MaxOutputBytes)" needs 43`)
	// That it reads nothing past the budget is TestLedgerAddLogReadsOnlyTheBudgetPage's.
}

func TestLedgerDoesNotRetainInput(t *testing.T) {
	buf := []byte("hello")
	l := NewLedger(100)
	got, fit := l.AddLog(buf)
	require.Equal(t, FitWhole, fit)
	copy(buf, "XXXXX")
	require.Equal(t, "hello", got)
}

func TestLedgerFitMessage(t *testing.T) {
	huge := strings.Repeat("x", 1_000_000)
	tests := []struct {
		name  string
		limit int64
		logs  []string
		msg   string
		want  string
		whole bool
	}{
		{"huge message does not fit 64", 64, nil, huge, strings.Repeat("x", 60), false},
		{"limit message fits 64", 64, nil, OutputLimitMessage(64), "output exceeded 64 bytes (MaxOutputBytes)", true},
		{"limit message trimmed to empty at 4", 4, nil, OutputLimitMessage(4), "", false},
		{"limit message trimmed at 10", 10, nil, OutputLimitMessage(10), "output", false},
		{"fits exactly after logs", 14, []string{"abc"}, "abcde", "abcde", true}, // 7 + 7
		{"one under after logs", 13, []string{"abc"}, "abcde", "abcd", false},
		{"no room at all", 8, []string{"abc"}, "abc", "", false},
		{"empty message fits", 4, nil, "", "", true},
		{"lone surrogate replaced", 12, nil, "a\xED\xA0\x80b", "a\uFFFDb", true},
		{"lone surrogate needs 6", 10, nil, "a\xED\xA0\x80b", "a", false},
		{"lone surrogate kept, b cut", 11, nil, "a\xED\xA0\x80b", "a\uFFFD", false},
		{"no split inside euro", 2 + 2 + 4, nil, "€€", "€", false},
		{"newline costs 2", 2 + 2 + 2, nil, "a\nb", "a", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger(tc.limit)
			for _, e := range tc.logs {
				_, fit := l.AddLog([]byte(e))
				require.Equal(t, FitWhole, fit)
			}
			before := l.Used()
			got, whole := l.FitMessage(tc.msg)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.whole, whole)
			require.Equal(t, before, l.Used(), "FitMessage does not charge")
			require.True(t, utf8.ValidString(got))
		})
	}
}

func BenchmarkStringCost(b *testing.B) {
	in := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1<<20/45+1))[:1<<20]
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		stringCost(in)
	}
}

func BenchmarkStringCostMixed(b *testing.B) {
	in := []byte(strings.Repeat("naïve café — “quoted”\n😀 ", 1<<20/32+1))[:1<<20]
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		stringCost(in)
	}
}

func BenchmarkAddLog(b *testing.B) {
	line := []byte("spam line 12345: some typical console output")
	for b.Loop() {
		l := NewLedger(1 << 20)
		for range 100 {
			l.AddLog(line)
		}
	}
}

// TestLedgerChargeLog checks that ChargeLog keeps what AddLog keeps, entry
// after entry in one buffer, and charges alike.
func TestLedgerChargeLog(t *testing.T) {
	entries := [][]byte{[]byte("plain"), []byte(""), []byte("caf\xc3\xa9"), []byte("lone \xed\xa0\x80 surrogate"),
		[]byte("bad \xff byte"), []byte("quote \" and \n"), []byte("a long entry that will not fit whole")}
	for _, limit := range []int64{4, 10, 30, 60, 100, 1000} {
		a, b := NewLedger(limit), NewLedger(limit)
		var buf []byte
		for _, e := range entries {
			want, wantFit := a.AddLog(e)
			start := len(buf)
			text, fit := b.ChargeLog(e)
			buf = text.AppendTo(buf, e)
			require.Equal(t, wantFit, fit, "limit %d, entry %q", limit, e)
			require.Equal(t, len(buf)-start, text.Len(e))
			require.Equal(t, want, string(buf[start:]), "limit %d, entry %q", limit, e)
			require.Equal(t, a.Used(), b.Used())
		}
	}
}

// TestLogTextInParts checks that a text appended part by part, ending each part where PartEnd
// says, is what AppendTo appends whole, for every part size: characters of every width, lone
// surrogates, invalid bytes and runs of continuation bytes.
func TestLogTextInParts(t *testing.T) {
	entries := [][]byte{
		[]byte("plain ascii text"),
		[]byte("é€😀 mixed widths é€😀"),
		[]byte("lone \xed\xa0\x80 surrogate and \xff invalid"),
		[]byte("\x80\x80\x80\x80\x80\x80 continuation run \xe2\x82"),
		[]byte("😀\x80\x80😀"),
	}
	for _, e := range entries {
		text, fit := NewLedger(1 << 20).ChargeLog(e)
		require.Equal(t, FitWhole, fit)
		whole := text.AppendTo(nil, e)
		require.Len(t, whole, text.Len(e))
		for piece := 1; piece <= len(e); piece++ {
			var parts []byte
			for from := 0; from < text.Bytes(); {
				to := text.PartEnd(e, from+piece)
				require.LessOrEqual(t, to, from+piece+3)
				parts = text.AppendPart(parts, e, from, to)
				from = to
			}
			require.Equal(t, string(whole), string(parts), "%q in parts of %d", e, piece)
		}
	}
}
