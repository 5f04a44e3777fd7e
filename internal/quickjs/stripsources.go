package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
)

// The object format JS_WriteObject writes in the pinned build (BC_VERSION
// 27: QuickJS-NG v0.16.2 and one fix, see wasm/upstream/build.json): a
// version byte, a checksum of the rest (bcChecksum), the atom table, then
// one object, each tagged by a BC_TAG_* byte. Only the tags a compiled
// script's constant pools hold are read here.
const (
	bcVersion = 27

	bcTagNull             = 1
	bcTagUndefined        = 2
	bcTagFalse            = 3
	bcTagTrue             = 4
	bcTagInt32            = 5
	bcTagFloat64          = 6
	bcTagString           = 7
	bcTagObject           = 8
	bcTagArray            = 9
	bcTagBigInt           = 10
	bcTagTemplateObject   = 11
	bcTagFunctionBytecode = 12

	// bcHasDebug is the flag of a function's u16 flags word that says its
	// debug information (filename, positions, source) follows its bytecode.
	bcHasDebug = 1 << 11
	// bcVarCaptured is the flag of a local's flags byte that says the index
	// of its variable reference follows.
	bcVarCaptured = 1 << 6
	// bcMaxDepth bounds the nesting of the objects read.
	bcMaxDepth = 1000
	// bcChecksumAt is where the checksum is: after the version byte; it
	// covers everything after itself.
	bcChecksumAt = 1
	bcHeaderLen  = bcChecksumAt + 4
)

// errBytecode is wrapped by StripSources's errors: the bytecode is not in
// the format it reads.
var errBytecode = errors.New("quickjs: unsupported bytecode")

// StripStats says what StripSources took out.
type StripStats struct {
	Functions int // functions whose source text was dropped
	Bytes     int // bytes of source text dropped
	Kept      int // functions that keep theirs (classes)
}

// StripSources returns a copy of bytecode (Compile's output) in which every
// function's source text is dropped, except a class's (whose text starts
// with "class"): the same rule as DropSources, applied before the functions
// exist, so that an instance that evaluates the result never allocates
// those texts. Everything else — the bytecode, positions (line and column
// tables), names, constants — is copied unchanged; a function without its
// text prints as "[native code]", as after DropSources. It reads the
// format of the pinned build and fails, wrapping ErrLayoutMismatch, on
// anything else (another version, or an object a script's constants never
// hold).
func StripSources(bytecode []byte) ([]byte, StripStats, error) {
	s := &bcStripper{in: bytecode, out: make([]byte, 0, len(bytecode))}
	if err := s.all(); err != nil {
		return nil, StripStats{}, fmt.Errorf("%w: %w at byte %d", ErrLayoutMismatch, err, s.pos)
	}
	// The reader refuses an object whose checksum is not its own.
	binary.LittleEndian.PutUint32(s.out[bcChecksumAt:], bcChecksum(s.out[bcHeaderLen:]))
	return s.out, s.stats, nil
}

// bcStripper reads in from pos, copying what it reads to out (all but the
// dropped sources).
type bcStripper struct {
	in    []byte
	pos   int
	from  int // in[:from] is in out, or dropped
	out   []byte
	stats StripStats
	// readOnly: nothing is copied to out (a reader that only skips objects).
	readOnly bool
	// table, when not nil, collects the atom table (BytecodeAtoms).
	table *[]BytecodeAtom
}

// all reads the whole object.
func (s *bcStripper) all() error {
	if err := s.atoms(); err != nil {
		return err
	}
	if err := s.object(0); err != nil {
		return err
	}
	if s.pos != len(s.in) {
		return fmt.Errorf("%w: %d bytes after the object", errBytecode, len(s.in)-s.pos)
	}
	s.copyTo(s.pos)
	return nil
}

// atoms reads the version byte, the checksum and the atom table.
func (s *bcStripper) atoms() error {
	v, err := s.u8()
	if err != nil {
		return err
	}
	if v != bcVersion {
		return fmt.Errorf("%w: version %d", errBytecode, v)
	}
	if err := s.skip(4); err != nil {
		return err
	}
	got := binary.LittleEndian.Uint32(s.in[bcChecksumAt:])
	if want := bcChecksum(s.in[bcHeaderLen:]); got != want {
		return fmt.Errorf("%w: checksum %#x, not %#x", errBytecode, got, want)
	}
	n, err := s.leb()
	if err != nil {
		return err
	}
	for range n {
		kind, err := s.u8()
		if err != nil {
			return err
		}
		switch {
		case kind == 0:
			err = s.skip(4) // a constant atom, by number
		case s.table != nil:
			err = s.name(kind)
		default:
			err = s.str()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// bcChecksum is bc_csum: the checksum JS_WriteObject writes after the
// version byte, of all the bytes after it. Like bc_csum, it leaves out the
// last four bytes when their number is a multiple of four.
func bcChecksum(p []byte) uint32 {
	const mul = 0x9e370001
	var h uint32
	i := 0
	for ; i+4 < len(p); i += 4 {
		h += binary.LittleEndian.Uint32(p[i:])
		h *= mul
	}
	var tail uint32
	if rest := len(p) - i; rest < 4 {
		for j := rest - 1; j >= 0; j-- {
			tail = tail<<8 | uint32(p[i+j])
		}
	}
	h += tail
	return h * mul
}

// copyTo copies in[from:p] to out: everything read since the last copy.
func (s *bcStripper) copyTo(p int) {
	if !s.readOnly {
		s.out = append(s.out, s.in[s.from:p]...)
	}
	s.from = p
}

// u8 reads a byte.
func (s *bcStripper) u8() (byte, error) {
	if s.pos >= len(s.in) {
		return 0, fmt.Errorf("%w: truncated", errBytecode)
	}
	s.pos++
	return s.in[s.pos-1], nil
}

// skip reads n bytes.
func (s *bcStripper) skip(n int) error {
	if n < 0 || n > len(s.in)-s.pos {
		return fmt.Errorf("%w: truncated", errBytecode)
	}
	s.pos += n
	return nil
}

// leb reads an unsigned LEB128 number of at most 32 bits (an atom, a
// count, a length, or a zigzag-encoded int32).
func (s *bcStripper) leb() (uint32, error) {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		b, err := s.u8()
		if err != nil {
			return 0, err
		}
		v |= uint32(b&0x7f) << shift
		if b&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: a number longer than 5 bytes", errBytecode)
}

// lebs reads n LEB128 numbers.
func (s *bcStripper) lebs(n int) error {
	for range n {
		if _, err := s.leb(); err != nil {
			return err
		}
	}
	return nil
}

// str reads a string: its length times 2 plus a wide flag, then its
// characters (two bytes each when wide).
func (s *bcStripper) str() error {
	n, err := s.leb()
	if err != nil {
		return err
	}
	size := int(n >> 1)
	if n&1 != 0 {
		size *= 2
	}
	return s.skip(size)
}

// name reads a string as str does and appends it to table, decoded from
// Latin-1 or UTF-16, with its kind.
func (s *bcStripper) name(kind byte) error {
	start := s.pos
	if err := s.str(); err != nil {
		return err
	}
	r := &bcStripper{in: s.in, pos: start, readOnly: true}
	n, _ := r.leb()
	chars := s.in[r.pos:s.pos]
	*s.table = append(*s.table, BytecodeAtom{Name: decodeChars(chars, n&1 != 0), String: kind == atomTypeString})
	return nil
}

// decodeChars decodes a string's characters: Latin-1, or UTF-16 when wide.
func decodeChars(chars []byte, wide bool) string {
	if wide {
		u := make([]uint16, len(chars)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(chars[2*i:])
		}
		return string(utf16.Decode(u))
	}
	var b strings.Builder
	for _, c := range chars {
		b.WriteRune(rune(c))
	}
	return b.String()
}

// object reads one tagged object.
func (s *bcStripper) object(depth int) error {
	if depth > bcMaxDepth {
		return fmt.Errorf("%w: objects nested too deep", errBytecode)
	}
	tag, err := s.u8()
	if err != nil {
		return err
	}
	switch tag {
	case bcTagNull, bcTagUndefined, bcTagFalse, bcTagTrue:
		return nil
	case bcTagInt32:
		_, err = s.leb()
		return err
	case bcTagFloat64:
		return s.skip(8)
	case bcTagString:
		return s.str()
	case bcTagBigInt:
		n, err := s.leb()
		if err != nil {
			return err
		}
		return s.skip(int(n))
	case bcTagArray, bcTagTemplateObject:
		n, err := s.leb()
		if err != nil {
			return err
		}
		for range n {
			if err := s.object(depth + 1); err != nil {
				return err
			}
		}
		if tag == bcTagTemplateObject {
			return s.object(depth + 1) // its raw strings
		}
		return nil
	case bcTagObject:
		n, err := s.leb()
		if err != nil {
			return err
		}
		for range n {
			if _, err := s.leb(); err != nil { // the property's atom
				return err
			}
			if err := s.object(depth + 1); err != nil {
				return err
			}
		}
		return nil
	case bcTagFunctionBytecode:
		return s.function(depth)
	default:
		return fmt.Errorf("%w: tag %d", errBytecode, tag)
	}
}

// function reads a function (after its tag): JS_WriteFunctionTag's fields,
// its constants (nested functions among them), its bytecode, then its
// debug information, whose source text it drops.
func (s *bcStripper) function(depth int) error {
	h, err := s.header()
	if err != nil {
		return err
	}
	if err := s.vars(h); err != nil {
		return err
	}
	constants, codeLen := h.counts[bcConstants], h.counts[bcCodeLen]
	for range constants {
		if err := s.object(depth + 1); err != nil {
			return err
		}
	}
	if err := s.skip(int(codeLen)); err != nil {
		return err
	}
	if h.flags&bcHasDebug == 0 {
		return nil
	}
	if err := s.lebs(3); err != nil { // filename atom, line, column
		return err
	}
	n, err := s.leb()
	if err != nil {
		return err
	}
	if err := s.skip(int(n)); err != nil { // the line and column table
		return err
	}
	start := s.pos
	n, err = s.leb()
	if err != nil {
		return err
	}
	textAt := s.pos
	if err := s.skip(int(n)); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if bytes.HasPrefix(s.in[textAt:s.pos], []byte(classPrefix)) {
		s.stats.Kept++
		return nil
	}
	s.copyTo(start)
	if !s.readOnly {
		s.out = append(s.out, 0) // no source
	}
	s.from = s.pos
	s.stats.Functions++
	s.stats.Bytes += int(n)
	return nil
}
