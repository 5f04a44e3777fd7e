package transpile

import (
	"strings"
	"unicode/utf8"
)

// This file lets through plain JavaScript that esbuild refuses only because its identifier tables
// are older than the engine's: esbuild's are generated from Unicode 15.1, and it refuses names
// made of characters that Unicode 16.0 and 17.0 added to ID_Start and ID_Continue (U+1C89,
// U+10D40 ...), written as they are or as \u escapes, as names or as private names. The engine
// accepts them.
//
// As for "await using" (respell.go), such a program can run only as the user wrote it, and esbuild
// must still show that it is plain JavaScript. So each added character in an identifier or a
// private name, as the tokenizer reads them (never inside a string, a template, a comment or a
// regular expression), is respelled as a character esbuild knows, of the same kind (ID_Start for
// ID_Start, ID_Continue but not ID_Start for the rest, so that a character in a place its kind
// does not allow is still refused) and of the same length (the same UTF-8 bytes, or the same hex
// digits of its escape), and the respelled input must pass both of esbuild's readings alike. Each
// added character gets a replacement of its own, which the program's names do not use, so that
// distinct names stay distinct. The tables are in idtables.go, made by testdata/unicode/gen.mjs.

// idRange is the code points from lo to hi, both included.
type idRange struct{ lo, hi rune }

// idKind is what an identifier character is to the respelling.
type idKind uint8

const (
	idOther         idKind = iota // a character esbuild knows, or none that can be in a name
	idAddedStart                  // added to ID_Start after Unicode 15.1
	idAddedContinue               // added to ID_Continue, and not ID_Start
)

// inRanges reports whether r is in one of rs, which are sorted and do not overlap.
func inRanges(rs []idRange, r rune) bool {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < rs[m].lo:
			hi = m
		case r > rs[m].hi:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// addedKind returns what r is: added to ID_Start, to ID_Continue, or neither.
func addedKind(r rune) idKind {
	switch {
	case r < 0x800:
		return idOther
	case inRanges(addedIDStart, r):
		return idAddedStart
	case inRanges(addedIDContinue, r):
		return idAddedContinue
	}
	return idOther
}

// identChar is a character of an identifier: its code point, and where and how it is written in
// the identifier's text: at [at, at+n), as the character itself or as a \u escape with digits hex
// digits.
type identChar struct {
	r      rune
	at, n  int
	digits int // 0 when the character is written as it is
}

// nextIdentChar returns the character at text[i:], which holds an identifier as the tokenizer
// reads one; n is 1 for a byte that is neither a character nor an escape esbuild reads.
func nextIdentChar(text string, i int) identChar {
	c := text[i]
	if c >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(text[i:])
		return identChar{r: r, at: i, n: n}
	}
	if c != '\\' || i+1 >= len(text) || text[i+1] != 'u' {
		return identChar{r: rune(c), at: i, n: 1}
	}
	if i+2 < len(text) && text[i+2] == '{' {
		end := strings.IndexByte(text[i+3:], '}')
		if r, ok := parseHex(text[i+3 : i+3+max(end, 0)]); end > 0 && ok {
			return identChar{r: r, at: i, n: end + 4, digits: end}
		}
		return identChar{r: utf8.RuneError, at: i, n: 1}
	}
	if i+6 <= len(text) {
		if r, ok := parseHex(text[i+2 : i+6]); ok {
			return identChar{r: r, at: i, n: 6, digits: 4}
		}
	}
	return identChar{r: utf8.RuneError, at: i, n: 1}
}

// parseHex returns the code point the hex digits s spell, when they spell one (up to U+10FFFF).
func parseHex(s string) (rune, bool) {
	if s == "" {
		return 0, false
	}
	var r rune
	for i := range len(s) {
		c := s[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if r = r<<4 | rune(d); r > utf8.MaxRune {
			return 0, false
		}
	}
	return r, true
}

// spares is one table of replacements (see idtables.go): its ranges, the ones the program's names
// use (a bit each, in the order of the ranges) and the next one to try.
type spares struct {
	ranges []idRange
	used   []uint64
	next   int
}

func newSpares(rs []idRange) *spares {
	n := 0
	for _, r := range rs {
		n += int(r.hi-r.lo) + 1
	}
	return &spares{ranges: rs, used: make([]uint64, (n+63)/64)}
}

// index returns the place of r in the table, or -1.
func (s *spares) index(r rune) int {
	base := 0
	for _, rg := range s.ranges {
		if r >= rg.lo && r <= rg.hi {
			return base + int(r-rg.lo)
		}
		base += int(rg.hi-rg.lo) + 1
	}
	return -1
}

// take returns the next replacement the program does not use, and marks it used.
func (s *spares) take() (rune, bool) {
	base := 0
	for _, rg := range s.ranges {
		size := int(rg.hi-rg.lo) + 1
		for ; s.next < base+size; s.next++ {
			if s.used[s.next/64]&(1<<(s.next%64)) == 0 {
				s.used[s.next/64] |= 1 << (s.next % 64)
				return rg.lo + rune(s.next-base), true
			}
		}
		base += size
	}
	return 0, false
}

// idRespelling is the replacements of one program: the spare tables, by kind and UTF-8 length,
// and the replacement each added character got.
type idRespelling struct {
	start3, start4, cont3, cont4 *spares
	to                           map[rune]rune
}

func newIDRespelling() *idRespelling {
	return &idRespelling{start3: newSpares(spareStart3), start4: newSpares(spareStart4),
		cont3: newSpares(spareContinue3), cont4: newSpares(spareContinue4), to: map[rune]rune{}}
}

// use marks r as used by the program, when it is a spare.
func (p *idRespelling) use(r rune) {
	if r < 0x800 {
		return
	}
	for _, s := range [...]*spares{p.start3, p.start4, p.cont3, p.cont4} {
		if i := s.index(r); i >= 0 {
			s.used[i/64] |= 1 << (i % 64)
			return
		}
	}
}

// replacement returns the character that stands for r, an added character of kind k.
func (p *idRespelling) replacement(r rune, k idKind) (rune, bool) {
	if to, ok := p.to[r]; ok {
		return to, true
	}
	s := p.start3
	switch {
	case k == idAddedStart && r > 0xFFFF:
		s = p.start4
	case k == idAddedContinue && r > 0xFFFF:
		s = p.cont4
	case k == idAddedContinue:
		s = p.cont3
	}
	to, ok := s.take()
	if ok {
		p.to[r] = to
	}
	return to, ok
}

// respelledIDBytes bounds what the respelling allocates beside its copy of the input: the spare
// tables' bits and a replacement for each added character.
const respelledIDBytes = 512 << 10

// respellAddedIdentifiers returns input, the wrapped program, with every added character of its
// names and private names respelled (see the top of this file), when it has one, the wrapped
// body is the program's own text (no declaration was blanked) and there are spares enough. It
// reads the names twice, looking at the context as the scan's passes do (c.poll.err is set when
// it stopped), and reserves its memory once it found an added character.
func (c *compilation) respellAddedIdentifiers(input string) (string, bool) {
	toks, poll := c.tokens, c.poll
	body, ok := strings.CutPrefix(input, inputHeader)
	if !ok || !strings.HasSuffix(body, inputFooter) || body[:len(body)-len(inputFooter)] != toks.src {
		return "", false
	}
	// The first reading finds an added character; the second, the spares the names use.
	found := eachIdentChar(toks, poll, func(ch identChar, _ int) bool { return addedKind(ch.r) == idOther })
	if found || poll.err != nil {
		return "", false
	}
	if err := c.reserve(int64(len(input)) + respelledIDBytes); err != nil {
		poll.err = err
		return "", false
	}
	p := newIDRespelling()
	eachIdentChar(toks, poll, func(ch identChar, _ int) bool {
		p.use(ch.r)
		return true
	})
	b := []byte(input)
	ok = eachIdentChar(toks, poll, func(ch identChar, tokStart int) bool {
		k := addedKind(ch.r)
		if k == idOther {
			return true
		}
		to, ok := p.replacement(ch.r, k)
		if !ok {
			return false
		}
		return writeIdentChar(b[len(inputHeader)+tokStart+ch.at:][:ch.n], ch, to)
	})
	if !ok || poll.err != nil {
		return "", false
	}
	return string(b), true
}

// eachIdentChar calls f with every character of the names and private names in toks, and the
// start of its token, until f returns false or poll stops it; it reports whether f never did.
func eachIdentChar(toks *tokenList, poll *poller, f func(ch identChar, tokStart int) bool) bool {
	for _, t := range toks.toks {
		if poll.stop() {
			return false
		}
		if t.kind != tkIdent && t.kind != tkPrivate {
			continue
		}
		text := toks.src[t.start:t.end]
		for i := 0; i < len(text); {
			ch := nextIdentChar(text, i)
			if !f(ch, t.start) {
				return false
			}
			i += ch.n
		}
	}
	return true
}

// writeIdentChar writes to in place of ch in dst, which holds ch's text, at the same length: its
// UTF-8 bytes, or an escape of as many hex digits, padded with zeros. It reports whether to fits.
func writeIdentChar(dst []byte, ch identChar, to rune) bool {
	if ch.digits == 0 {
		if utf8.RuneLen(to) != len(dst) {
			return false
		}
		utf8.EncodeRune(dst, to)
		return true
	}
	digits := dst[len(dst)-ch.digits:]
	if ch.n != ch.digits+2 { // \u{...}
		digits = dst[3 : len(dst)-1]
	}
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = "0123456789ABCDEF"[to&0xF]
		to >>= 4
	}
	return to == 0
}
