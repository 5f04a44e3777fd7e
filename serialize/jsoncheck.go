package serialize

import (
	"bytes"
	"errors"
	"hash/maphash"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The reasons CheckJSON rejects its input. A *jsonError wraps exactly one of
// them, so callers can test with errors.Is.
var (
	// errSyntax: the input is not valid JSON (RFC 8259).
	errSyntax = errors.New("invalid JSON")
	// errInvalidUTF8: a string holds bytes that are not valid UTF-8.
	errInvalidUTF8 = errors.New("invalid UTF-8")
	// errLoneSurrogate: a \u escape is a surrogate without its pair.
	errLoneSurrogate = errors.New("lone surrogate escape")
	// errDuplicateKey: an object has two keys that decode to the same string.
	errDuplicateKey = errors.New("duplicate key")
	// errUnsafeInteger: a number's magnitude exceeds 2^53, so it is (or
	// rounds to) an integer that a JavaScript number cannot hold exactly.
	errUnsafeInteger = errors.New("integer beyond ±2^53")
	// errNumberOverflow: a number rounds to ±Infinity as a float64.
	errNumberOverflow = errors.New("number overflows float64")
	// errNegativeZero: a number is -0, or so small and negative that it
	// rounds to -0 as a float64.
	errNegativeZero = errors.New("negative zero")
)

// jsonError is the error CheckJSON returns: what is wrong, and where.
type jsonError struct {
	// Err is one of errSyntax, errInvalidUTF8, errLoneSurrogate,
	// errDuplicateKey, errUnsafeInteger, errNumberOverflow or
	// errNegativeZero.
	Err error
	// Offset is the byte offset of the offending token (for a duplicate
	// key, its opening quote) or byte.
	Offset int
	// Detail is the offending text, quoted and possibly shortened, or a
	// description of the syntax error.
	Detail string
}

// Error returns e.g. `duplicate key "a" at offset 9`.
func (e *jsonError) Error() string {
	if e.Err == nil {
		return "invalid JSON value at offset " + strconv.Itoa(e.Offset)
	}
	sep := ": "
	if e.Err == errDuplicateKey {
		sep = " " // duplicate key "a"
	}
	return e.Err.Error() + sep + e.Detail + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns e.Err.
func (e *jsonError) Unwrap() error { return e.Err }

// CheckJSON reports whether b is one lossless JSON value, returning nil if it
// is and a *jsonError if not. Lossless means:
//
//   - valid JSON ([RFC 8259]) in UTF-8, with optional surrounding whitespace;
//     nil or empty input is an error;
//   - no two keys of one object decode to the same string ("a" and "\u0061"
//     are duplicates);
//   - no number of magnitude greater than 2^53, whatever the notation
//     (9007199254740993, 9007199254740993.0 and 1e300 are rejected;
//     9007199254740992, 1.5 and 1e-300 are accepted): above 2^53 every
//     float64 is an integer, and not every integer is a float64;
//   - no number that overflows float64 (1e400);
//   - no negative zero (-0, -0.0, -0e3, or -1e-400, which rounds to -0);
//   - no \u escape of a lone surrogate (a valid pair is fine).
//
// CheckJSON makes a single pass over b without building values. Nesting
// depth is limited only by memory: containers are tracked on an explicit
// stack (a byte per level, plus 40 bytes per open object), never on the Go
// call stack. Duplicate keys are found by linear search in small objects and
// by a hash table in larger ones; both live in buffers that start on the
// goroutine stack, so typical documents are checked without allocating.
// CheckJSONPaced checks big texts in pieces.
//
// [RFC 8259]: https://www.rfc-editor.org/rfc/rfc8259
func CheckJSON(b []byte) error {
	p := unpaced(b)
	return check(b, &p)
}

// CheckValueJSON is CheckJSON for a program's completion value, which may
// hold what a binding argument may not: integers beyond ±2^53 and escapes
// of lone surrogates, both of which JavaScript reads back exactly. It
// rejects everything else CheckJSON rejects.
func CheckValueJSON(b []byte) error {
	p := unpaced(b)
	p.value = true
	return check(b, &p)
}

// check is CheckJSON paced by p. When one of p's pauses fails, it returns
// at once, with an error that its caller replaces with p.err.
func check(b []byte, p *pacer) error {
	// The stacks start in these arrays, which stay on the goroutine stack
	// because only local variables ever point into them.
	var (
		kindsBuf [64]byte
		objsBuf  [16]object
		keysBuf  [64]keyRef
		slotsBuf [128]uint32
		arenaBuf [64]byte
	)
	i := p.skipSpace(b, 0)
	if p.err != nil {
		return p.err
	}
	if i == len(b) {
		return syntaxError(i, "empty input")
	}
	ks := keyStack{keys: keysBuf[:0], slots: slotsBuf[:0], arena: arenaBuf[:0]}
	return checkValues(b, i, p, kindsBuf[:0], objsBuf[:0], ks)
}

// checkValues checks the value at b[i], which is not whitespace, and what
// follows it to the end of b. kinds holds the open containers and objs the
// open objects, innermost last, both empty on entry; like ks, they are
// passed by value so that the arrays check starts them in stay on the stack.
func checkValues(b []byte, i int, p *pacer, kinds []byte, objs []object, ks keyStack) error {
	var err error
	var k keyRef // the key just read
value:
	for {
		if i >= len(b) {
			return syntaxError(i, "unexpected end of input")
		}
		switch ch := b[i]; {
		case ch == '"':
			if i, _, err = checkString(b, i, p); err != nil {
				return err
			}
		case ch == '-' || ch >= '0' && ch <= '9':
			if i, err = checkNumber(b, i, p); err != nil {
				return err
			}
		case ch == '{':
			i = p.skipSpace(b, i+1)
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			kinds = append(kinds, inObject)
			objs = append(objs, object{keys: len(ks.keys), arena: len(ks.arena)})
			if k, i, ks.arena, err = checkKey(b, i, ks.arena, p); err != nil {
				return err
			}
			ks.keys = append(ks.keys, k) // the first key cannot be a duplicate
			continue value
		case ch == '[':
			i = p.skipSpace(b, i+1)
			if i < len(b) && b[i] == ']' {
				i++
				break
			}
			kinds = append(kinds, inArray)
			continue value
		default:
			if i, err = checkWord(b, i); err != nil {
				return err
			}
		}

		// After a value: close containers until a comma or the end.
		for {
			i = p.skipSpace(b, i)
			if p.err != nil {
				return p.err
			}
			depth := len(kinds)
			if depth == 0 || i >= len(b) {
				return checkEnd(b, i, depth)
			}
			kind := kinds[depth-1]
			switch ch := b[i]; {
			case ch == ',':
				i = p.skipSpace(b, i+1)
				if kind == inObject {
					off := i
					if k, i, ks.arena, err = checkKey(b, i, ks.arena, p); err != nil {
						return err
					}
					if ks, err = ks.add(b, &objs[len(objs)-1], k, off); err != nil {
						return err
					}
				}
				continue value
			case ch == ']' && kind == inArray:
			case ch == '}' && kind == inObject:
				objs, ks = objs[:len(objs)-1], ks.pop(objs[len(objs)-1])
			default:
				return unexpected(b, i)
			}
			kinds = kinds[:depth-1]
			i++
		}
	}
}

// checkEnd is the error, if any, when the outermost value has ended at
// b[i] (depth 0: nothing but whitespace may follow, and i is past it) or
// when b ends at i with depth containers open.
func checkEnd(b []byte, i, depth int) error {
	if depth > 0 {
		return syntaxError(i, "unexpected end of input")
	}
	if i < len(b) {
		return unexpected(b, i)
	}
	return nil
}

// checkWord checks the true, false or null at b[i] and returns the offset
// just past it.
func checkWord(b []byte, i int) (int, error) {
	switch b[i] {
	case 't':
		return checkLiteral(b, i, "true")
	case 'f':
		return checkLiteral(b, i, "false")
	case 'n':
		return checkLiteral(b, i, "null")
	}
	return i, unexpected(b, i)
}

// Container kinds on CheckJSON's stack.
const (
	inArray byte = iota
	inObject
)

// linearKeys is the number of keys an object may have before duplicate
// detection switches from a linear search to a hash table.
const linearKeys = 8

// object is the duplicate-key state of one open object.
type object struct {
	keys  int // index in keyStack.keys of its first key
	arena int // length of keyStack.arena when it opened
	size  int // size of its hash table, or 0 while it has none
}

// keyStack holds the keys of the open objects. Only the innermost open
// object gains keys, so its keys are the last in keys, its hash table (if
// any) the last in slots, and its escaped keys the last in arena; closing it
// truncates all three. Nothing in it is a pointer but the three slices, so
// deep nesting costs the garbage collector nothing to scan.
//
// keyStack is passed and returned by value, never stored through a pointer,
// so that slices of the arrays CheckJSON starts it with stay on the stack.
type keyStack struct {
	keys   []keyRef
	slots  []uint32 // open-addressing tables: 1 + index in the object's keys, or 0
	arena  []byte   // decoded keys that had escapes
	seed   maphash.Seed
	seeded bool
}

// keyRef locates a decoded key: b[off:end], or arena[^off:end] if off < 0.
type keyRef struct{ off, end int }

// bytes returns the key that k locates.
func (k keyRef) bytes(b, arena []byte) []byte {
	if k.off < 0 {
		return arena[^k.off:k.end]
	}
	return b[k.off:k.end]
}

// pop drops the keys, hash table and escaped keys of o, the innermost
// object, which closes.
func (ks keyStack) pop(o object) keyStack {
	ks.keys = ks.keys[:o.keys]
	ks.arena = ks.arena[:o.arena]
	ks.slots = ks.slots[:len(ks.slots)-o.size]
	return ks
}

// add records k, whose opening quote is at offset off, as a key of the
// innermost object o, failing if o already has it.
func (ks keyStack) add(b []byte, o *object, k keyRef, off int) (keyStack, error) {
	key := k.bytes(b, ks.arena)
	own := ks.keys[o.keys:]
	if o.size == 0 {
		for _, s := range own {
			if string(s.bytes(b, ks.arena)) == string(key) {
				return ks, duplicateKey(key, off)
			}
		}
		ks.keys = append(ks.keys, k)
		if len(own) >= linearKeys {
			if !ks.seeded {
				ks.seed, ks.seeded = maphash.MakeSeed(), true
			}
			ks = ks.rehash(b, o, 4*linearKeys)
		}
		return ks, nil
	}
	table := ks.slots[len(ks.slots)-o.size:]
	mask := uint64(o.size - 1)
	h := maphash.Bytes(ks.seed, key) & mask
	for ; table[h] != 0; h = (h + 1) & mask {
		if string(own[table[h]-1].bytes(b, ks.arena)) == string(key) {
			return ks, duplicateKey(key, off)
		}
	}
	ks.keys = append(ks.keys, k)
	n := len(ks.keys) - o.keys
	if 2*n > o.size {
		return ks.rehash(b, o, 2*o.size), nil
	}
	table[h] = uint32(n)
	return ks, nil
}

// rehash replaces the hash table of the innermost object o with one of the
// given size, a power of two, holding all its keys.
func (ks keyStack) rehash(b []byte, o *object, size int) keyStack {
	start := len(ks.slots) - o.size
	ks.slots = slices.Grow(ks.slots[:start], size)[:start+size]
	table := ks.slots[start:]
	clear(table)
	mask := uint64(size - 1)
	for i, k := range ks.keys[o.keys:] {
		h := maphash.Bytes(ks.seed, k.bytes(b, ks.arena)) & mask
		for table[h] != 0 {
			h = (h + 1) & mask
		}
		table[h] = uint32(i + 1)
	}
	o.size = size
	return ks
}

// checkKey checks the object key at b[i] and the colon after it, and returns
// the decoded key (in b, or appended to arena if it had escapes), the offset
// of the value, and the arena.
func checkKey(b []byte, i int, arena []byte, p *pacer) (k keyRef, next int, _ []byte, _ error) {
	if i >= len(b) {
		return k, i, arena, syntaxError(i, "unexpected end of input")
	}
	if b[i] != '"' {
		return k, i, arena, syntaxError(i, "expected a string key, found "+describe(b[i]))
	}
	end, escaped, err := checkString(b, i, p)
	if err != nil {
		return k, i, arena, err
	}
	if escaped {
		start := len(arena)
		arena = appendUnquoted(arena, b[i+1:end-1])
		k = keyRef{off: ^start, end: len(arena)}
	} else {
		k = keyRef{off: i + 1, end: end - 1}
	}
	j := p.skipSpace(b, end)
	if p.err != nil {
		return k, j, arena, p.err
	}
	if j >= len(b) {
		return k, j, arena, syntaxError(j, "unexpected end of input")
	}
	if b[j] != ':' {
		return k, j, arena, syntaxError(j, "expected ':' after object key, found "+describe(b[j]))
	}
	return k, p.skipSpace(b, j+1), arena, p.err
}

// checkString checks the string whose opening quote is at b[i] and returns the
// offset just past its closing quote, and whether it has escapes. It scans
// no further than p.next before p lets it go on.
func checkString(b []byte, i int, p *pacer) (end int, escaped bool, err error) {
	start := i
	i++
	for {
		if i >= p.next {
			if !p.advance(len(b), i) {
				if p.err != nil {
					return i, escaped, p.err
				}
				return i, escaped, syntaxError(start, "unterminated string")
			}
			continue
		}
		if i += plainPrefix(b[i:p.next]); i >= p.next {
			continue
		}
		switch ch := b[i]; {
		case ch == '"':
			return i + 1, escaped, nil
		case ch == '\\':
			escaped = true
			if i, err = checkEscape(b, i); err != nil {
				if !p.value || !errors.Is(err, errLoneSurrogate) {
					return i, escaped, err
				}
				i += len(`\uXXXX`)
			}
		case ch < 0x20:
			return i, escaped, syntaxError(i, "control character "+describe(ch)+" in string")
		case ch < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, escaped, &jsonError{Err: errInvalidUTF8, Offset: i, Detail: "byte " + hexByte(ch)}
			}
			i += size
		}
	}
}

// checkEscape checks the escape sequence at b[i] (a backslash) and returns the
// offset just past it; a \u escape of a high surrogate must be followed by
// one of a low surrogate.
func checkEscape(b []byte, i int) (int, error) {
	if i+1 >= len(b) {
		return i, syntaxError(i, "unterminated string")
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, nil
	case 'u':
	default:
		return i, syntaxError(i, "invalid escape "+strconv.Quote(string(b[i:i+2])))
	}
	r, ok := hex4(b, i+2)
	if !ok {
		return i, syntaxError(i, "invalid \\u escape")
	}
	switch {
	case r < 0xD800 || r > 0xDFFF:
		return i + 6, nil
	case r <= 0xDBFF:
		if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
			if lo, ok := hex4(b, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return i + 12, nil
			}
		}
	}
	return i, &jsonError{Err: errLoneSurrogate, Offset: i, Detail: string(b[i : i+6])}
}

// hex4 decodes the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, ch := range b[i : i+4] {
		switch {
		case ch >= '0' && ch <= '9':
			ch -= '0'
		case ch >= 'a' && ch <= 'f':
			ch -= 'a' - 10
		case ch >= 'A' && ch <= 'F':
			ch -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(ch)
	}
	return r, true
}

// appendUnquoted appends the decoded form of s, the already-checked inside
// of a JSON string, to dst.
func appendUnquoted(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			return append(dst, s[i:]...)
		}
		dst = append(dst, s[i:i+j]...)
		i += j
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(s, i+2)
			if utf16.IsSurrogate(r) {
				lo, _ := hex4(s, i+8)
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			i += 4
		default: // '"', '\\', '/'
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

// checkLiteral checks for the literal word at b[i].
func checkLiteral(b []byte, i int, word string) (int, error) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), nil
	}
	return i, syntaxError(i, "invalid literal, expected "+word)
}

// maxSafe is 2^53, the largest magnitude CheckJSON accepts, in decimal.
const maxSafe = "9007199254740992"

// checkNumber checks the number at b[i] and returns the offset just past it.
func checkNumber(b []byte, i int, pc *pacer) (int, error) {
	n := numberSpan{start: i, neg: b[i] == '-'}
	if n.neg {
		i++
	}
	n.intStart = i
	switch {
	case i < len(b) && b[i] == '0':
		i++
		if i < len(b) && b[i] >= '0' && b[i] <= '9' {
			return i, syntaxError(n.start, "invalid number, leading zero")
		}
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = pc.skipDigits(b, i+1)
	default:
		return i, syntaxError(n.start, "invalid number")
	}
	n.intEnd, n.fracStart, n.fracEnd, n.end = i, i, i, i
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		if err := scanNumberTail(b, &n, pc); err != nil {
			return n.end, err
		}
	}
	if pc.err != nil {
		return n.end, pc.err
	}
	// Fast path: a short integer.
	if n.end == n.intEnd && n.intEnd-n.intStart < len(maxSafe) {
		if n.neg && b[n.intStart] == '0' {
			return n.end, numberError(b, errNegativeZero, n.start, n.end)
		}
		return n.end, nil
	}
	return n.end, checkMagnitude(b, &n, pc)
}

// numberSpan locates the parts of a JSON number in its text.
type numberSpan struct {
	start, end         int   // the number
	neg                bool  // whether it starts with '-'
	intStart, intEnd   int   // its integer digits
	fracStart, fracEnd int   // its fraction digits; both intEnd without a fraction
	exp                int64 // its exponent, saturated at about 2^40 in magnitude
}

// scanNumberTail checks the syntax of the fraction and exponent of n, which
// follow its integer digits, and locates them. On error, n.end is where the
// scan stopped.
func scanNumberTail(b []byte, n *numberSpan, pc *pacer) error {
	i := n.intEnd
	if i < len(b) && b[i] == '.' {
		n.fracStart = i + 1
		n.fracEnd = pc.skipDigits(b, n.fracStart)
		if n.fracEnd == n.fracStart {
			n.end = i
			return syntaxError(n.start, "invalid number, expected a digit after '.'")
		}
		i = n.fracEnd
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		var ok bool
		if i, n.exp, ok = scanExponent(b, i+1, pc); !ok {
			n.end = i
			return syntaxError(n.start, "invalid number, expected a digit in exponent")
		}
	}
	n.end = i
	return nil
}

// scanExponent reads the exponent whose optional sign or first digit is at
// b[i] and returns the offset just past it and its value, saturated (beyond
// about 2^40 the answer is the same); false if it has no digits.
func scanExponent(b []byte, i int, pc *pacer) (int, int64, bool) {
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	digits := i
	i = pc.skipDigits(b, i)
	exp := int64(0)
	for j := digits; j < i && exp < 1<<40; j++ {
		exp = exp*10 + int64(b[j]-'0')
	}
	if i == digits {
		return i, 0, false
	}
	if neg {
		exp = -exp
	}
	return i, exp, true
}

// checkMagnitude checks that the number n, syntactically valid, is neither
// beyond 2^53 in magnitude, nor beyond float64, nor negative zero.
func checkMagnitude(b []byte, n *numberSpan, pc *pacer) error {
	start, end, fracEnd := n.start, n.end, n.fracEnd
	// The value is 0.d1d2d3... × 10^p, where d1 is the first nonzero digit.
	lead, first := 0, n.intStart
	if fracEnd-n.intStart <= 64 {
		for ; first < fracEnd; first++ {
			if b[first] == '.' {
				continue
			}
			if b[first] != '0' {
				break
			}
			lead++
		}
	} else {
		lead, first = pc.leadingZeros(b[n.intStart:fracEnd])
		first += n.intStart
		if pc.err != nil {
			return pc.err
		}
	}
	digits := (n.intEnd - n.intStart) + (fracEnd - n.fracStart)
	if lead == digits { // zero
		if n.neg {
			return numberError(b, errNegativeZero, start, end)
		}
		return nil
	}
	p := int64(n.intEnd-n.intStart-lead) + n.exp
	switch {
	case p > 309:
		return numberError(b, errNumberOverflow, start, end)
	case p == 309:
		if _, err := pc.parseFloat(b, start, end, first, fracEnd, p); err != nil {
			return numberError(b, errNumberOverflow, start, end)
		}
		return pc.unsafeInteger(b, start, end)
	case p > int64(len(maxSafe)):
		return pc.unsafeInteger(b, start, end)
	case p == int64(len(maxSafe)):
		if !atMostMaxSafe(b[first:fracEnd], pc) {
			return pc.unsafeInteger(b, start, end)
		}
	case n.neg && p < -320:
		// Might round to -0; the smallest float64 is about 4.9e-324.
		if f, _ := pc.parseFloat(b, start, end, first, fracEnd, p); f == 0 {
			return numberError(b, errNegativeZero, start, end)
		}
	}
	return nil
}

// atMostMaxSafe reports whether the significant digits m (with at most one
// '.'), which start with a digit other than 0, are at most maxSafe when
// read as a 16-digit integer part.
func atMostMaxSafe(m []byte, pc *pacer) bool {
	k, i := 0, 0
	for ; i < len(m) && k < len(maxSafe); i++ {
		ch := m[i]
		if ch == '.' {
			continue
		}
		if ch != maxSafe[k] {
			return ch < maxSafe[k]
		}
		k++
	}
	// Equal to maxSafe so far: anything but zeros after makes it bigger;
	// equal, or shorter (padded with zeros, so smaller), is fine.
	return pc.zerosOnly(m[i:])
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipSpace returns the offset of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func syntaxError(off int, detail string) error {
	return &jsonError{Err: errSyntax, Offset: off, Detail: detail}
}

func unexpected(b []byte, i int) error {
	return syntaxError(i, "unexpected "+describe(b[i]))
}

func duplicateKey(k []byte, off int) error {
	return &jsonError{Err: errDuplicateKey, Offset: off, Detail: strconv.Quote(shorten(k))}
}

func numberError(b []byte, err error, start, end int) error {
	return &jsonError{Err: err, Offset: start, Detail: shorten(b[start:end])}
}

// shorten returns b as a string, cut to at most 40 bytes (plus "...")
// without splitting a UTF-8 sequence.
func shorten(b []byte) string {
	const max = 40
	if len(b) <= max {
		return string(b)
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "..."
}

// describe names the byte ch for an error message.
func describe(ch byte) string {
	if ch >= 0x20 && ch < 0x7F {
		return strconv.QuoteRune(rune(ch))
	}
	return "byte " + hexByte(ch)
}

func hexByte(ch byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{'0', 'x', digits[ch>>4], digits[ch&0xF]})
}
