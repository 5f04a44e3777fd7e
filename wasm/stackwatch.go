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
		for _, in := range body {
			if in.Op == opGlobalSet && in.A == 0 {
				n++
			}
		}
		if n == 0 {
			continue
		}
		out := make([]Instr, 0, len(body)+n*len(check))
		for _, in := range body {
			out = append(out, in)
			if in.Op == opGlobalSet && in.A == 0 {
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
