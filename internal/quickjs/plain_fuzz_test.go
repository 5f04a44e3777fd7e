package quickjs

import (
	"encoding/json"
	"testing"
)

// The in-place reader trusts nothing it reads: a program cannot corrupt
// QuickJS's heap (the engine is memory-safe by design), but the reader must
// not depend on that. FuzzAppendPlainJSONMemory overwrites bytes of the
// structures the reader follows (the object, its shape, its property and
// element arrays, a string, an entry of the atom array) with arbitrary data
// and reads the value again: the reader may decline or print anything, but
// it never panics, what it prints is valid JSON within the length bound,
// and it stays within its node and depth bounds.
func FuzzAppendPlainJSONMemory(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(1), uint8(16), []byte{0, 0, 0, 0})
	f.Add(uint8(1), uint8(32), []byte{0xff, 0xff, 0xff, 0x7f})
	f.Add(uint8(2), uint8(0), []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(3), uint8(4), []byte{0xff, 0xff, 0xff, 0x7f})
	f.Add(uint8(4), uint8(0), []byte{0, 0, 0, 0x80})
	f.Add(uint8(5), uint8(0), []byte{0x10, 0, 0, 0})
	f.Add(uint8(0), uint8(16), []byte{0x41, 0x41, 0x41, 0x41})

	in := newInstance(f, &nopHost{})
	skipWithoutObjectLayout(f, in)
	v, err := in.Eval(`globalThis.fuzzValue = {a: [1, "x", {b: null, c: [true, 2.5]}], s: "str".repeat(10), n: -7}`, "f.js", EvalGlobal)
	if err != nil || v.IsException() {
		f.Fatalf("eval: %v", err)
	}
	if _, ok := in.appendPlainJSON(nil, v); !ok {
		f.Fatal("the fuzzed value is not read in place before corruption")
	}
	regions := plainRegions(f, in, v)
	mem := in.Memory()

	f.Fuzz(func(t *testing.T, region, offset uint8, data []byte) {
		if len(data) > 64 {
			data = data[:64]
		}
		at := regions[int(region)%len(regions)] + uint32(offset)
		saved, ok := mem.Read(at, uint32(len(data)))
		if !ok {
			return
		}
		saved = append([]byte(nil), saved...)
		mem.Write(at, data)
		defer mem.Write(at, saved)

		const maxLen = 4096
		out, ok := in.AppendPlainJSONUpTo([]byte("["), v, maxLen)
		if ok {
			if len(out) > maxLen {
				t.Fatalf("%d bytes printed, over the bound of %d", len(out), maxLen)
			}
			if !json.Valid(append(out, ']')) {
				t.Fatalf("invalid JSON printed: %q", out)
			}
		}
		if out, ok := in.appendPlainJSON(nil, v); ok && !json.Valid(out) {
			t.Fatalf("invalid JSON printed: %q", out)
		}
	})
}

// plainRegions returns the guest addresses of the structures the reader
// follows for the object v: the object, its shape, its property array, the
// elements of its first property (an array), the string it holds under
// "s" and the atom array's first entries.
func plainRegions(f *testing.F, in *Instance, v Value) []uint32 {
	mem := in.Memory()
	u32 := func(addr uint32) uint32 {
		x, ok := mem.ReadUint32Le(addr)
		if !ok {
			f.Fatalf("cannot read guest address %#x", addr)
		}
		return x
	}
	obj := uint32(v)
	shape := u32(obj + objShape)
	props := u32(obj + objProp)
	// Properties are 8-byte JSValues (wasm32 NaN-boxing): the first holds
	// the array, the second the string.
	arr := u32(props)
	elems := u32(arr + arrValues)
	str := u32(props + 8)
	atoms := u32(in.rt + in.layout.AtomArray)
	sprops, ok := in.shapeProps(shape)
	if !ok {
		f.Fatalf("no property array in the shape at %#x", shape)
	}
	return []uint32{obj, shape, sprops, props, elems, str, atoms}
}
