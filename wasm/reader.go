package wasm

import (
	"fmt"
	"unicode/utf8"
)

// reader reads the binary format from b, reporting errors with module
// offsets (base is the module offset of b[0]).
type reader struct {
	b    []byte
	pos  int
	base int
}

// offset returns the module offset of the next byte.
func (r *reader) offset() int { return r.base + r.pos }

// errorf returns an error prefixed with the current module offset.
func (r *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %#x: "+format, append([]any{r.offset()}, args...)...)
}

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) byte(what string) (byte, error) {
	if r.pos >= len(r.b) {
		return 0, r.errorf("%s: %w", what, errEOF)
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) u32(what string) (uint32, error) {
	v, n, err := readUleb(r.b[r.pos:], 32)
	if err != nil {
		return 0, r.errorf("%s: %w", what, err)
	}
	r.pos += n
	return uint32(v), nil
}

// count reads a vector length and rejects lengths that cannot fit in the
// remaining input when every element takes at least minSize bytes.
func (r *reader) count(what string, minSize int) (uint32, error) {
	n, err := r.u32(what)
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(len(r.b)-r.pos) {
		return 0, r.errorf("%s %d exceeds the remaining %d bytes: %w", what, n, len(r.b)-r.pos, errEOF)
	}
	return n, nil
}

func (r *reader) bytes(n int, what string) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.pos {
		return nil, r.errorf("%s: %w", what, errEOF)
	}
	s := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return s, nil
}

func (r *reader) name(what string) (string, error) {
	n, err := r.u32(what + " length")
	if err != nil {
		return "", err
	}
	b, err := r.bytes(int(n), what)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", r.errorf("%s is not valid UTF-8", what)
	}
	return string(b), nil
}

func (r *reader) valType(what string) (ValType, error) {
	c, err := r.byte(what)
	if err != nil {
		return 0, err
	}
	if !isValType(c) {
		return 0, r.errorf("%s: invalid value type %#x", what, c)
	}
	return ValType(c), nil
}

func (r *reader) refType(what string) (ValType, error) {
	t, err := r.valType(what)
	if err == nil && t != funcRef && t != externRef {
		err = r.errorf("%s: %#x is not a reference type", what, byte(t))
	}
	return t, err
}

func (r *reader) limits(what string) (Limits, error) {
	var l Limits
	var err error
	if l.Flags, err = r.byte(what + " flags"); err != nil {
		return l, err
	}
	if l.Flags > 3 {
		return l, r.errorf("%s: unsupported limits flags %#x", what, l.Flags)
	}
	if l.Min, err = r.u32(what + " minimum"); err != nil {
		return l, err
	}
	if l.hasMax() {
		l.Max, err = r.u32(what + " maximum")
	}
	return l, err
}

// expr decodes an expression of about capHint instructions.
func (r *reader) expr(capHint int) ([]Instr, error) {
	e, n, err := decodeExpr(r.b[r.pos:], r.offset(), capHint)
	if err != nil {
		return nil, err
	}
	r.pos += n
	return e, nil
}

func (r *reader) u32s(what string) ([]uint32, error) {
	n, err := r.count(what+" count", 1)
	if err != nil {
		return nil, err
	}
	v := make([]uint32, n)
	for i := range v {
		if v[i], err = r.u32(what); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (r *reader) valTypes(what string) ([]ValType, error) {
	n, err := r.count(what+" count", 1)
	if err != nil {
		return nil, err
	}
	v := make([]ValType, n)
	for i := range v {
		if v[i], err = r.valType(what); err != nil {
			return nil, err
		}
	}
	return v, nil
}
