package serialize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckJSONAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"null", `null`},
		{"true", `true`},
		{"false", `false`},
		{"empty string", `""`},
		{"empty array", `[]`},
		{"empty object", `{}`},
		{"empty containers with space", "[ \t\n\r]"},
		{"surrounding whitespace", " \t\r\n{\"a\" : [ 1 , 2 ] }\n "},
		{"proto key", `{"__proto__":1}`},
		{"empty key", `{"":1}`},
		{"zero", `0`},
		{"zero fraction", `0.0`},
		{"zero exponent", `0e5`},
		{"negative", `-1`},
		{"fraction", `1.5`},
		{"tenth", `0.1`},
		{"negative fraction", `-0.5`},
		{"tiny", `1e-300`},
		{"tiny negative", `-1e-300`},
		{"smallest subnormal", `5e-324`},
		{"smallest negative subnormal", `-5e-324`},
		{"positive underflow rounds to 0", `1e-400`},
		{"two to the 53", `9007199254740992`},
		{"minus two to the 53", `-9007199254740992`},
		{"two to the 53 with fraction zeros", `9007199254740992.000`},
		{"two to the 53 in exponent form", `9.007199254740992e15`},
		{"two to the 53 with leading fraction zeros", `0.9007199254740992e16`},
		{"fifteen digits", `999999999999999`},
		{"sixteen digits below", `9007199254740991`},
		{"sixteen digits with fraction below", `9007199254740991.5`},
		{"large exponent, small value", `1E+2`},
		{"capital E", `1E2`},
		{"exponent plus", `1e+2`},
		{"uppercase hex escape", `"\u00E9\u00e9"`},
		{"all short escapes", `"\" \\ \/ \b \f \n \r \t"`},
		{"surrogate pair", `"\ud83d\ude00"`},
		{"surrogate pair uppercase", `"\uD83D\uDE00"`},
		{"raw astral", `"😀"`},
		{"raw U+FFFD", "\"\uFFFD\""},
		{"raw U+2028", "\"\u2028\""},
		{"raw DEL", "\"\x7f\""},
		{"escaped nul", `"\u0000"`},
		{"keys differ only after escape", `{"a\n":1,"a\t":2}`},
		{"same key in sibling objects", `[{"a":1},{"a":2}]`},
		{"same key in nested objects", `{"a":{"a":{"a":1}}}`},
		{"same key after nested object closes", `{"x":{"b":1,"c":2},"b":3}`},
		{"escaped keys in nested objects", `{"\u0061":{"\u0062":1},"\u0062":2}`},
		{"many distinct keys", manyKeys(1000, false)},
		{"long string", `"` + strings.Repeat("abcdefgh", 1000) + `é"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, CheckJSON([]byte(tc.in)))
			requirePacedAgrees(t, []byte(tc.in))
			require.True(t, json.Valid([]byte(tc.in)), "test case is valid JSON")
		})
	}
}

func TestCheckJSONDeepNesting(t *testing.T) {
	tests := []struct {
		name  string
		depth int
		open  string
		close string
		ok    bool
	}{
		{"arrays 5000", 5000, "[", "]", true},
		{"objects 5000", 5000, `{"a":`, "}", true},
		{"arrays 100000", 100_000, "[", "]", true},
		{"arrays 1000000", 1_000_000, "[", "]", true},
		{"objects 1000000", 1_000_000, `{"a":`, "}", true},
		{"mixed 300000", 300_000, `[{"\u0061":`, "}]", true},
		{"arrays 1000000 unclosed", 1_000_000, "[", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Repeat(tc.open, tc.depth) + "0" + strings.Repeat(tc.close, tc.depth)
			err := CheckJSON([]byte(in))
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, errSyntax)
				require.EqualError(t, err, fmt.Sprintf("invalid JSON: unexpected end of input at offset %d", len(in)))
			}
		})
	}
}

// rejectCase is a text CheckJSON rejects: err is the reason, msg the whole
// message, if set.
type rejectCase struct {
	name string
	in   string
	err  error
	msg  string
}

// requireRejects checks that CheckJSON (and CheckJSONPaced) reject each
// case for its reason alone, with an offset inside the text.
func requireRejects(t *testing.T, tests []rejectCase) {
	t.Helper()
	sentinels := []error{errSyntax, errInvalidUTF8, errLoneSurrogate, errDuplicateKey,
		errUnsafeInteger, errNumberOverflow, errNegativeZero}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJSON([]byte(tc.in))
			requirePacedAgrees(t, []byte(tc.in))
			require.ErrorIs(t, err, tc.err)
			for _, s := range sentinels {
				if s != tc.err {
					require.NotErrorIs(t, err, s)
				}
			}
			var je *jsonError
			require.True(t, errors.As(err, &je))
			require.GreaterOrEqual(t, je.Offset, 0)
			require.LessOrEqual(t, je.Offset, len(tc.in))
			if tc.msg != "" {
				require.EqualError(t, err, tc.msg)
			}
		})
	}
}

// TestCheckJSONRejectsDuplicates: duplicate keys, however they are spelt, at every size of object.
func TestCheckJSONRejectsDuplicates(t *testing.T) {
	requireRejects(t, []rejectCase{
		// Duplicate keys.
		{"duplicate key", `{"a": 1, "a": 2}`, errDuplicateKey, `duplicate key "a" at offset 9`},
		{"duplicate via escape", `{"a":1,"\u0061":2}`, errDuplicateKey, `duplicate key "a" at offset 7`},
		{"duplicate both escaped", `{"\u00e9":1,"\u00E9":2}`, errDuplicateKey, `duplicate key "é" at offset 12`},
		{"duplicate raw and escaped", `{"é":1,"\u00e9":2}`, errDuplicateKey, ``},
		{"duplicate via surrogate pair", `{"😀":1,"\ud83d\ude00":2}`, errDuplicateKey, ``},
		{"duplicate via slash escape", `{"/":1,"\/":2}`, errDuplicateKey, ``},
		{"duplicate empty key", `{"":1,"":2}`, errDuplicateKey, `duplicate key "" at offset 6`},
		{"duplicate not adjacent", `{"a":1,"b":2,"c":3,"a":4}`, errDuplicateKey, ``},
		{"duplicate after nested", `{"a":{"a":1},"a":2}`, errDuplicateKey, `duplicate key "a" at offset 13`},
		{"duplicate in nested", `[{"x":1},{"y":1,"y":2}]`, errDuplicateKey, `duplicate key "y" at offset 16`},
		{"duplicate in big object", manyKeys(100, true), errDuplicateKey, ``},
		{"duplicate of the first key at the table threshold", manyKeysDup(linearKeys, 0), errDuplicateKey, ``},
		{"duplicate of the last key at the table threshold", manyKeysDup(linearKeys, linearKeys-1), errDuplicateKey, ``},
		{"duplicate just after the table threshold", manyKeysDup(linearKeys+1, linearKeys), errDuplicateKey, ``},
		{"duplicate before the table threshold", manyKeysDup(linearKeys-1, 3), errDuplicateKey, ``},
		{"duplicate after table growth", manyKeysDup(1000, 999), errDuplicateKey, ``},
		{"duplicate of the first key after table growth", manyKeysDup(1000, 0), errDuplicateKey, ``},
		{"duplicate proto", `{"__proto__":1,"__proto__":2}`, errDuplicateKey, ``},
	})
}

// TestCheckJSONRejectsNumbers: integers beyond ±2^53, overflow and negative zero, whatever the notation.
func TestCheckJSONRejectsNumbers(t *testing.T) {
	requireRejects(t, []rejectCase{
		// Integers beyond ±2^53, whatever the notation.
		{"2^53+1", `9007199254740993`, errUnsafeInteger, `integer beyond ±2^53: 9007199254740993 at offset 0`},
		{"-(2^53+1)", `-9007199254740993`, errUnsafeInteger, ``},
		{"2^53+1 with fraction zero", `9007199254740993.0`, errUnsafeInteger, ``},
		{"2^53+1 in exponent form", `9.007199254740993e15`, errUnsafeInteger, ``},
		{"2^53 plus a half", `9007199254740992.5`, errUnsafeInteger, ``},
		{"2^53 plus a tiny fraction", `9007199254740992.0000001`, errUnsafeInteger, ``},
		{"seventeen digits", `10000000000000000`, errUnsafeInteger, ``},
		{"1e16", `1e16`, errUnsafeInteger, ``},
		{"1e300", `1e300`, errUnsafeInteger, ``},
		{"max float64", `1.7976931348623157e308`, errUnsafeInteger, ``},
		{"fraction form", `0.00000000000000000001e40`, errUnsafeInteger, ``},
		{"in an array", `[1,2,18446744073709551616]`, errUnsafeInteger, `integer beyond ±2^53: 18446744073709551616 at offset 5`},

		// Overflow.
		{"1e400", `1e400`, errNumberOverflow, `number overflows float64: 1e400 at offset 0`},
		{"-1e400", `-1e400`, errNumberOverflow, ``},
		{"just over max float64", `1.8e308`, errNumberOverflow, ``},
		{"huge exponent", `1e99999999999999999999999`, errNumberOverflow, ``},
		{"long number is shortened", `1` + strings.Repeat("0", 400), errNumberOverflow,
			`number overflows float64: 1000000000000000000000000000000000000000... at offset 0`},

		// Negative zero.
		{"-0", `-0`, errNegativeZero, `negative zero: -0 at offset 0`},
		{"-0.0", `-0.0`, errNegativeZero, ``},
		{"-0e3", `-0e3`, errNegativeZero, ``},
		{"-0E-3", `-0E-3`, errNegativeZero, ``},
		{"-0.000e+10", `-0.000e+10`, errNegativeZero, ``},
		{"negative underflow", `-1e-400`, errNegativeZero, ``},
		{"negative below half the smallest subnormal", `-2e-324`, errNegativeZero, ``},
		{"-0 in object", `{"a":[1,-0]}`, errNegativeZero, `negative zero: -0 at offset 8`},
	})
}

// TestCheckJSONRejectsStrings: lone surrogate escapes and invalid UTF-8.
func TestCheckJSONRejectsStrings(t *testing.T) {
	requireRejects(t, []rejectCase{
		// Lone surrogates.
		{"lone high", `"\ud800"`, errLoneSurrogate, `lone surrogate escape: \ud800 at offset 1`},
		{"lone low", `"\udc00"`, errLoneSurrogate, `lone surrogate escape: \udc00 at offset 1`},
		{"high then text", `"\ud83dx"`, errLoneSurrogate, ``},
		{"high then high", `"\ud83d\ud83d"`, errLoneSurrogate, ``},
		{"high then BMP escape", `"\ud83d\u0041"`, errLoneSurrogate, ``},
		{"high at end", `"\ud83d`, errLoneSurrogate, ``},
		{"reversed pair", `"\ude00\ud83d"`, errLoneSurrogate, ``},
		{"lone in key", `{"\udfff":1}`, errLoneSurrogate, `lone surrogate escape: \udfff at offset 2`},

		// Invalid UTF-8.
		{"invalid byte", "\"a\xffb\"", errInvalidUTF8, `invalid UTF-8: byte 0xff at offset 2`},
		{"encoded surrogate", "\"\xed\xa0\x80\"", errInvalidUTF8, ``},
		{"overlong", "\"\xc0\xaf\"", errInvalidUTF8, ``},
		{"truncated sequence", "\"\xe2\x82\"", errInvalidUTF8, ``},
		{"above U+10FFFF", "\"\xf4\x90\x80\x80\"", errInvalidUTF8, ``},
		{"invalid after a long plain run", "\"" + strings.Repeat("x", 40) + "\x80\"", errInvalidUTF8, `invalid UTF-8: byte 0x80 at offset 41`},
		{"invalid in key", "{\"\xff\":1}", errInvalidUTF8, ``},
	})
}

// TestCheckJSONRejectsSyntax: invalid JSON.
func TestCheckJSONRejectsSyntax(t *testing.T) {
	requireRejects(t, []rejectCase{
		// Invalid JSON.
		{"nil", "", errSyntax, `invalid JSON: empty input at offset 0`},
		{"only whitespace", " \n", errSyntax, `invalid JSON: empty input at offset 2`},
		{"trailing comma in array", `[1,]`, errSyntax, `invalid JSON: unexpected ']' at offset 3`},
		{"trailing comma in object", `{"a":1,}`, errSyntax, `invalid JSON: expected a string key, found '}' at offset 7`},
		{"leading comma", `[,1]`, errSyntax, ``},
		{"double comma", `[1,,2]`, errSyntax, ``},
		{"missing comma", `[1 2]`, errSyntax, ``},
		{"single quotes", `'a'`, errSyntax, `invalid JSON: unexpected '\'' at offset 0`},
		{"single-quoted key", `{'a':1}`, errSyntax, ``},
		{"unquoted key", `{a:1}`, errSyntax, ``},
		{"missing colon", `{"a" 1}`, errSyntax, `invalid JSON: expected ':' after object key, found '1' at offset 5`},
		{"missing value", `{"a":}`, errSyntax, ``},
		{"NaN", `NaN`, errSyntax, ``},
		{"Infinity", `Infinity`, errSyntax, ``},
		{"-Infinity", `-Infinity`, errSyntax, ``},
		{"leading zero", `01`, errSyntax, `invalid JSON: invalid number, leading zero at offset 0`},
		{"leading zeros in array", `[1,007]`, errSyntax, `invalid JSON: invalid number, leading zero at offset 3`},
		{"negative leading zero", `-01`, errSyntax, ``},
		{"plus sign", `+1`, errSyntax, ``},
		{"leading dot", `.5`, errSyntax, ``},
		{"trailing dot", `1.`, errSyntax, ``},
		{"dot then exponent", `1.e5`, errSyntax, ``},
		{"empty exponent", `1e`, errSyntax, ``},
		{"exponent sign only", `1e+`, errSyntax, ``},
		{"lone minus", `-`, errSyntax, ``},
		{"hex number", `0x10`, errSyntax, ``},
		{"control char in string", "\"a\nb\"", errSyntax, `invalid JSON: control character byte 0x0a in string at offset 2`},
		{"nul in string", "\"\x00\"", errSyntax, ``},
		{"tab in string", "\"\t\"", errSyntax, ``},
		{"invalid escape", `"\x41"`, errSyntax, `invalid JSON: invalid escape "\\x" at offset 1`},
		{"short unicode escape", `"\u12"`, errSyntax, ``},
		{"non-hex unicode escape", `"\u12g4"`, errSyntax, ``},
		{"backslash at end", `"\`, errSyntax, ``},
		{"truncated string", `"abc`, errSyntax, `invalid JSON: unterminated string at offset 0`},
		{"truncated array", `[1,2`, errSyntax, `invalid JSON: unexpected end of input at offset 4`},
		{"truncated after comma", `[1,`, errSyntax, ``},
		{"truncated object", `{"a":1`, errSyntax, ``},
		{"truncated after key", `{"a"`, errSyntax, ``},
		{"truncated after colon", `{"a":`, errSyntax, ``},
		{"truncated literal", `tru`, errSyntax, ``},
		{"misspelled literal", `nul1`, errSyntax, ``},
		{"capitalised literal", `True`, errSyntax, ``},
		{"two values", `1 2`, errSyntax, `invalid JSON: unexpected '2' at offset 2`},
		{"two objects", `{}{}`, errSyntax, ``},
		{"mismatched close", `[1}`, errSyntax, ``},
		{"mismatched close object", `{"a":1]`, errSyntax, ``},
		{"extra close", `[]]`, errSyntax, ``},
		{"comment", `1 // x`, errSyntax, ``},
		{"BOM", "\xef\xbb\xbf1", errSyntax, `invalid JSON: unexpected byte 0xef at offset 0`},
		{"form feed is not whitespace", "\f1", errSyntax, ``},
		{"non-breaking space is not whitespace", "\u00a01", errSyntax, ``},
	})
}

func TestCheckJSONNil(t *testing.T) {
	require.ErrorIs(t, CheckJSON(nil), errSyntax)
}

// TestCheckJSONNumbersAgainstStrconv cross-checks the digit-string analysis
// of the 2^53 boundary against exact integer arithmetic in many notations.
func TestCheckJSONNumbersAgainstStrconv(t *testing.T) {
	const two53 = int64(1) << 53
	for _, v := range []int64{two53 - 2, two53 - 1, two53, two53 + 1, two53 + 2, 10 * two53} {
		s := fmt.Sprint(v)
		forms := []string{
			s,
			s + ".0",
			s + ".00000",
			s[:1] + "." + s[1:] + "e" + fmt.Sprint(len(s)-1),
			"0." + s + "e" + fmt.Sprint(len(s)),
			s + "0e-1",
			s + "000e-3",
			"-" + s,
		}
		for _, f := range forms {
			err := CheckJSON([]byte(f))
			if v <= two53 {
				require.NoError(t, err, f)
			} else {
				require.ErrorIs(t, err, errUnsafeInteger, f)
			}
		}
	}
}

// manyKeys returns an object with n distinct keys, and a repeat of the
// first key at the end if dup is set.
func manyKeys(n int, dup bool) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&sb, `"key%d":%d,`, i, i)
	}
	if dup {
		sb.WriteString(`"key0":0,`)
	}
	sb.WriteString(`"last":true}`)
	return sb.String()
}

// manyKeysDup returns an object with n distinct keys followed by a repeat
// of key number dup.
func manyKeysDup(n, dup int) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&sb, `"k%d":1,`, i)
	}
	fmt.Fprintf(&sb, `"k%d":2}`, dup)
	return sb.String()
}

// typicalObject is about 1 KB of the kind of JSON a binding returns.
const typicalObject = `{"id":1,"name":"x","tags":["a","b"],"active":true,"score":98.6,` +
	`"owner":{"id":42,"login":"octocat","email":"octo@example.com","verified":false},` +
	`"description":"A typical binding result with some text in it, \"quoted\" and escaped\n.",` +
	`"created_at":"2024-01-15T10:30:00Z","updated_at":"2024-06-01T08:00:00Z",` +
	`"items":[{"sku":"A-1","qty":2,"price":19.99},{"sku":"B-2","qty":1,"price":5.5},` +
	`{"sku":"C-3","qty":10,"price":0.25},{"sku":"D-4","qty":3,"price":120}],` +
	`"location":{"lat":52.5200066,"lng":13.404954,"city":"Berlin","country":"DE"},` +
	`"metrics":{"views":123456,"likes":7890,"shares":123,"ratio":0.0123},` +
	`"flags":[true,false,null,true],"nested":{"a":{"b":{"c":{"d":[1,2,3]}}}},` +
	`"unicode":"naïve café – 日本語 😀","empty":{},"list":[],"nothing":null,` +
	`"notes":["first note","second note","third note, a bit longer than the others"],` +
	`"big":9007199254740991,"small":-123.456e-7,"zero":0,"neg":-42}`

func TestTypicalObject(t *testing.T) {
	require.True(t, json.Valid([]byte(typicalObject)))
	require.NoError(t, CheckJSON([]byte(typicalObject)))
}

func BenchmarkCheckJSON(b *testing.B) {
	var mb strings.Builder
	mb.WriteByte('[')
	for mb.Len() < 1<<20 {
		if mb.Len() > 1 {
			mb.WriteByte(',')
		}
		mb.WriteString(typicalObject)
	}
	mb.WriteByte(']')
	docs := []struct {
		name string
		doc  []byte
	}{
		{"1KB", []byte(typicalObject)},
		{"1MB", []byte(mb.String())},
		{"1MB-string", []byte(`"` + strings.Repeat("lorem ipsum dolor sit amet ", 1<<20/27) + `"`)},
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			require.NoError(b, CheckJSON(d.doc))
			b.SetBytes(int64(len(d.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if err := CheckJSON(d.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJSONValid(b *testing.B) {
	// For comparison: encoding/json's validator, which checks much less.
	doc := []byte(typicalObject)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		json.Valid(doc)
	}
}

// hasDuplicateKeys is a slow reference for duplicate detection, built on
// encoding/json's tokenizer. b must be valid JSON.
func hasDuplicateKeys(t *testing.T, b []byte) bool {
	type level struct {
		object    bool
		expectKey bool
		keys      map[string]bool
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []*level
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return false
		}
		require.NoError(t, err)
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].expectKey = true
			}
			continue
		}
		if top != nil && top.object && top.expectKey {
			k := tok.(string)
			if top.keys[k] {
				return true
			}
			top.keys[k] = true
			top.expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, expectKey: true, keys: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &level{})
		default:
			if top != nil && top.object {
				top.expectKey = true
			}
		}
	}
}

// TestCheckJSONDuplicatesRandom cross-checks duplicate detection, in the
// linear and hash-table regimes and across nesting, against a reference.
func TestCheckJSONDuplicatesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Several spellings of a few keys, so duplicates are often spelled
	// differently.
	spellings := [][]string{
		{`"a"`, `"\u0061"`},
		{`"é"`, `"\u00e9"`, `"\u00E9"`},
		{`"😀"`, `"\ud83d\ude00"`},
		{`"a/b"`, `"a\/b"`},
		{`"\n"`, `"\u000a"`},
		{`""`},
	}
	var gen func(sb *strings.Builder, depth int)
	gen = func(sb *strings.Builder, depth int) {
		if depth > 3 || rng.IntN(1+depth) > 0 {
			sb.WriteString("1")
			return
		}
		if rng.IntN(4) == 0 {
			sb.WriteString("[")
			gen(sb, depth+1)
			sb.WriteString(",")
			gen(sb, depth+1)
			sb.WriteString("]")
			return
		}
		n := rng.IntN(40) // past linearKeys sometimes
		if depth > 0 {
			n = rng.IntN(2 * linearKeys)
		}
		distinct := n
		if rng.IntN(2) == 0 {
			distinct = n + 5 // many keys, mostly distinct
		}
		sb.WriteString("{")
		for i := range n {
			if i > 0 {
				sb.WriteString(",")
			}
			if j := rng.IntN(distinct + len(spellings)); j < len(spellings) {
				sp := spellings[j]
				sb.WriteString(sp[rng.IntN(len(sp))])
			} else {
				fmt.Fprintf(sb, `"k%d"`, rng.IntN(distinct))
			}
			sb.WriteString(":")
			gen(sb, depth+1)
		}
		sb.WriteString("}")
	}
	dups := 0
	for range 3000 {
		var sb strings.Builder
		gen(&sb, 0)
		doc := []byte(sb.String())
		want := hasDuplicateKeys(t, doc)
		err := CheckJSON(doc)
		if want {
			dups++
			require.ErrorIs(t, err, errDuplicateKey, "%s", doc)
		} else {
			require.NoError(t, err, "%s", doc)
		}
	}
	require.Greater(t, dups, 300)
	require.Less(t, dups, 2700)
}

// FuzzCheckJSON checks CheckJSON against encoding/json's validator: whatever
// CheckJSON accepts is valid JSON, and whatever it calls a syntax error is
// not.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0.1,"x\u00e9"],"b":null}`, `[[[]]]`, `"\ud83d\ude00"`,
		`{"a":1,"a":2}`, `-0`, `9007199254740993`, `1e400`, `[1,]`, "\"\xff\"", typicalObject} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := CheckJSON(b)
		requirePacedAgrees(t, b)
		valid := json.Valid(b)
		if err == nil {
			require.True(t, valid)
			require.False(t, hasDuplicateKeys(t, b))
		}
		if errors.Is(err, errSyntax) {
			require.False(t, valid)
		}
		if !valid {
			require.Error(t, err)
		}
	})
}

// A program's value may hold integers beyond ±2^53 and lone surrogate
// escapes, and nothing else CheckJSON rejects; paced or not.
func TestCheckValueJSON(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{`1e21`, true},
		{`[9007199254740993, "\ud800", {"k\udfff": -1e300}]`, true},
		{`{"a": 1e21, "a": 2}`, false},
		{`[1e21, {"a":1,"a":2}]`, false},
		{`["\ud800", {undefined: 1}]`, false},
		{`[1e400]`, false},
		{`-0`, false},
		{`"\ud800`, false},
		{`["\xff"]`, false},
	} {
		text := []byte(tc.text)
		if tc.text == `["\xff"]` {
			text = []byte{'[', '"', 0xff, '"', ']'}
		}
		err := CheckValueJSON(text)
		require.Equal(t, tc.ok, err == nil, "%s: %v", tc.text, err)
		for _, piece := range []int{1, 3, 1 << 20} {
			perr := CheckValueJSONPaced(text, piece, func() error { return nil })
			require.Equal(t, err, perr, "%s, pieces of %d", tc.text, piece)
		}
	}
}
