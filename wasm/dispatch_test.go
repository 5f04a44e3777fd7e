package wasm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

func TestAddDispatcher(t *testing.T) {
	m := decodeQuickJS(t)
	funcs := len(m.Code)
	require.NoError(t, AddDispatcher(m))
	require.Equal(t, funcs+3, len(m.Code), "the dispatcher and its two warm-up helpers")
	e := m.Exports[len(m.Exports)-1]
	require.Equal(t, Export{Name: DispatchExport, Kind: externFunc, Index: m.numImportedFuncs() + uint32(funcs+2)}, e)
	ft, _ := m.funcType(e.Index)
	require.Equal(t, FuncType{Params: []ValType{i32, i64, i64, i64, i64, i64}, Results: []ValType{i64}}, ft)

	// One case per op: a br_table over every op, and one call per case, to
	// the export the op names (the two warm-up functions last).
	body := m.body(e.Index).Body
	var table []Instr
	var calls []uint32
	for _, in := range body {
		switch in.Op {
		case opBrTable:
			table = append(table, in)
		case opCall:
			calls = append(calls, in.A)
		}
	}
	require.Len(t, table, 1)
	require.Len(t, table[0].Vec, int(numDispatchOps))
	require.Equal(t, uint32(numDispatchOps), table[0].A, "an unknown op leaves every case")
	require.Len(t, calls, int(numDispatchOps))
	for op, target := range dispatchTargets() {
		idx, _ := m.exportedFunc(target.name)
		require.Equal(t, idx, calls[op], target.name)
	}
	require.Equal(t, e.Index-2, calls[DispatchWarm])
	require.Equal(t, e.Index-1, calls[DispatchWarmDeep])
	require.ErrorContains(t, AddDispatcher(m), "already exists")

	for _, tc := range []struct {
		name string
		edit func(*Module)
		want string
	}{
		{"missing", func(m *Module) { m.Exports = m.Exports[:0] }, `"malloc" is not exported`},
		{"wrong type", func(m *Module) {
			for i, x := range m.Exports {
				if x.Name == "coderun_call" {
					m.Exports[i].Index, _ = m.exportedFunc("coderun_eval")
				}
			}
		}, `"coderun_call" has type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decodeQuickJS(t)
			tc.edit(m)
			require.ErrorContains(t, AddDispatcher(m), tc.want)
		})
	}
}

// TestDispatcherRuns drives the hardened module through the dispatcher
// alone: the results are those of the exports it calls.
func TestDispatcherRuns(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	v := instantiate(context.Background(), t, rt, compile(t, rt, hardened(t)), nil)
	d := v.mod.ExportedFunction(DispatchExport)
	dc := dispatchCaller{t: t, v: v, d: d}
	call, cstring := dc.call, dc.cstring
	// i32 arguments ignore their high bits; an i32 result is zero-extended.
	engine := call(DispatchNew, 0xdead<<32, 0, 0, 0)
	require.NotZero(t, engine)
	require.Less(t, engine, uint64(1<<32))
	ctx := call(DispatchContext, engine)
	eval := func(code string) uint64 {
		t.Helper()
		return call(DispatchEval, ctx, call(DispatchEvalOptions, cstring(code), 0, 0, cstring("<input>"), 0))
	}
	val := eval("'a' + (6 * 7)")
	require.Equal(t, uint32(0xfffffff9), uint32(val>>32), "a string")
	p := call(DispatchToCString, ctx, val)
	packed, ok := v.mod.Memory().ReadUint64Le(uint32(p))
	require.True(t, ok)
	s, _ := v.mod.Memory().Read(uint32(packed>>32), uint32(packed))
	require.Equal(t, "a42", string(s))
	require.Zero(t, call(DispatchFreeCString, ctx, packed>>32), "no result reads as 0")
	require.Zero(t, call(DispatchFree, p))
	require.Zero(t, call(DispatchFreeValue, ctx, val))

	// Eval runs no jobs; RunJobs runs them.
	require.Equal(t, uint64(0), eval("globalThis.r = 0; Promise.resolve().then(() => { r = 42 }); 0"))
	require.Equal(t, uint64(0), eval("r"), "no job has run")
	require.Zero(t, call(DispatchRunJobs, ctx))
	require.Equal(t, uint64(42), eval("r"), "the job ran")

	// coderun_call's mixed i32 and i64 parameters, in order.
	fn := eval("(function (a, b) { return a * 10 + b })")
	argv := call(DispatchMalloc, 16)
	require.True(t, v.mod.Memory().WriteUint64Le(uint32(argv), 4))
	require.True(t, v.mod.Memory().WriteUint64Le(uint32(argv)+8, 2))
	require.Equal(t, uint64(42), call(DispatchCall, ctx, fn, uint64(tagUndefined)<<32, 2, argv))
	arr := call(DispatchParseJSON, ctx, cstring("[1,"))
	require.Equal(t, uint64(tagException), arr>>32)
	exc := call(DispatchGetException, ctx)
	require.Equal(t, uint32(0xffffffff), uint32(exc>>32), "a SyntaxError object")

	// A new function's calls reach env.jsFunctionProxy, whose test stub
	// returns undefined; the function is an object.
	host := call(DispatchNewFunction, ctx)
	require.Equal(t, uint32(0xffffffff), uint32(host>>32), "a function object")
	require.Equal(t, uint64(tagUndefined)<<32, call(DispatchCall, ctx, host, uint64(tagUndefined)<<32, 0, 0))

	// Compile returns packed bytecode that Eval runs.
	bc := call(DispatchCompile, ctx, call(DispatchEvalOptions, cstring("6 * 7"), 0, 0, cstring("<input>"), 0))
	require.NotZero(t, bc)
	packed, ok = v.mod.Memory().ReadUint64Le(uint32(bc))
	require.True(t, ok)
	require.NotZero(t, uint32(packed), "bytecode")
	require.Equal(t, uint64(42), call(DispatchEval, ctx, call(DispatchEvalOptions, 0, packed>>32, uint64(uint32(packed)), cstring("<input>"), 0)))

	for op, live := range map[DispatchOp]int{DispatchWarm: warmLiveValues, DispatchWarmDeep: warmDeepLiveValues} {
		require.Zero(t, call(op, 0))
		// The path no caller takes computes the exclusive or of the values
		// it keeps live, and has no other effect.
		var x uint32
		for k := range live {
			x ^= 7 + uint32(k) + 1
		}
		require.Equal(t, uint64(x), call(op, 7))
	}

	s6 := []uint64{uint64(numDispatchOps), 0, 0, 0, 0, 0}
	require.ErrorContains(t, d.CallWithStack(v.ctx, s6), "unreachable")
}

// dispatchCaller calls the exports of v through its dispatcher d.
type dispatchCaller struct {
	t *testing.T
	v *vm
	d api.Function
}

// call calls op with args and returns its result.
func (c dispatchCaller) call(op DispatchOp, args ...uint64) uint64 {
	c.t.Helper()
	s := make([]uint64, 6)
	s[0] = uint64(op)
	copy(s[1:], args)
	require.NoError(c.t, c.d.CallWithStack(c.v.ctx, s))
	return s[0]
}

// cstring copies s into the guest's memory as a C string and returns its
// address.
func (c dispatchCaller) cstring(s string) uint64 {
	p := c.call(DispatchMalloc, uint64(len(s)+1))
	require.True(c.t, c.v.mod.Memory().Write(uint32(p), append([]byte(s), 0)))
	return p
}
