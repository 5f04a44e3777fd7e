package wasm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// growModule returns a module exporting grow(n) -> memory.grow n, on a
// memory of one page with the given maximum (0: none), with Fuel applied.
func growModule(t *testing.T, max uint32) []byte {
	mem := Limits{Min: 1}
	if max > 0 {
		mem = Limits{Flags: 1, Min: 1, Max: max}
	}
	m := &Module{
		Types:    []FuncType{{Params: []ValType{i32}, Results: []ValType{i32}}},
		Funcs:    []uint32{0},
		Memories: []Limits{mem},
		Exports:  []Export{{Name: "grow", Kind: externFunc, Index: 0}},
		Code:     []Code{{Body: []Instr{indexed(opLocalGet, 0), simple(opMemoryGrow), simple(opEnd)}}},
	}
	require.NoError(t, Fuel(m, FuelConfig{SkipLoops: []uint32{}, InterruptHandler: noInterruptHandler}))
	b, err := m.Encode()
	require.NoError(t, err)
	return b
}

// A memory.grow is charged by its size and split into chunks, each charged
// before it runs: a grow of n pages yields (to a meter with a small slice)
// about once per growChunkPages, and returns what memory.grow returns.
func TestGrowChunks(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler().WithMemoryLimitPages(1024))
	for _, tc := range []struct {
		name    string
		max, n  uint32
		want    int32  // the result
		size    uint32 // pages after
		fuel    int64
		charges int // non-zero charges, one per chunk
	}{
		{"zero", 0, 0, 1, 1, 0, 0},
		{"one page", 0, 1, 1, 2, 1 << growPageShift, 1},
		{"one chunk", 0, growChunkPages, 1, 1 + growChunkPages, growChunkPages << growPageShift, 1},
		{"many chunks", 0, 40*growChunkPages + 3, 1, 1 + 40*growChunkPages + 3, (40*growChunkPages + 3) << growPageShift, 41},
		{"past the declared maximum", 100, 100, -1, 1, 0, 0},
		{"to the declared maximum", 100, 99, 1, 100, 99 << growPageShift, 7},
		{"past 4 GiB", 0, 1 << 16, -1, 1, 0, 0},
		// The host's limit (1024 pages) refuses the 64th chunk, after its
		// charge: 63 chunks stay grown.
		{"refused by the host part way", 0, 2000, -1, 1 + 63*growChunkPages, 64 * growChunkPages << growPageShift, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := compile(t, rt, growModule(t, tc.max))
			m := &meter{quantum: 1} // every non-zero charge yields
			v := instantiate(context.Background(), t, rt, cm, m)
			res, err := v.mod.ExportedFunction("grow").Call(v.ctx, uint64(tc.n))
			require.NoError(t, err)
			require.Equal(t, tc.want, int32(res[0]))
			require.Equal(t, tc.size, v.mod.Memory().Size()>>16)
			require.Equal(t, tc.fuel, v.fuelUsed())
			require.Equal(t, tc.charges, m.refills)
		})
	}
}
