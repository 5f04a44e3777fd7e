package wasm

import "fmt"

// ImportErrorExport is the name under which refuseImports exports the
// global that holds the address of the message of its ReferenceError.
const ImportErrorExport = "coderun_import_error"

// refuseImports makes the glue's module loader, coderun_module_loader, which
// QuickJS calls for every import() and static import of a module it has not
// loaded, throw the host's ReferenceError instead of its default one, once the
// host has stored the address of a NUL-terminated message in the mutable
// i32 global exported as ImportErrorExport. While the global is 0 the
// loader behaves as before. QuickJS rejects the import() with the error,
// which the program can catch.
//
// The loader is prefixed with
//
//	if (global != 0) { coderun_throw_reference_error(ctx, global); return NULL; }
//
// (coderun_throw_reference_error(ctx, s) throws s verbatim).
func refuseImports(m *Module) error {
	loader, ok1 := m.exportedFunc("coderun_module_loader")
	throw, ok2 := m.exportedFunc("coderun_throw_reference_error")
	if !ok1 || !ok2 {
		return fmt.Errorf("wasm: refuse imports: coderun_module_loader or coderun_throw_reference_error is not exported")
	}
	lt, ok1 := m.funcType(loader)
	tt, ok2 := m.funcType(throw)
	switch {
	case !ok1 || !lt.Equal(FuncType{Params: []ValType{i32, i32, i32}, Results: []ValType{i32}}) || m.body(loader) == nil:
		return fmt.Errorf("wasm: refuse imports: coderun_module_loader is not a defined (i32, i32, i32) -> i32")
	case !ok2 || !tt.Equal(FuncType{Params: []ValType{i32, i32}, Results: []ValType{i64}}):
		return fmt.Errorf("wasm: refuse imports: coderun_throw_reference_error is not (i32, i32) -> i64")
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
