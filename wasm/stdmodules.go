package wasm

import "fmt"

// dropStdModules removes quickjs-libc's built-in modules, qjs:std, qjs:os
// and qjs:bjson, from every context the module creates, so that no program
// can reach them: not by a static import, nor by a dynamic import() from
// the program, from eval or from new Function. Deleting the globals that
// expose them is not enough, since a registered module stays importable.
// Without qjs:os nothing can register a read, write or signal handler or an
// os timer, so the libc event loop (js_std_loop, which RunJobs runs) never
// polls: it runs the pending jobs and returns.
//
// fastschema's New_QJSContext is JS_NewContext followed by four calls that
// each take only the context: js_init_module_std, js_init_module_os and
// js_init_module_bjson (specialised by the linker to their fixed names),
// then js_set_global_objs, which evaluates a module importing the three to
// publish them as globals (with the print, console, gc and navigator
// globals the prelude deletes anyway); New_QJS inlines the same sequence.
// The pass finds the four by that structure and empties their bodies, so
// that every caller creates a context without them.
func dropStdModules(m *Module) error {
	ctxFn, ok := m.exportedFunc("New_QJSContext")
	if !ok {
		return fmt.Errorf("wasm: drop std modules: New_QJSContext is not exported")
	}
	body := m.body(ctxFn)
	if body == nil {
		return fmt.Errorf("wasm: drop std modules: New_QJSContext is imported")
	}
	var calls []uint32
	for _, in := range body.Body {
		if in.Op == opCall {
			calls = append(calls, in.A)
		}
	}
	ctxOnly := FuncType{Params: []ValType{i32}}
	newContext := FuncType{Params: []ValType{i32}, Results: []ValType{i32}}
	if len(calls) != 5 {
		return fmt.Errorf("wasm: drop std modules: New_QJSContext makes %d calls, want 5", len(calls))
	}
	if t, ok := m.funcType(calls[0]); !ok || !t.Equal(newContext) {
		return fmt.Errorf("wasm: drop std modules: New_QJSContext's first call is not JS_NewContext (i32) -> i32")
	}
	for _, f := range calls[1:] {
		t, ok := m.funcType(f)
		if !ok || !t.Equal(ctxOnly) || m.body(f) == nil {
			return fmt.Errorf("wasm: drop std modules: function %d called by New_QJSContext is not a defined (i32) -> ()", f)
		}
	}
	for _, f := range calls[1:] {
		code := m.body(f)
		code.Locals = nil
		code.Body = []Instr{simple(opEnd)}
	}
	return nil
}

// ImportErrorExport is the name under which refuseImports exports the
// global that holds the address of the message of its ReferenceError.
const ImportErrorExport = "coderun_import_error"

// refuseImports makes fastschema's module loader, QJS_ModuleLoader, which
// QuickJS calls for every import() and static import of a module it has not
// loaded, throw a ReferenceError instead of looking for a file, once the
// host has stored the address of a NUL-terminated message in the mutable
// i32 global exported as ImportErrorExport. While the global is 0 the
// loader behaves as before. QuickJS rejects the import() with the error,
// which the program can catch.
//
// The loader is prefixed with
//
//	if (global != 0) { QJS_ThrowReferenceError(ctx, global); return NULL; }
//
// (QJS_ThrowReferenceError(ctx, s) throws s verbatim, through "%s").
func refuseImports(m *Module) error {
	loader, ok1 := m.exportedFunc("QJS_ModuleLoader")
	throw, ok2 := m.exportedFunc("QJS_ThrowReferenceError")
	if !ok1 || !ok2 {
		return fmt.Errorf("wasm: refuse imports: QJS_ModuleLoader or QJS_ThrowReferenceError is not exported")
	}
	lt, ok1 := m.funcType(loader)
	tt, ok2 := m.funcType(throw)
	switch {
	case !ok1 || !lt.Equal(FuncType{Params: []ValType{i32, i32, i32}, Results: []ValType{i32}}) || m.body(loader) == nil:
		return fmt.Errorf("wasm: refuse imports: QJS_ModuleLoader is not a defined (i32, i32, i32) -> i32")
	case !ok2 || !tt.Equal(FuncType{Params: []ValType{i32, i32}, Results: []ValType{i64}}):
		return fmt.Errorf("wasm: refuse imports: QJS_ThrowReferenceError is not (i32, i32) -> i64")
	}
	g := m.addGlobal(Global{Type: GlobalType{ValType: i32, Mutable: true}, Init: []Instr{i32Const(0), simple(opEnd)}})
	if err := m.addExport(Export{Name: ImportErrorExport, Kind: ExternGlobal, Index: g}); err != nil {
		return fmt.Errorf("wasm: refuse imports: %w", err)
	}
	code := m.body(loader)
	prefix := []Instr{
		indexed(opGlobalGet, g),
		blockInstr(opIf, blockEmpty),
		indexed(opLocalGet, 0),
		indexed(opGlobalGet, g),
		indexed(opCall, throw),
		simple(opDrop),
		i32Const(0),
		simple(opReturn),
		simple(opEnd),
	}
	code.Body = append(prefix, code.Body...)
	return nil
}
