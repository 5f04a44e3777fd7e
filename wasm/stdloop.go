package wasm

import "fmt"

// stdLoopExport is the name under which ExportStdLoop exports QuickJS-NG's
// js_std_loop.
const stdLoopExport = "coderun_std_loop"

// ExportStdLoop exports js_std_loop (ctx) -> (), the libc routine that runs
// every pending job and then polls the qjs:os handlers and timers (none can
// exist once dropStdModules has run), as stdLoopExport.
//
// The module exports it only inside QJS_Eval, which runs it after every
// evaluation, so the host drained the job queue by evaluating a trivial
// script: parsing and compiling it cost more than a typical binding round
// trip's JavaScript. The function is found by structure, not by a bare
// index: QJS_Eval calls the exported js_std_await and then, as its next
// call, js_std_loop, whose signature must be (i32) -> ().
func ExportStdLoop(m *Module) error {
	eval, ok1 := m.exportedFunc("QJS_Eval")
	await, ok2 := m.exportedFunc("js_std_await")
	if !ok1 || !ok2 {
		return fmt.Errorf("wasm: export std loop: QJS_Eval or js_std_await is not exported")
	}
	body := m.body(eval)
	if body == nil {
		return fmt.Errorf("wasm: export std loop: QJS_Eval is imported")
	}
	loop, found := uint32(0), false
	for i, in := range body.Body {
		if in.Op != opCall || in.A != await {
			continue
		}
		for _, next := range body.Body[i+1:] {
			if next.Op == opCall {
				loop, found = next.A, true
				break
			}
		}
		break
	}
	if !found {
		return fmt.Errorf("wasm: export std loop: no call follows js_std_await in QJS_Eval")
	}
	t, ok := m.funcType(loop)
	if !ok || len(t.Params) != 1 || t.Params[0] != i32 || len(t.Results) != 0 || m.body(loop) == nil {
		return fmt.Errorf("wasm: export std loop: function %d after js_std_await is not a defined (i32) -> ()", loop)
	}
	if err := m.addExport(Export{Name: stdLoopExport, Kind: externFunc, Index: loop}); err != nil {
		return fmt.Errorf("wasm: export std loop: %w", err)
	}
	return nil
}

// exportedFunc returns the index of the function exported as name.
func (m *Module) exportedFunc(name string) (uint32, bool) {
	for _, e := range m.Exports {
		if e.Kind == externFunc && e.Name == name {
			return e.Index, true
		}
	}
	return 0, false
}
