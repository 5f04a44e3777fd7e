package wasm

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// section returns a section with the given id and payload.
func section(id SectionID, payload ...byte) []byte {
	return appendSectionBytes(nil, id, payload)
}

// moduleBytes concatenates the header and the sections.
func moduleBytes(sections ...[]byte) []byte {
	return bytes.Join(append([][]byte{magicVersion}, sections...), nil)
}

// oneFunc returns a module with one memory and one function of type
// () -> () whose body (after the local declarations) is code.
func oneFunc(code ...byte) []byte {
	body := append([]byte{0x00}, code...) // no locals
	entry := AppendUleb(nil, uint64(len(body)))
	entry = append(entry, body...)
	return moduleBytes(
		section(sectionType, 0x01, 0x60, 0x00, 0x00),
		section(sectionFunction, 0x01, 0x00),
		section(sectionMemory, 0x01, 0x00, 0x01),
		section(sectionCode, append([]byte{0x01}, entry...)...),
	)
}

func decodeQuickJS(t testing.TB) *Module {
	t.Helper()
	m, err := Decode(QuickJS())
	require.NoError(t, err)
	return m
}

func TestRoundTripQuickJS(t *testing.T) {
	m := decodeQuickJS(t)
	out, err := m.Encode()
	require.NoError(t, err)
	require.True(t, bytes.Equal(QuickJS(), out), "decode+encode must reproduce the module byte for byte")
}

// countOps counts the instructions with opcode op in all bodies.
func countOps(m *Module, op Opcode) int {
	n := 0
	for _, c := range m.Code {
		for _, in := range c.Body {
			if in.Op == op {
				n++
			}
		}
	}
	return n
}

// TestDecodeQuickJSShape checks the decoder against the module's shape:
// the figures are those of the build build.json records, as wabt's
// wasm-objdump -h and wasm2wat report them (a second, independent decoder;
// the instruction counts are lines of wasm2wat's output that start with the
// instruction's name). A rebuild changes them.
func TestDecodeQuickJSShape(t *testing.T) {
	m := decodeQuickJS(t)
	require.Len(t, m.Types, 102)
	require.Equal(t, uint32(6), m.numImportedFuncs())
	require.Len(t, m.Imports, 6)
	require.Len(t, m.Funcs, 1265)
	require.Len(t, m.Code, 1265)
	require.Len(t, m.Exports, 22)
	require.Len(t, m.Data, 2)
	require.Nil(t, m.Start)
	require.Nil(t, m.DataCount, "active data segments only (no memory.init): no data count section")

	// __stack_pointer, __heap_base and __data_end; the stack (64 KiB) lies
	// between the data and the heap.
	require.Len(t, m.Globals, 3)
	require.Equal(t, GlobalType{ValType: i32, Mutable: true}, m.Globals[0].Type)
	require.Equal(t, []Instr{i32Const(172608), simple(opEnd)}, m.Globals[0].Init)
	require.Equal(t, Global{Type: GlobalType{ValType: i32}, Init: []Instr{i32Const(172608), simple(opEnd)}}, m.Globals[1])
	require.Equal(t, Global{Type: GlobalType{ValType: i32}, Init: []Instr{i32Const(107068), simple(opEnd)}}, m.Globals[2])
	require.Contains(t, m.Exports, Export{Name: "__heap_base", Kind: ExternGlobal, Index: 1})
	require.Contains(t, m.Exports, Export{Name: "__data_end", Kind: ExternGlobal, Index: 2})

	require.Equal(t, []Limits{{Min: 3}}, m.Memories)
	require.Equal(t, []Table{{RefType: funcRef, Limits: Limits{Flags: 1, Min: 519, Max: 519}}}, m.Tables)

	require.Len(t, m.Elements, 1)
	require.Equal(t, uint32(0), m.Elements[0].Flags)
	require.Equal(t, []Instr{i32Const(1), simple(opEnd)}, m.Elements[0].Offset)
	require.Len(t, m.Elements[0].Funcs, 518)

	names := make([]string, len(m.Customs))
	for i, c := range m.Customs {
		names[i] = c.Name
		require.Equal(t, sectionData, c.After)
	}
	require.Equal(t, []string{"name", "producers", "target_features"}, names)

	for _, tc := range []struct {
		op   Opcode
		want int
	}{
		{opMemoryGrow, 1},
		{opMemorySize, 1},
		{opLoop, 1704},
		{opCall, 10493},
		{opCallIndirect, 450},
		{opMemoryCopy, 107}, // -mbulk-memory: memcpy and memset inlined or lowered
		{opMemoryFill, 36},
		{opRefFunc, 0},
		{opGlobalGet, 444},
		{opGlobalSet, 906},
		{opBrTable, 851},
	} {
		require.Equal(t, tc.want, countOps(m, tc.op), "count of %s", tc.op)
	}
}

func TestDecodeInstructions(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []byte
		want []Instr
	}{
		{"sign extension", []byte{0x41, 0x7f, 0xc0, 0x1a, 0x42, 0x01, 0xc4, 0x1a, 0x0b},
			[]Instr{i32Const(-1), simple(0xc0), simple(opDrop), i64Const(1), simple(0xc4), simple(opDrop), simple(opEnd)}},
		{"saturating truncation", []byte{0x43, 0, 0, 0x80, 0x3f, 0xfc, 0x00, 0x1a, 0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0xfc, 0x07, 0x1a, 0x0b},
			[]Instr{{Op: opF32Const, C: 0x3f800000}, simple(0xfc00), simple(opDrop), {Op: opF64Const, C: 0x3ff0000000000000}, simple(0xfc07), simple(opDrop), simple(opEnd)}},
		{"bulk memory", []byte{0x41, 0, 0x41, 0, 0x41, 0, 0xfc, 0x0a, 0, 0, 0x41, 0, 0x41, 0, 0x41, 0, 0xfc, 0x0b, 0, 0x0b},
			[]Instr{i32Const(0), i32Const(0), i32Const(0), simple(opMemoryCopy), i32Const(0), i32Const(0), i32Const(0), simple(opMemoryFill), simple(opEnd)}},
		{"blocks and br_table", []byte{0x02, 0x40, 0x03, 0x7f, 0x41, 0x00, 0x0e, 0x02, 0x00, 0x01, 0x01, 0x0b, 0x1a, 0x0b, 0x0b},
			[]Instr{blockInstr(opBlock, blockEmpty), blockInstr(opLoop, valueBlock(i32)), i32Const(0), {Op: opBrTable, A: 1, Vec: []uint32{0, 1}}, simple(opEnd), simple(opDrop), simple(opEnd), simple(opEnd)}},
		{"memory", []byte{0x41, 0x00, 0x28, 0x02, 0x10, 0x1a, 0x3f, 0x00, 0x40, 0x00, 0x1a, 0x0b},
			[]Instr{i32Const(0), {Op: opI32Load, A: 2, B: 16}, simple(opDrop), simple(opMemorySize), simple(opMemoryGrow), simple(opDrop), simple(opEnd)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := oneFunc(tc.code...)
			m, err := Decode(src)
			require.NoError(t, err)
			require.Equal(t, tc.want, m.Code[0].Body)
			out, err := m.Encode()
			require.NoError(t, err)
			require.Equal(t, src, out)
			// A freshly built body encodes to the same bytes.
			m.Code[0] = Code{Body: tc.want}
			out, err = m.Encode()
			require.NoError(t, err)
			require.Equal(t, src, out)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
		want string
	}{
		{"empty", nil, "not a version 1 wasm binary"},
		{"bad magic", []byte("\x00asx\x01\x00\x00\x00"), "not a version 1 wasm binary"},
		{"simd", oneFunc(0xfd, 0x0c), "offset 0x1c: unsupported opcode 0xfd"},
		{"unknown misc", oneFunc(0xfc, 0x12, 0x0b), "offset 0x1c: unsupported opcode 0xfc 18"},
		{"exceptions", oneFunc(0x06, 0x40, 0x0b, 0x0b), "offset 0x1c: unsupported opcode 0x06"},
		{"missing end", oneFunc(0x01), "expression without end"},
		{"bytes after end", oneFunc(0x0b, 0x01), "bytes after the end of the function body"},
		{"memory index", oneFunc(0x3f, 0x01, 0x1a, 0x0b), "memory index 1"},
		{"i32 overflow", oneFunc(0x41, 0xff, 0xff, 0xff, 0xff, 0x4f, 0x1a, 0x0b), "leb128 overflow"},
		{"section order", moduleBytes(section(sectionFunction, 0x00), section(sectionType, 0x00)), "out of order"},
		{"section too long", moduleBytes([]byte{0x01, 0x05, 0x00}), "unexpected end of input"},
		{"huge count", moduleBytes(section(sectionType, 0xff, 0xff, 0xff, 0xff, 0x0f)), "exceeds the remaining"},
		{"body count mismatch", moduleBytes(section(sectionType, 0x01, 0x60, 0x00, 0x00), section(sectionFunction, 0x01, 0x00)), "code section has 0 bodies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.src)
			require.ErrorIs(t, err, errMalformed)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// smallQuickJS returns a module made of the first bodies of QuickJS()
// (indices are not checked by Decode) and the first bytes of its data
// segments, for cheap corruption tests.
func smallQuickJS(t testing.TB) []byte {
	m := decodeQuickJS(t)
	m.Funcs, m.Code = m.Funcs[:80], m.Code[:80]
	for i := range m.Data {
		m.Data[i].Init = m.Data[i].Init[:min(len(m.Data[i].Init), 128)]
	}
	m.Customs = m.Customs[len(m.Customs)-1:]
	b, err := m.Encode()
	require.NoError(t, err)
	return b
}

func TestDecodeTruncatedAndCorrupted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := smallQuickJS(t)
	sm, err := Decode(src)
	require.NoError(t, err)
	code := sm.orig[sectionCode].orig
	codeStart := bytes.Index(src, code)
	n := 300
	if raceEnabled || testing.Short() {
		n = 50
	}
	for range n {
		// A cut inside the code section is always an error; other cuts
		// may fall on a section boundary.
		cut := codeStart + 1 + rng.IntN(len(code)-1)
		_, err := Decode(src[:cut])
		require.Error(t, err, "prefix of %d bytes", cut)
		roundTrip(t, src[:rng.IntN(len(src))])
	}
	for range n {
		b := bytes.Clone(src)
		for range 1 + rng.IntN(8) {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		roundTrip(t, b)
	}
	small := oneFunc(0x02, 0x40, 0x41, 0x05, 0x28, 0x02, 0x00, 0x1a, 0x0b, 0x0b)
	sm, err = Decode(small)
	require.NoError(t, err)
	for cut := range len(small) {
		_, err := Decode(small[:cut])
		if cut < 8 || cut > len(small)-len(sm.orig[sectionCode].orig) {
			require.Error(t, err, "prefix of %d bytes", cut)
		}
	}
}

// roundTrip checks that a module that decodes re-encodes to the same bytes.
func roundTrip(t testing.TB, b []byte) {
	m, err := Decode(b)
	if err != nil {
		return
	}
	out, err := m.Encode()
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, out), "round trip changed the module")
}

func TestPreservesNonCanonical(t *testing.T) {
	// Two functions: the first calls the second with a padded 5-byte index,
	// the second is empty; the code section size is padded too.
	entry1 := []byte{0x08, 0x00, 0x10, 0x81, 0x80, 0x80, 0x80, 0x00, 0x0b}
	entry2 := []byte{0x02, 0x00, 0x0b}
	code := append([]byte{0x0a, 0x8d, 0x80, 0x80, 0x80, 0x00, 0x02}, append(entry1, entry2...)...)
	src := moduleBytes(
		section(sectionType, 0x01, 0x60, 0x00, 0x00),
		section(sectionFunction, 0x02, 0x00, 0x00),
		code,
	)
	m, err := Decode(src)
	require.NoError(t, err)
	require.Equal(t, []Instr{indexed(opCall, 1), simple(opEnd)}, m.Code[0].Body)
	out, err := m.Encode()
	require.NoError(t, err)
	require.Equal(t, src, out)

	// Changing the second body keeps the first one's padding.
	m.Code[1].Body = []Instr{simple(opNop), simple(opEnd)}
	out, err = m.Encode()
	require.NoError(t, err)
	require.True(t, bytes.Contains(out, entry1))

	// Changing the first body re-encodes it canonically.
	m.Code[0].Body[0].A = 0
	out, err = m.Encode()
	require.NoError(t, err)
	require.True(t, bytes.Contains(out, []byte{0x04, 0x00, 0x10, 0x00, 0x0b}))
	m2, err := Decode(out)
	require.NoError(t, err)
	require.Equal(t, m.Code[0].Body, m2.Code[0].Body)
}

// FuzzDecode checks that Decode never panics and that whatever it accepts
// re-encodes to the same bytes. The seeds are the real module (only in a
// plain test run: as a fuzzing seed its megabyte slows every mutation down
// to about one execution a second), a module cut down from it, and
// mutations of that one. Minimizing a 40 KB input takes long, so run it
// with a short minimization time:
//
//	go test -run '^$' -fuzz FuzzDecode -fuzzminimizetime 1s ./wasm/
func FuzzDecode(f *testing.F) {
	if fz := flag.Lookup("test.fuzz"); fz == nil || fz.Value.String() == "" {
		f.Add(QuickJS())
	}
	small := smallQuickJS(f)
	f.Add(small)
	f.Add(small[:len(small)/2])
	for _, i := range []int{9, 100, 1000, 20000, len(small) - 10} {
		b := bytes.Clone(small)
		b[i] ^= 0x80
		f.Add(b)
	}
	f.Add(oneFunc(0x02, 0x40, 0x41, 0x05, 0x28, 0x02, 0x00, 0x1a, 0x0b, 0x0b))
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b)
	})
}
