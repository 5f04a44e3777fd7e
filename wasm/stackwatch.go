package wasm

import "fmt"

// Names of what stackWatch adds.
const (
	// stackWatchImportModule and stackWatchImportName name the imported
	// hook stack_low (i32) -> i32.
	stackWatchImportModule = "coderun"
	stackWatchImportName   = "stack_low"
	// StackMarkExport is the export name of the mutable i32 mark global.
	StackMarkExport = "coderun_stack_mark"
)

// stackWatch lets the host watch how deep the C shadow stack goes, so that
// it can account for what deep calls cost it: wazero runs the module's calls
// on a native stack that grows with them, by a few kilobytes per QuickJS
// interpreter frame.
//
// It adds a mutable i32 global, the mark (initially 0), exported as
// StackMarkExport, and imports stackWatchImportModule.StackWatchImportName,
// stack_low (i32) -> i32. After every write of the stack pointer (global 0,
// which every function with a shadow frame moves down on entry and back up
// on exit) it inserts
//
//	global.get 0; global.get $mark; i32.lt_u
//	if  global.get 0; call $stack_low; global.set $mark  end
//
// so the host is called with the new stack pointer whenever the stack grows
// below the mark, and returns the next mark. A mark of 0 is never crossed.
// The check costs a few instructions per shadow frame; the call happens
// only as often as the host moves the mark.
//
// A function's epilogue, which gives its frame back by adding its size to
// the frame's address (local.get, a non-negative i32.const, i32.add), is
// not checked: it moves the stack pointer up, and were it ever to move it
// down, the next checked write would see it, which every call that grows
// the stack further makes in its prologue. That halves the checks a call
// runs; the rest (prologues, restores of a saved pointer) are checked.
func stackWatch(m *Module) error {
	if g, ok := m.globalType(0); !ok || g != (GlobalType{ValType: i32, Mutable: true}) {
		return fmt.Errorf("wasm: stack watch: global 0 is not the stack pointer (a mutable i32)")
	}
	for _, e := range m.Exports {
		if e.Name == StackMarkExport {
			return fmt.Errorf("wasm: stack watch: export %q already exists", e.Name)
		}
	}
	hook := m.insertFuncImport(stackWatchImportModule, stackWatchImportName, FuncType{Params: []ValType{i32}, Results: []ValType{i32}})
	mark := m.addGlobal(Global{Type: GlobalType{ValType: i32, Mutable: true}, Init: []Instr{i32Const(0), simple(opEnd)}})
	if err := m.addExport(Export{Name: StackMarkExport, Kind: ExternGlobal, Index: mark}); err != nil {
		return fmt.Errorf("wasm: stack watch: %w", err)
	}
	check := []Instr{
		indexed(opGlobalGet, 0),
		indexed(opGlobalGet, mark),
		simple(opI32LtU),
		blockInstr(opIf, blockEmpty),
		indexed(opGlobalGet, 0),
		indexed(opCall, hook),
		indexed(opGlobalSet, mark),
		simple(opEnd),
	}
	sites := 0
	for i := range m.Code {
		body := m.Code[i].Body
		n := 0
		for k := range body {
			if watchedWrite(body, k) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		out := make([]Instr, 0, len(body)+n*len(check))
		for k, in := range body {
			out = append(out, in)
			if watchedWrite(body, k) {
				out = append(out, check...)
			}
		}
		m.Code[i].Body = out
		sites += n
	}
	if sites == 0 {
		return fmt.Errorf("wasm: stack watch: nothing writes the stack pointer")
	}
	return nil
}

// watchedWrite reports whether body[k] writes the stack pointer (global 0)
// and is not an epilogue's release of its frame (see stackWatch).
func watchedWrite(body []Instr, k int) bool {
	if body[k].Op != opGlobalSet || body[k].A != 0 {
		return false
	}
	return !(k >= 3 && body[k-1].Op == opI32Add && body[k-2].Op == opI32Const && body[k-2].i32() >= 0 &&
		body[k-3].Op == opLocalGet)
}
