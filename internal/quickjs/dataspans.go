package quickjs

import (
	"encoding/binary"

	"github.com/coderun/coderun/internal/linearmem"
	"github.com/coderun/coderun/wasm"
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
			v, n, ok := i32ConstExpr(b)
			if !ok {
				return spans
			}
			off, constant = int64(v), true
			b = b[n:]
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

// i32ConstExpr reads the constant expression i32.const N end at the start
// of b and returns N and the bytes the expression takes; false when b
// starts with anything else.
func i32ConstExpr(b []byte) (int32, int, bool) {
	const i32Const, end = 0x41, 0x0b
	if len(b) < 2 || b[0] != i32Const {
		return 0, 0, false
	}
	v, n, err := wasm.ReadSleb(b[1:], 32)
	if err != nil || len(b) < 1+n+1 || b[1+n] != end {
		return 0, 0, false
	}
	return int32(v), 1 + n + 1, true
}
