package serialize

import (
	"math"
	"strconv"
)

// CheckJSONPaced is CheckJSON for texts too big to check in one go: it
// stops to call pause each time it has checked about piece more bytes of b
// (piece must be positive), and when pause returns an error it stops
// checking and returns that error. A caller's pause checks whether the
// check should go on at all (a cancelled context, a deadline), so that a
// long text holds its goroutine for no more than one piece at a time.
//
// Its answer is CheckJSON's: the same nil or *jsonError for the same b.
func CheckJSONPaced(b []byte, piece int, pause func() error) error {
	return checkPaced(b, piece, pause, false)
}

// CheckValueJSONPaced is CheckValueJSON paced as CheckJSONPaced is.
func CheckValueJSONPaced(b []byte, piece int, pause func() error) error {
	return checkPaced(b, piece, pause, true)
}

func checkPaced(b []byte, piece int, pause func() error, value bool) error {
	if piece <= 0 {
		piece = 1
	}
	p := pacer{next: min(piece, len(b)), piece: piece, pause: pause, value: value}
	err := check(b, &p)
	if p.err != nil {
		return p.err
	}
	return err
}

// pacer splits a check into pieces. Every loop of the checker that can run
// over a long stretch of b (a string, a run of spaces or digits) scans no
// further than next before calling advance, which pauses and moves next a
// piece on; tokens that are always short may overrun next by a few bytes,
// which the next scan notices. Loops that scan part of b a second time (a
// long number's digits) go through chunk and rest instead.
//
// CheckJSON's pacer has next = len(b) and no pause, so its loops run as
// they would without one.
type pacer struct {
	next  int // offset at which the scans stop to pause, at most len(b)
	piece int
	pause func() error
	err   error // what pause returned, which ends the check
	// value: the text is a program's value (see CheckValueJSON).
	value bool
}

// unsafeInteger is the error for the number b[start:end], an integer
// beyond ±2^53: none when checking a value.
func (p *pacer) unsafeInteger(b []byte, start, end int) error {
	if p.value {
		return nil
	}
	return numberError(b, errUnsafeInteger, start, end)
}

// unpaced returns the pacer of a check that never pauses.
func unpaced(b []byte) pacer { return pacer{next: len(b), piece: math.MaxInt} }

// advance is called by a scan that reached next, at offset i: it pauses and
// reports whether the scan may go on, which it may not at the end of b or
// once a pause failed.
func (p *pacer) advance(n, i int) bool {
	if p.next >= n || p.err != nil {
		return false
	}
	p.next = i + min(p.piece, n-i)
	return p.pauseNow()
}

// pauseNow calls pause, and records its error.
func (p *pacer) pauseNow() bool {
	if p.pause == nil {
		return true
	}
	if err := p.pause(); err != nil {
		p.err = err
		return false
	}
	return true
}

// chunk returns the end of the next part of [i, end) that a second scan
// may read before it calls rest.
func (p *pacer) chunk(i, end int) int { return i + min(p.piece, end-i) }

// rest is called by a second scan between chunks; it pauses and reports
// whether the scan may go on.
func (p *pacer) rest() bool { return p.err == nil && p.pauseNow() }

// skipSpace is skipSpace in pieces. On a failed pause it returns the offset
// it reached, which holds no space: the checker then stops at once. It is
// small enough to inline where, as in compact JSON, no space follows.
func (p *pacer) skipSpace(b []byte, i int) int {
	if i < p.next && b[i] > ' ' {
		return i
	}
	return p.skipSpaces(b, i)
}

func (p *pacer) skipSpaces(b []byte, i int) int {
	for {
		if i >= p.next && !p.advance(len(b), i) {
			return i
		}
		if i = skipSpace(b[:p.next], i); i < p.next {
			return i
		}
	}
}

// skipDigits is skipDigits in pieces; see skipSpace.
func (p *pacer) skipDigits(b []byte, i int) int {
	if i < p.next {
		if i = skipDigits(b[:p.next], i); i < p.next {
			return i
		}
	}
	return p.skipDigitsOn(b, i)
}

// skipDigitsOn is skipDigits from i, which has reached p.next.
func (p *pacer) skipDigitsOn(b []byte, i int) int {
	for p.advance(len(b), i) {
		if i = skipDigits(b[:p.next], i); i < p.next {
			return i
		}
	}
	return i
}

// leadingZeros returns how many '0' digits m (digits with at most one '.')
// starts with, and the offset in m of the first other digit (len(m) if none).
func (p *pacer) leadingZeros(m []byte) (lead, at int) {
	i := 0
	for i < len(m) {
		end := p.chunk(i, len(m))
		for ; i < end; i++ {
			switch m[i] {
			case '.':
			case '0':
				lead++
			default:
				return lead, i
			}
		}
		if i < len(m) && !p.rest() {
			return lead, i
		}
	}
	return lead, i
}

// zerosOnly reports whether m holds only '0' and '.'.
func (p *pacer) zerosOnly(m []byte) bool {
	for i := 0; i < len(m); {
		end := p.chunk(i, len(m))
		for ; i < end; i++ {
			if m[i] != '0' && m[i] != '.' {
				return false
			}
		}
		if i < len(m) && !p.rest() {
			return true // the check is over: the answer is not used
		}
	}
	return true
}

// maxParsedDigits bounds the significant digits handed to strconv.ParseFloat:
// it decides from its first 800 digits and whether any digit after them is
// not 0 (see strconv's decimal type), so a number with more digits is parsed
// as those digits and one more non-zero digit, which rounds alike.
const maxParsedDigits = 800

// parseFloat parses the checked number b[start:end] as strconv.ParseFloat
// does. Its significant digits start at b[first] and end before b[fracEnd]
// (a '.' may be among them), and its decimal exponent (the value being
// 0.d1d2... × 10^pow) is pow. A long number is shortened as maxParsedDigits
// explains, so that its cost does not depend on its length.
func (p *pacer) parseFloat(b []byte, start, end, first, fracEnd int, pow int64) (float64, error) {
	if end-start <= 2*maxParsedDigits {
		return strconv.ParseFloat(string(b[start:end]), 64)
	}
	short := make([]byte, 0, maxParsedDigits+32)
	if b[start] == '-' {
		short = append(short, '-')
	}
	short = append(short, "0."...)
	i, digits := first, 0
	for ; i < fracEnd && digits < maxParsedDigits; i++ {
		if c := b[i]; c != '.' {
			short = append(short, c)
			digits++
		}
	}
	if !p.zerosOnly(b[i:fracEnd]) {
		short = append(short, '1')
	}
	short = append(short, 'e')
	short = strconv.AppendInt(short, pow, 10)
	return strconv.ParseFloat(string(short), 64)
}
