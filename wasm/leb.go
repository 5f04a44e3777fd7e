package wasm

import (
	"errors"
	"fmt"
)

// errOverflow reports a LEB128 number that does not fit its type or runs past
// the maximum length for that type.
var errOverflow = errors.New("leb128 overflow")

// errEOF reports input that ended inside a construct.
var errEOF = errors.New("unexpected end of input")

// readUleb reads an unsigned LEB128 number of at most bits bits from b and
// returns it with the number of bytes read.
func readUleb(b []byte, bits uint) (uint64, int, error) {
	var v uint64
	var shift uint
	for i := 0; ; i++ {
		if i >= len(b) {
			return 0, 0, errEOF
		}
		c := b[i]
		if shift >= bits {
			return 0, 0, errOverflow
		}
		// The last permitted byte may only carry the bits that remain.
		if rem := bits - shift; rem < 7 && c&0x7f>>rem != 0 {
			return 0, 0, errOverflow
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
}

// ReadSleb reads a signed LEB128 number of at most bits bits from b (32 for
// an i32.const operand, say) and returns it sign-extended to 64 bits with
// the number of bytes read. It refuses a number longer than bits allow or
// whose unused high bits differ from its sign, as the WebAssembly binary
// format does; see [Integers].
//
// [Integers]: https://webassembly.github.io/spec/core/binary/values.html#integers
func ReadSleb(b []byte, bits uint) (int64, int, error) {
	var v int64
	var shift uint
	for i := 0; ; i++ {
		if i >= len(b) {
			return 0, 0, errEOF
		}
		c := b[i]
		if shift >= bits {
			return 0, 0, errOverflow
		}
		if rem := bits - shift; rem < 7 {
			// The unused high bits of the last byte must all equal the sign bit.
			hi := int8(c<<1) >> (rem) // bits rem-1..6 of c, sign-extended
			if c&0x80 != 0 || (hi != 0 && hi != -1) {
				return 0, 0, errOverflow
			}
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1, nil
		}
	}
}

// AppendUleb appends the canonical (shortest) unsigned LEB128 encoding of v
// to b: a count, a size or an index, say. It is the one unsigned encoder of
// the module's numbers; see [Integers] in the WebAssembly binary format.
//
// [Integers]: https://webassembly.github.io/spec/core/binary/values.html#integers
func AppendUleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendSleb appends the canonical (shortest) signed LEB128 encoding of v to
// b (an i32.const or i64.const operand, say); see [Integers].
func AppendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// lebError wraps a LEB128 decoding error with what was being read.
func lebError(what string, err error) error {
	return fmt.Errorf("%s: %w", what, err)
}
