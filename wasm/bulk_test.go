package wasm

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// bulkModule returns a module exporting copy(d, s, n) and fill(d, v, n),
// which run memory.copy and memory.fill on an 8 MiB memory, with Fuel
// applied.
func bulkModule(t *testing.T) []byte {
	op := func(o Opcode) Code {
		return Code{Body: []Instr{indexed(opLocalGet, 0), indexed(opLocalGet, 1), indexed(opLocalGet, 2), simple(o), simple(opEnd)}}
	}
	m := &Module{
		Types:    []FuncType{{Params: []ValType{i32, i32, i32}}},
		Funcs:    []uint32{0, 0},
		Memories: []Limits{{Min: 128}},
		Exports:  []Export{{Name: "copy", Kind: externFunc, Index: 0}, {Name: "fill", Kind: externFunc, Index: 1}},
		Code:     []Code{op(opMemoryCopy), op(opMemoryFill)},
	}
	require.NoError(t, Fuel(m, FuelConfig{SkipLoops: []uint32{}, InterruptHandler: noInterruptHandler}))
	b, err := m.Encode()
	require.NoError(t, err)
	return b
}

func TestBulkMemoryChunks(t *testing.T) {
	const size = 8 << 20
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	cm := compile(t, rt, bulkModule(t))
	pattern := make([]byte, size)
	for i := range pattern {
		pattern[i] = byte(i*31 + 7)
	}
	for _, tc := range []struct {
		name    string
		fn      string
		d, s, n uint32
		trap    string
	}{
		{"small", "copy", 100, 5000, 3000, ""},
		{"empty", "copy", size, 0, 0, ""},
		{"one chunk", "copy", 0, 2 << 20, bulkMemoryChunk, ""},
		{"chunk plus one", "copy", 0, 2 << 20, bulkMemoryChunk + 1, ""},
		{"forward overlap", "copy", 1000, 1000 + 4097, 5<<19 + 123, ""},
		{"backward overlap", "copy", 1000 + 4097, 1000, 5<<19 + 123, ""},
		{"disjoint backward", "copy", 5 << 20, 12345, 3<<20 - 1, ""},
		{"small out of bounds", "copy", size - 10, 0, 11, "out of bounds memory access"},
		{"big out of bounds", "copy", size - (2 << 20), 0, 2<<20 + 1, "unreachable"},
		{"big source out of bounds", "copy", 0, size - (2 << 20), 2<<20 + 1, "unreachable"},
		{"wrapping out of bounds", "copy", 0xffff0000, 0, 2 << 20, "unreachable"},
		{"fill small", "fill", 77, 0xab, 4095, ""},
		{"fill big", "fill", 77, 0x1cd, 3<<20 + 5, ""},
		{"fill out of bounds", "fill", size - (2 << 20), 1, 2<<20 + 1, "unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &meter{quantum: 1 << 40}
			v := instantiate(context.Background(), t, rt, cm, m)
			mem, ok := v.mod.Memory().Read(0, size)
			require.True(t, ok)
			copy(mem, pattern)
			want := bytes.Clone(pattern)
			_, err := v.mod.ExportedFunction(tc.fn).Call(v.ctx, uint64(tc.d), uint64(tc.s), uint64(tc.n))
			if tc.trap != "" {
				require.ErrorContains(t, err, tc.trap)
				require.True(t, bytes.Equal(want, mem), "a trapping operation must not write")
				return
			}
			require.NoError(t, err)
			if tc.fn == "copy" {
				copy(want[tc.d:tc.d+tc.n], want[tc.s:tc.s+tc.n])
			} else {
				for i := tc.d; i < tc.d+tc.n; i++ {
					want[i] = byte(tc.s)
				}
			}
			require.True(t, bytes.Equal(want, mem), "memory differs from %s's result", tc.fn)
			require.Equal(t, int64(tc.n>>bulkMemoryShift), v.fuelUsed())
			if tc.n>>bulkMemoryShift > 0 {
				require.Equal(t, 1, m.refills, "the first positive charge refills")
			} else {
				require.Zero(t, m.refills, "a free operation does not yield")
			}
		})
	}
}

// TestBulkMemoryYields checks that a long copy yields between chunks.
func TestBulkMemoryYields(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	cm := compile(t, rt, bulkModule(t))
	m := &meter{quantum: 1} // every chunk exhausts the balance
	v := instantiate(context.Background(), t, rt, cm, m)
	_, err := v.mod.ExportedFunction("copy").Call(v.ctx, 0, 4<<20, 4<<20)
	require.NoError(t, err)
	require.Equal(t, 4<<20/bulkMemoryChunk, m.refills)
	require.Equal(t, int64(4<<20>>bulkMemoryShift), v.fuelUsed())
}
