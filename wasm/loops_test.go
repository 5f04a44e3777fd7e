package wasm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// loopModule returns a module exporting two functions of (i32) -> (), each
// looping n times (for n >= 1): "brif" with a br_if back edge at the
// bottom, "br" with a br_if exit at the top and a br back edge. Fuel is
// applied with cfg.
func loopModule(t *testing.T, cfg FuelConfig) []byte {
	get, set := Indexed(OpLocalGet, 0), Indexed(OpLocalSet, 0)
	dec := []Instr{get, I32Const(1), Simple(OpI32Sub)}
	brif := append([]Instr{BlockInstr(OpLoop, BlockEmpty)}, dec...)
	brif = append(brif, Indexed(OpLocalTee, 0), Indexed(OpBrIf, 0), Simple(OpEnd), Simple(OpEnd))
	br := []Instr{BlockInstr(OpBlock, BlockEmpty), BlockInstr(OpLoop, BlockEmpty), get, Simple(OpI32Eqz), Indexed(OpBrIf, 1)}
	br = append(br, dec...)
	br = append(br, set, Indexed(OpBr, 0), Simple(OpEnd), Simple(OpEnd), Simple(OpEnd))
	m := &Module{
		Types:   []FuncType{{Params: []ValType{I32}}},
		Funcs:   []uint32{0, 0},
		Exports: []Export{{Name: "brif", Kind: ExternFunc, Index: 0}, {Name: "br", Kind: ExternFunc, Index: 1}},
		Code:    []Code{{Body: brif}, {Body: br}},
	}
	cfg.SkipLoops, cfg.InterruptHandler = []uint32{}, NoInterruptHandler
	require.NoError(t, Fuel(m, cfg))
	b, err := m.Encode()
	require.NoError(t, err)
	return b
}

func TestLoopCharges(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	for _, tc := range []struct {
		name     string
		cfg      FuelConfig
		brif, br func(n int64) int64 // fuel for n iterations
	}{
		{"headers", FuelConfig{}, func(n int64) int64 { return n }, func(n int64) int64 { return n + 1 }},
		{"headers cost 3", FuelConfig{LoopCost: 3}, func(n int64) int64 { return 3 * n }, func(n int64) int64 { return 3 * (n + 1) }},
		{"back edges", FuelConfig{BackEdges: true}, func(n int64) int64 { return n - 1 }, func(n int64) int64 { return n }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := compile(t, rt, loopModule(t, tc.cfg))
			for _, n := range []int64{1, 2, 1000} {
				for fn, want := range map[string]func(int64) int64{"brif": tc.brif, "br": tc.br} {
					v := instantiate(context.Background(), t, rt, cm, &meter{quantum: 7})
					_, err := v.mod.ExportedFunction(fn).Call(v.ctx, uint64(n))
					require.NoError(t, err)
					require.Equal(t, want(n), v.fuelUsed(), "%s(%d)", fn, n)
				}
			}
		})
	}
}

func TestBackEdgesRejectLoopParams(t *testing.T) {
	mod := func() *Module {
		return &Module{
			Types: []FuncType{{Params: []ValType{I32}}},
			Funcs: []uint32{0},
			Code: []Code{{Body: []Instr{
				Indexed(OpLocalGet, 0), BlockInstr(OpLoop, 0), Simple(OpDrop), Simple(OpEnd), Simple(OpEnd),
			}}},
		}
	}
	cfg := FuelConfig{SkipLoops: []uint32{}, InterruptHandler: NoInterruptHandler}
	require.NoError(t, Fuel(mod(), cfg))
	cfg.BackEdges = true
	require.ErrorContains(t, Fuel(mod(), cfg), "loops with parameters are not supported")
}
