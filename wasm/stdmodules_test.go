package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

func TestRefuseImports(t *testing.T) {
	m := decodeQuickJS(t)
	loader, _ := m.exportedFunc("coderun_module_loader")
	throw, _ := m.exportedFunc("coderun_throw_reference_error")
	original := append([]Instr(nil), m.body(loader).Body...)
	require.NoError(t, refuseImports(m))
	e := m.Exports[len(m.Exports)-1]
	require.Equal(t, ImportErrorExport, e.Name)
	require.Equal(t, ExternGlobal, e.Kind)
	g, ok := m.globalType(e.Index)
	require.True(t, ok)
	require.Equal(t, GlobalType{ValType: i32, Mutable: true}, g)
	body := m.body(loader).Body
	require.Equal(t, original, body[len(body)-len(original):], "the loader is prefixed, not changed")
	require.Equal(t, []Instr{
		indexed(opGlobalGet, e.Index), blockInstr(opIf, blockEmpty),
		indexed(opLocalGet, 0), indexed(opGlobalGet, e.Index), indexed(opCall, throw), simple(opDrop),
		i32Const(0), simple(opReturn), simple(opEnd),
	}, body[:len(body)-len(original)], "if (global) { throw(ctx, global); return NULL }")
	require.ErrorContains(t, refuseImports(m), "already exists")
	require.ErrorContains(t, refuseImports(&Module{}), "not exported")
}

// In the hardened module, import() rejects with the glue's ReferenceError
// while the global is 0, and with the host's message once it is set.
func TestRefuseImportsRuns(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	v := newVM(t, rt, compile(t, rt, hardened(t)), nil)
	imported := func() string {
		t.Helper()
		_, err := v.evalString(`globalThis.r = "pending"; import("qjs:std").then(() => { r = "loaded" }, e => { r = String(e) }); ""`)
		require.NoError(t, err)
		v.call("coderun_run_jobs", v.jsctx)
		s, err := v.evalString("r")
		require.NoError(t, err)
		return s
	}
	require.Equal(t, "ReferenceError: could not load module 'qjs:std'", imported())
	g, ok := v.mod.ExportedGlobal(ImportErrorExport).(api.MutableGlobal)
	require.True(t, ok)
	g.Set(v.cstring("no modules here"))
	require.Equal(t, "ReferenceError: no modules here", imported())
}
