package wasm

import "fmt"

// GrowTrapExport is the name under which GrowTrap exports its checked grow
// function, so that the host can tell a memory-cap trap (one whose innermost
// frame is that function) from any other trap.
const GrowTrapExport = "coderun_grow_checked"

// GrowTrap makes a failed memory.grow trap. Every memory.grow becomes a call
// to an appended function (i32) -> i32 that performs memory.grow and
// executes unreachable when it returns -1. The function is exported as
// GrowTrapExport.
//
// In QuickJS-NG this turns reaching the memory cap (wazero's
// WithMemoryLimitPages) into a trap that ends the call, instead of a JS
// "out of memory" exception that the script could catch and retry. After
// such a trap the instance must be discarded: the trap leaves the malloc
// state and the stack pointer inconsistent.
func GrowTrap(m *Module) error {
	if len(m.Memories) == 0 && m.numImported(ExternMemory) == 0 {
		return fmt.Errorf("wasm: grow trap: the module has no memory")
	}
	var sites int
	for i := range m.Code {
		for _, in := range m.Code[i].Body {
			if in.Op == OpMemoryGrow {
				sites++
			}
		}
	}
	if sites == 0 {
		return nil
	}
	// (param $delta i32) (result i32) (local $old i32)
	grow := m.addFunc(FuncType{Params: []ValType{I32}, Results: []ValType{I32}},
		[]LocalGroup{{Count: 1, Type: I32}},
		[]Instr{
			Indexed(OpLocalGet, 0),
			Simple(OpMemoryGrow),
			Indexed(OpLocalTee, 1),
			I32Const(-1),
			Simple(OpI32Eq),
			BlockInstr(OpIf, BlockEmpty),
			Simple(OpUnreachable),
			Simple(OpEnd),
			Indexed(OpLocalGet, 1),
			Simple(OpEnd),
		})
	if err := m.addExport(Export{Name: GrowTrapExport, Kind: ExternFunc, Index: grow}); err != nil {
		return fmt.Errorf("wasm: grow trap: %w", err)
	}
	for i := range m.Code[:len(m.Code)-1] {
		body := m.Code[i].Body
		for k := range body {
			if body[k].Op == OpMemoryGrow {
				body[k] = Indexed(OpCall, grow)
			}
		}
	}
	return nil
}
