package quickjs

import (
	"encoding/binary"

	"github.com/coderun/coderun/internal/linearmem"
)

// dataSpans returns the ranges of linear memory that the active data
// segments of the wasm module src write at instantiation: those of memory
// 0 whose offset is a constant. It returns nil when src cannot be read that
// far (compiling it reports the error); a span it leaves out only costs
// scrubbing time (linearmem.PoolOptions.Overwritten).
func dataSpans(src []byte) []linearmem.Span {
	const dataSection = 11
	if len(src) < 8 {
		return nil
	}
	p := src[8:]
	for len(p) > 0 {
		id := p[0]
		size, n := binary.Uvarint(p[1:])
		if n <= 0 || size > uint64(len(p)-1-n) {
			return nil
		}
		body := p[1+n : 1+n+int(size)]
		p = p[1+n+int(size):]
		if id == dataSection {
			return segmentSpans(body)
		}
	}
	return nil
}

// segmentSpans reads a data section's segments (see dataSpans).
func segmentSpans(b []byte) []linearmem.Span {
	count, n := binary.Uvarint(b)
	if n <= 0 {
		return nil
	}
	b = b[n:]
	var spans []linearmem.Span
	for range count {
		flags, n := binary.Uvarint(b)
		if n <= 0 {
			return nil
		}
		b = b[n:]
		active := flags == 0 || flags == 2
		if flags == 2 {
			mem, n := binary.Uvarint(b)
			if n <= 0 {
				return nil
			}
			b = b[n:]
			active = mem == 0
		}
		off, constant := int64(-1), false
		if flags != 1 {
			// An offset expression: i32.const N end is the only one read;
			// any other ends the scan.
			if len(b) < 2 || b[0] != 0x41 {
				return spans
			}
			v, n := sleb(b[1:])
			if n <= 0 || len(b) < 1+n+1 || b[1+n] != 0x0b {
				return spans
			}
			off, constant = v, true
			b = b[1+n+1:]
		}
		size, n := binary.Uvarint(b)
		if n <= 0 || size > uint64(len(b)-n) {
			return nil
		}
		b = b[n+int(size):]
		if active && constant && size > 0 {
			// i32.const is signed; wazero reads the offset as uint32.
			spans = append(spans, linearmem.Span{Off: uint64(uint32(off)), Len: size})
		}
	}
	return spans
}

// sleb reads a signed LEB128 number of at most 64 bits from b and returns
// it and its length, or a length of 0 when b does not hold one.
func sleb(b []byte) (int64, int) {
	var v int64
	var shift uint
	for i, c := range b {
		if shift >= 64 {
			return 0, 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}
