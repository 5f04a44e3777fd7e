package wasm

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// stdModuleCalls returns the functions New_QJSContext calls after
// JS_NewContext.
func stdModuleCalls(t *testing.T, m *Module) []uint32 {
	t.Helper()
	idx, ok := m.exportedFunc("New_QJSContext")
	require.True(t, ok)
	var calls []uint32
	for _, in := range m.body(idx).Body {
		if in.Op == opCall {
			calls = append(calls, in.A)
		}
	}
	require.Len(t, calls, 5)
	return calls[1:]
}

// dataAddr returns the address of the C string that starts with s in m's
// active data segments.
func dataAddr(t *testing.T, m *Module, s string) int32 {
	t.Helper()
	for _, d := range m.Data {
		if i := bytes.Index(d.Init, []byte(s)); i >= 0 && (i == 0 || d.Init[i-1] == 0) && d.Offset[0].Op == opI32Const {
			return d.Offset[0].i32() + int32(i)
		}
	}
	t.Fatalf("%q is not in the data segments", s)
	return 0
}

func usesConst(body []Instr, v int32) bool {
	for _, in := range body {
		if in.Op == opI32Const && in.i32() == v {
			return true
		}
	}
	return false
}

// The four functions the pass empties are the ones that register qjs:std,
// qjs:os and qjs:bjson and the one that imports them as globals: each uses
// the address of its module's name, or of its module's source text.
func TestDropStdModules(t *testing.T) {
	m := decodeQuickJS(t)
	calls := stdModuleCalls(t, m)
	for i, s := range []string{"qjs:std\x00", "qjs:os\x00", "qjs:bjson\x00", "import * as bjson from 'qjs:bjson';\n"} {
		require.True(t, usesConst(m.body(calls[i]).Body, dataAddr(t, m, s)), "function %d uses %q", calls[i], s)
	}
	// New_QJS inlines New_QJSContext: it calls the same four.
	newQJS, _ := m.exportedFunc("New_QJS")
	var inNewQJS []uint32
	for _, in := range m.body(newQJS).Body {
		if in.Op == opCall && (in.A == calls[0] || in.A == calls[1] || in.A == calls[2] || in.A == calls[3]) {
			inNewQJS = append(inNewQJS, in.A)
		}
	}
	require.Equal(t, calls, inNewQJS)

	require.NoError(t, dropStdModules(m))
	for _, f := range calls {
		require.Equal(t, []Instr{simple(opEnd)}, m.body(f).Body)
		require.Empty(t, m.body(f).Locals)
	}
	_, err := m.Encode()
	require.NoError(t, err)
	require.ErrorContains(t, dropStdModules(&Module{}), "not exported")
}

func TestRefuseImports(t *testing.T) {
	m := decodeQuickJS(t)
	loader, _ := m.exportedFunc("QJS_ModuleLoader")
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
	require.Equal(t, []Instr{indexed(opGlobalGet, e.Index), blockInstr(opIf, blockEmpty)}, body[:2])
	require.ErrorContains(t, refuseImports(m), "already exists")
	require.ErrorContains(t, refuseImports(&Module{}), "not exported")
}
