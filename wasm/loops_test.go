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
	get, set := indexed(opLocalGet, 0), indexed(opLocalSet, 0)
	dec := []Instr{get, i32Const(1), simple(opI32Sub)}
	brif := append([]Instr{blockInstr(opLoop, blockEmpty)}, dec...)
	brif = append(brif, indexed(opLocalTee, 0), indexed(opBrIf, 0), simple(opEnd), simple(opEnd))
	br := []Instr{blockInstr(opBlock, blockEmpty), blockInstr(opLoop, blockEmpty), get, simple(opI32Eqz), indexed(opBrIf, 1)}
	br = append(br, dec...)
	br = append(br, set, indexed(opBr, 0), simple(opEnd), simple(opEnd), simple(opEnd))
	m := &Module{
		Types:   []FuncType{{Params: []ValType{i32}}},
		Funcs:   []uint32{0, 0},
		Exports: []Export{{Name: "brif", Kind: externFunc, Index: 0}, {Name: "br", Kind: externFunc, Index: 1}},
		Code:    []Code{{Body: brif}, {Body: br}},
	}
	cfg.SkipLoops, cfg.InterruptHandler = []uint32{}, noInterruptHandler
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
			Types: []FuncType{{Params: []ValType{i32}}},
			Funcs: []uint32{0},
			Code: []Code{{Body: []Instr{
				indexed(opLocalGet, 0), blockInstr(opLoop, 0), simple(opDrop), simple(opEnd), simple(opEnd),
			}}},
		}
	}
	cfg := FuelConfig{SkipLoops: []uint32{}, InterruptHandler: noInterruptHandler}
	require.NoError(t, Fuel(mod(), cfg))
	cfg.BackEdges = true
	require.ErrorContains(t, Fuel(mod(), cfg), "loops with parameters are not supported")
}
