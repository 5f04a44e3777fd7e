package wasm

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

func TestDirectCalls(t *testing.T) {
	m := decodeQuickJS(t)
	funcs := len(m.Code)
	_, h := quickJSFuncs(t, m)
	hIndex, tableSize := tableIndex(t, m, h), m.Tables[0].Limits.Min
	indirectTypes := map[uint32]bool{}
	for _, c := range m.Code {
		for _, in := range c.Body {
			if in.Op == opCallIndirect {
				indirectTypes[in.A] = true
			}
		}
	}
	require.NoError(t, directCalls(m))
	require.Empty(t, m.Tables)
	require.Empty(t, m.Elements)
	require.Zero(t, countOps(m, opCallIndirect))
	require.Len(t, m.Code, funcs+len(indirectTypes), "one selector per call_indirect type")

	// The interrupt handler's type selects it at its table index, and
	// nothing at the indices of functions of other types.
	handler, _ := m.funcType(h)
	sel := m.numImportedFuncs() + uint32(funcs)
	for ; sel < m.numImportedFuncs()+uint32(len(m.Code)); sel++ {
		ft, _ := m.funcType(sel)
		if ft.Equal(FuncType{Params: append(append([]ValType(nil), handler.Params...), i32), Results: handler.Results}) {
			break
		}
	}
	body := m.body(sel).Body
	var table Instr
	var calls []uint32
	for _, in := range body {
		switch in.Op {
		case opBrTable:
			table = in
		case opCall:
			calls = append(calls, in.A)
		}
	}
	require.Len(t, table.Vec, int(tableSize))
	require.Equal(t, table.A, table.Vec[0], "index 0 is empty: it traps")
	require.Equal(t, h, calls[table.Vec[hIndex]])
	for i, l := range table.Vec {
		if l != table.A {
			ft, _ := m.funcType(calls[l])
			require.True(t, ft.Equal(handler), "index %d", i)
		}
	}

	for _, tc := range []struct {
		name string
		edit func(*Module)
		want string
	}{
		{"no table", func(m *Module) { m.Tables = nil }, "no single defined funcref table"},
		{"exported", func(m *Module) { m.Exports = append(m.Exports, Export{Name: "t", Kind: externTable}) }, `exported as "t"`},
		{"table.size", func(m *Module) {
			m.Code[0].Body = append([]Instr{indexed(opTableSize, 0), simple(opDrop)}, m.Code[0].Body...)
		}, "uses the table"},
		{"passive segment", func(m *Module) { m.Elements[0].Flags = 1 }, "not active"},
		{"segment too long", func(m *Module) { m.Tables[0].Limits.Min = 10 }, "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decodeQuickJS(t)
			tc.edit(m)
			calls := countOps(m, opCallIndirect)
			require.ErrorContains(t, directCalls(m), tc.want)
			require.Equal(t, calls, countOps(m, opCallIndirect), "nothing changed")
		})
	}
}

// A selector traps, as call_indirect does, on an index out of range, an
// empty slot or a function of another type.
func TestDirectCallsTrap(t *testing.T) {
	m := decodeQuickJS(t)
	funcs := len(m.Code)
	_, h := quickJSFuncs(t, m)
	hIndex, tableSize := tableIndex(t, m, h), m.Tables[0].Limits.Min
	handler, _ := m.funcType(h)
	// A slot holding a function of another type.
	seg := m.Elements[0]
	other := slices.IndexFunc(seg.Funcs, func(f uint32) bool { ft, _ := m.funcType(f); return !ft.Equal(handler) })
	require.GreaterOrEqual(t, other, 0)
	otherIndex := uint64(seg.Offset[0].i32()) + uint64(other)
	require.NoError(t, directCalls(m))
	var sel uint32
	for i := funcs; i < len(m.Code); i++ {
		ft, _ := m.funcType(m.numImportedFuncs() + uint32(i))
		if ft.Equal(FuncType{Params: append(append([]ValType(nil), handler.Params...), i32), Results: handler.Results}) {
			sel = m.numImportedFuncs() + uint32(i)
		}
	}
	require.NoError(t, m.addExport(Export{Name: "select", Kind: externFunc, Index: sel}))
	bin, err := m.Encode()
	require.NoError(t, err)
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	v := instantiate(context.Background(), t, rt, compile(t, rt, bin), nil)
	f := v.mod.ExportedFunction("select")
	// The glue's handler returns 0; a non-zero result would come from
	// another function.
	res, err := f.Call(v.ctx, 0, 0, uint64(hIndex))
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, res)
	for _, index := range []uint64{0, otherIndex, uint64(tableSize), 1 << 31} {
		_, err := f.Call(v.ctx, 0, 0, index)
		require.ErrorContains(t, err, "unreachable", "index %d", index)
	}
}
