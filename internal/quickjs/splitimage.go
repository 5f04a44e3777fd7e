package quickjs

import (
	"encoding/binary"

	"github.com/coderun/coderun/wasm"
)

// splitImage moves the first n bytes of the memory the wasm module src's
// data segments write out of the module: it returns the module with every
// active segment trimmed to the bytes at and after n (a segment wholly
// before n keeps its place with no bytes, so that segment indexes do not
// change) and those n bytes as the segments wrote them (zero where none
// did). ok is false, and src must be used as it is, when src is not what
// this reads: no memory section of one memory whose initial size holds n
// bytes, or an active segment at an offset that is not an i32.const. It
// reads the section headers, the memory section and the data section only.
func splitImage(src []byte, n uint64) (rest, prefix []byte, ok bool) {
	const (
		memorySection = 5
		dataSection   = 11
		wasmPage      = 64 << 10
	)
	if len(src) < 8 || n == 0 {
		return nil, nil, false
	}
	var memOK bool
	p := src[8:]
	for len(p) > 0 {
		start := len(src) - len(p)
		id := p[0]
		size, k := binary.Uvarint(p[1:])
		if k <= 0 || size > uint64(len(p)-1-k) {
			return nil, nil, false
		}
		body := p[1+k : 1+k+int(size)]
		p = p[1+k+int(size):]
		switch id {
		case memorySection:
			// One memory: count 1, limits flags, initial pages.
			count, a := binary.Uvarint(body)
			if a <= 0 || count != 1 || len(body) < a+2 {
				return nil, nil, false
			}
			flags := body[a]
			min, b := binary.Uvarint(body[a+1:])
			if b <= 0 || flags&^1 != 0 || min*wasmPage < n {
				return nil, nil, false
			}
			memOK = true
		case dataSection:
			if !memOK {
				return nil, nil, false
			}
			data, pre, ok := splitSegments(body, n)
			if !ok {
				return nil, nil, false
			}
			out := make([]byte, 0, len(src))
			out = append(out, src[:start]...)
			out = append(out, dataSection)
			out = wasm.AppendUleb(out, uint64(len(data)))
			out = append(out, data...)
			out = append(out, p...)
			return out, pre, true
		}
	}
	return nil, nil, false
}

// splitSegments rewrites a data section's body for splitImage.
func splitSegments(b []byte, n uint64) (body, prefix []byte, ok bool) {
	count, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, nil, false
	}
	b = b[k:]
	prefix = make([]byte, n)
	body = wasm.AppendUleb(make([]byte, 0, len(b)+8), count)
	for range count {
		flags, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, nil, false
		}
		seg := b // the segment as it is, for one that is copied unchanged
		b = b[k:]
		var mem uint64
		if flags == 2 {
			var a int
			if mem, a = binary.Uvarint(b); a <= 0 {
				return nil, nil, false
			}
			b = b[a:]
		}
		off := int64(-1)
		if flags == 0 || flags == 2 {
			v, a, ok := i32ConstExpr(b)
			if !ok {
				return nil, nil, false
			}
			off = int64(uint32(v)) // i32.const is signed; wasm reads the offset as uint32
			b = b[a:]
		} else if flags != 1 {
			return nil, nil, false
		}
		size, a := binary.Uvarint(b)
		if a <= 0 || size > uint64(len(b)-a) {
			return nil, nil, false
		}
		init := b[a : a+int(size)]
		b = b[a+int(size):]
		whole := seg[:len(seg)-len(b)]
		if off < 0 || mem != 0 || uint64(off) >= n || size == 0 {
			// Passive (it writes nothing at instantiation), of another
			// memory, or past the prefix: unchanged.
			body = append(body, whole...)
			continue
		}
		cut := min(size, n-uint64(off))
		copy(prefix[off:], init[:cut])
		body = wasm.AppendUleb(body, 0) // active, memory 0
		body = append(body, 0x41)
		body = wasm.AppendSleb(body, int64(int32(uint32(uint64(off)+cut)))) // i32.const is signed
		body = append(body, 0x0b)
		body = wasm.AppendUleb(body, size-cut)
		body = append(body, init[cut:]...)
	}
	if len(b) != 0 {
		return nil, nil, false
	}
	return body, prefix, true
}
