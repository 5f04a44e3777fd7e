package serialize

import (
	"math"
	"math/bits"
	"strconv"
)

// quoteCost is the ledger cost of the two quotes around a JSON string.
const quoteCost = 2

// stringCost returns the ledger cost of b as a JSON string, quotes included.
//
// b is WTF-8, as QuickJS's JS_ToCStringLen produces it: UTF-8 except that a
// lone surrogate is encoded as its own 3-byte sequence (ED A0..BF 80..BF).
// The cost is the length of [JSON.stringify]'s output in UTF-8 (its
// [QuoteJSONString] step): 2 for the
// quotes; 2 for `"`, `\`, \b, \t, \n, \f and \r; 6 for the other C0 controls
// and for each lone surrogate (a \uXXXX escape); 4 for an astral code point;
// otherwise the UTF-8 width (so U+2028 costs 3 and '<' costs 1). A byte that
// is not part of a valid sequence costs 3, like the U+FFFD it becomes. A
// surrogate pair encoded as two 3-byte sequences (CESU-8, which QuickJS never
// produces) is counted as two lone surrogates.
//
// [JSON.stringify]: https://tc39.es/ecma262/#sec-json.stringify
// [QuoteJSONString]: https://tc39.es/ecma262/#sec-quotejsonstring
func stringCost(b []byte) int64 {
	_, cost, _ := scan(b, math.MaxInt64)
	return cost + quoteCost
}

// OutputLimitMessage returns the failure message of an output-limit failure:
// "output exceeded <limit> bytes (MaxOutputBytes)", the output being the
// logs plus the value or the failure message.
func OutputLimitMessage(limit int64) string {
	return "output exceeded " + strconv.FormatInt(limit, 10) + " bytes (MaxOutputBytes)"
}

// Fit says how much of a log entry Ledger.AddLog kept.
type Fit uint8

const (
	// FitWhole means the whole entry was kept; the ledger stays open.
	FitWhole Fit = iota
	// fitPrefix means only the returned prefix (possibly empty) was kept and
	// the ledger is now closed: the run must end as output-limit.
	fitPrefix
	// FitNone means nothing was kept, not even an empty entry, because the
	// ledger was full or already closed. The ledger is closed.
	FitNone
)

// String returns the constant's name without the "Fit" prefix.
func (f Fit) String() string {
	switch f {
	case FitWhole:
		return "Whole"
	case fitPrefix:
		return "Prefix"
	case FitNone:
		return "None"
	}
	return "Fit(" + strconv.Itoa(int(f)) + ")"
}

// Ledger counts one run's output against a cap, as compact JSON bytes in
// UTF-8: the logs array ("[]" is 2, entries are comma-separated) plus either
// the value's JSON or the failure message as a JSON string.
//
// Logs are kept within the cap less the room for the output-limit message
// (OutputLimitMessage(cap) as a JSON string), so that a run ended by its logs as
// output-limit reports that message whole. A cap too small to hold the
// message even with no logs reserves nothing: logs may then use the whole
// cap, and the message is trimmed to what is left. The value and other
// failure messages may use the whole cap after the logs.
//
// The zero value is not usable; call NewLedger. A Ledger is not safe for
// concurrent use.
type Ledger struct {
	limit    int64
	logLimit int64 // what the logs array may use: limit less the message's room
	used     int64
	entries  int
	closed   bool
}

// NewLedger returns an open ledger with the given cap. It starts at 2 bytes,
// for the empty logs array "[]".
func NewLedger(limit int64) *Ledger {
	return &Ledger{limit: limit, logLimit: logLimit(limit), used: 2}
}

// logLimit returns what the logs array may use under the cap limit: limit
// less the room for OutputLimitMessage(limit) and its quotes, when the
// message fits after an empty logs array ("[]"); otherwise limit.
func logLimit(limit int64) int64 {
	room := int64(len(OutputLimitMessage(limit))) + quoteCost
	if limit >= 2+room {
		return limit - room
	}
	return limit
}

// Used returns the bytes charged so far: the logs array, brackets included.
// FitsValue and FitMessage do not charge.
func (l *Ledger) Used() int64 { return l.used }

// LogBytes returns what the log entries cost: Used without the brackets of
// the logs array.
func (l *Ledger) LogBytes() int64 { return l.used - 2 }

// Limit returns the cap given to NewLedger.
func (l *Ledger) Limit() int64 { return l.limit }

// LogLimit returns what the logs array may use, brackets included: the cap
// less the room for the output-limit message, or the whole cap when that
// message cannot fit anyway (see Ledger).
func (l *Ledger) LogLimit() int64 { return l.logLimit }

// Closed reports whether an entry has been trimmed or dropped, after which
// AddLog keeps nothing.
func (l *Ledger) Closed() bool { return l.closed }

// AddLog charges one log entry, b, preceded by a comma unless it is the
// first entry, and returns the text to keep with how much of it was kept.
// An entry fits when the logs array with it stays within LogLimit:
//
//   - FitWhole: b fits; the text is all of b.
//   - fitPrefix: b does not fit; the text is the longest code-point-aligned
//     prefix of b whose cost (with its comma and quotes) fits, possibly "",
//     and it has been charged. The ledger is now closed.
//   - FitNone: not even an empty entry fits, or the ledger was already
//     closed; the text is "", nothing was charged, and the ledger is closed.
//
// b is WTF-8 (see stringCost). The returned text is valid UTF-8: each lone
// surrogate or invalid byte becomes U+FFFD, although it is charged as
// stringCost counts it.
//
// b may alias wasm memory: AddLog does not retain it, and reads only as far
// as the remaining budget allows (at most a few bytes past it), so a huge
// entry against a small cap costs time proportional to the cap.
func (l *Ledger) AddLog(b []byte) (string, Fit) {
	t, fit := l.ChargeLog(b)
	return toString(b[:t.n], t.clean), fit
}

// LogText is the text that Ledger.ChargeLog kept of a log entry: a prefix
// of the entry, with lone surrogates and invalid bytes to be replaced.
type LogText struct {
	n     int  // length of the prefix
	clean bool // nothing to replace
}

// Len returns the length of the text in bytes: what AppendTo appends.
func (t LogText) Len(b []byte) int {
	if t.clean {
		return t.n
	}
	return len(appendClean(nil, b[:t.n], false)) // rare: count by writing
}

// AppendTo appends the text to dst; b is the entry given to ChargeLog.
func (t LogText) AppendTo(dst, b []byte) []byte { return appendClean(dst, b[:t.n], t.clean) }

// Clean reports whether the text has no character to replace: then AppendPart appends the part
// of the entry as it is.
func (t LogText) Clean() bool { return t.clean }

// Bytes returns the length of the prefix of the entry that the text is made of (Len is what it
// becomes).
func (t LogText) Bytes() int { return t.n }

// PartEnd returns the offset in the entry b, at or after i, where a part of the text may end (see
// AppendPart): the end of the text, or an offset that is not inside a character. It looks at no
// more than 3 bytes after i, the longest a character's continuation is.
func (t LogText) PartEnd(b []byte, i int) int {
	for k := 0; k < 3 && i < t.n && isCont(b[i]); k++ {
		i++
	}
	return min(i, t.n)
}

// AppendPart appends the part of the text that b[from:to] holds to dst, as AppendTo appends all
// of it: from and to are offsets that PartEnd returned (or 0), so that appending the text part by
// part gives what AppendTo gives.
func (t LogText) AppendPart(dst, b []byte, from, to int) []byte {
	return appendClean(dst, b[from:to], t.clean)
}

// ChargeLog is AddLog that returns the text to keep as a LogText, which
// knows its length before it is copied: a run keeps all its entries in one
// buffer that it grows itself.
func (l *Ledger) ChargeLog(b []byte) (LogText, Fit) {
	n, clean, fit := l.addLog(b)
	return LogText{n: n, clean: clean}, fit
}

// addLog charges the entry b (see AddLog) and returns the length of the
// prefix of b to keep, whether it is valid UTF-8, and the Fit.
func (l *Ledger) addLog(b []byte) (n int, clean bool, fit Fit) {
	if l.closed {
		return 0, true, FitNone
	}
	overhead := int64(quoteCost)
	if l.entries > 0 {
		overhead++ // the comma
	}
	avail := l.logLimit - l.used - overhead
	if avail < 0 {
		l.closed = true
		return 0, true, FitNone
	}
	n, cost, clean := scan(b, avail)
	l.used += overhead + cost
	l.entries++
	if n < len(b) {
		l.closed = true
		return n, clean, fitPrefix
	}
	return n, clean, FitWhole
}

// FitsValue reports whether a value whose compact JSON text is n bytes fits
// after the logs charged so far. It does not charge the ledger.
func (l *Ledger) FitsValue(n int64) bool {
	return n >= 0 && n <= l.limit-l.used
}

// MessageRoom returns the most bytes a failure message can have and still fit after the logs
// charged so far (a message costs at least a byte for each of its bytes, see stringCost); it is
// negative when not even an empty message fits. A caller reads no more of a message than that,
// plus what it needs to see that the message is longer.
func (l *Ledger) MessageRoom() int64 { return l.limit - l.used - quoteCost }

// FitMessage returns msg as a failure message will be reported after the
// logs charged so far. msg may hold WTF-8 lone surrogates (see stringCost).
//
// If its JSON-string cost fits, FitMessage returns it whole and true;
// otherwise it returns its longest code-point-aligned prefix that fits (""
// when not even "" fits) and false. Either way, lone surrogates and invalid
// bytes are replaced with U+FFFD. It does not charge the ledger.
func (l *Ledger) FitMessage(msg string) (string, bool) {
	avail := l.limit - l.used - quoteCost
	if avail < 0 {
		return "", false
	}
	n, _, clean := scan(msg, avail)
	return toString(msg[:n], clean), n == len(msg)
}

// bytestring is what scan reads: guest memory ([]byte) or a Go string.
type bytestring interface{ ~string | ~[]byte }

// scan returns the length n of the longest code-point-aligned prefix of s
// whose stringCost, quotes excluded, is at most budget, and that cost. clean
// reports whether s[:n] is valid UTF-8 (no lone surrogate or invalid byte).
// It reads s[n:] only to decode the one code point that did not fit, and
// reads in 8-byte words only while a whole word fits in the budget.
func scan[T bytestring](s T, budget int64) (n int, cost int64, clean bool) {
	clean = true
	i := 0
	for i < len(s) {
		if len(s)-i >= 8 && budget-cost >= 8 {
			// Plain ASCII costs 1 a byte: skip it a word at a time.
			m := special(load64(s, i))
			if m == 0 {
				// Probably a long run: skip in bulk, as far as the
				// budget reaches.
				end := len(s)
				if room := budget - cost; room < int64(end-i) {
					end = i + int(room)
				}
				j := i + 8 + plainPrefix(s[i+8:end])
				cost += int64(j - i)
				i = j
				continue
			}
			// The lowest flagged byte is special; the ones below are plain.
			k := bits.TrailingZeros64(m) >> 3
			i += k
			cost += int64(k)
		}
		c := s[i]
		width, cc, bad := 1, int64(1), false
		if c >= 0x80 {
			width, cc, bad = decodeWTF8(s, i)
		} else if c < 0x20 || c == '"' || c == '\\' {
			cc = asciiCost(c)
		}
		if cc > budget-cost {
			break
		}
		cost += cc
		i += width
		if bad {
			clean = false
		}
	}
	return i, cost, clean
}

// asciiCost returns the JSON-string cost of the ASCII byte c.
func asciiCost(c byte) int64 {
	switch c {
	case '"', '\\', '\b', '\t', '\n', '\f', '\r':
		return 2
	}
	if c < 0x20 {
		return 6
	}
	return 1
}

// decodeWTF8 decodes the sequence starting at s[i], where s[i] >= 0x80, and
// returns its width in bytes, its ledger cost, and whether it must become
// U+FFFD in a Go string (a lone surrogate or an invalid byte). An invalid
// byte has width 1, as in unicode/utf8.
func decodeWTF8[T bytestring](s T, i int) (width int, cost int64, bad bool) {
	const invalidWidth, invalidCost = 1, 3
	c, rest := s[i], len(s)-i
	switch {
	case c < 0xC2: // continuation byte or overlong lead
	case c < 0xE0:
		if rest >= 2 && isCont(s[i+1]) {
			return 2, 2, false
		}
	case c < 0xF0:
		if rest < 3 || !isCont(s[i+2]) {
			break
		}
		switch c1 := s[i+1]; {
		case c == 0xE0 && c1 >= 0xA0 && c1 <= 0xBF:
			return 3, 3, false
		case c == 0xED && c1 >= 0xA0 && c1 <= 0xBF:
			return 3, 6, true // lone surrogate: JSON.stringify writes \uXXXX
		case c != 0xE0 && isCont(c1):
			return 3, 3, false
		}
	case c < 0xF5:
		if rest < 4 || !isCont(s[i+2]) || !isCont(s[i+3]) {
			break
		}
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
		if c1 := s[i+1]; c1 >= lo && c1 <= hi {
			return 4, 4, false
		}
	}
	return invalidWidth, invalidCost, true
}

func isCont(c byte) bool { return c&0xC0 == 0x80 }

// toString returns s as a Go string, replacing lone surrogates and invalid
// bytes with U+FFFD unless clean says there are none.
func toString[T bytestring](s T, clean bool) string {
	if clean {
		return string(s)
	}
	return string(appendClean(make([]byte, 0, len(s)+8), s, false))
}

// appendClean appends s to dst, replacing lone surrogates and invalid bytes
// with U+FFFD unless clean says there are none.
func appendClean[T bytestring](dst []byte, s T, clean bool) []byte {
	if clean {
		return append(dst, s...)
	}
	start := 0
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			i++
			continue
		}
		width, _, bad := decodeWTF8(s, i)
		if bad {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			start = i + width
		}
		i += width
	}
	return append(dst, s[start:]...)
}

// SWAR constants: one bit per byte.
const (
	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

// load64 returns the 8 bytes at s[i:] as a little-endian word.
func load64[T bytestring](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainPrefix returns how many leading bytes of s are plain ASCII (costing 1
// each in a JSON string), checking 8 bytes at a time; it may stop up to 7
// bytes early near the end of s, leaving those for the byte-wise loop.
func plainPrefix[T bytestring](s T) int {
	j := 0
	for ; j+32 <= len(s); j += 32 {
		if special(load64(s, j))|special(load64(s, j+8))|
			special(load64(s, j+16))|special(load64(s, j+24)) != 0 {
			break
		}
	}
	for ; j+8 <= len(s); j += 8 {
		if m := special(load64(s, j)); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	return j
}

// special returns a word with the high bit of each byte of w set if that
// byte is a C0 control, '"', '\\', or not ASCII, and every other bit clear.
func special(w uint64) uint64 {
	const low7 = lsbs * 0x7F
	t := w & low7 // no byte of t + c carries into the next when c <= 0x80
	// A byte's high bit is clear in the sum exactly when the byte is
	// < 0x20, == '"' or == '\\' respectively.
	plain := (t + lsbs*0x60) & ((t ^ lsbs*'"') + low7) & ((t ^ lsbs*'\\') + low7)
	return (^plain | w) & msbs
}
