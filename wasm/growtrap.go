package wasm

import "fmt"

// growTrapExport is the name under which growTrap exports its checked grow
// function, so that the host can tell a memory-cap trap (one whose innermost
// frame is that function) from any other trap.
const growTrapExport = "coderun_grow_checked"

// growTrap makes a failed memory.grow trap. Every memory.grow becomes a call
// to an appended function (i32) -> i32 that performs memory.grow and
// executes unreachable when it returns -1. The function is exported as
// growTrapExport.
//
// In QuickJS-NG this turns reaching the memory cap (wazero's
// WithMemoryLimitPages) into a trap that ends the call, instead of a JS
// "out of memory" exception that the script could catch and retry. After
// such a trap the instance must be discarded: the trap leaves the malloc
// state and the stack pointer inconsistent.
func growTrap(m *Module) error {
	if len(m.Memories) == 0 && m.numImported(externMemory) == 0 {
		return fmt.Errorf("wasm: grow trap: the module has no memory")
	}
	var sites int
	for i := range m.Code {
		for _, in := range m.Code[i].Body {
			if in.Op == opMemoryGrow {
				sites++
			}
		}
	}
	if sites == 0 {
		return nil
	}
	// (param $delta i32) (result i32) (local $old i32)
	grow := m.addFunc(FuncType{Params: []ValType{i32}, Results: []ValType{i32}},
		[]LocalGroup{{Count: 1, Type: i32}},
		[]Instr{
			indexed(opLocalGet, 0),
			simple(opMemoryGrow),
			indexed(opLocalTee, 1),
			i32Const(-1),
			simple(opI32Eq),
			blockInstr(opIf, blockEmpty),
			simple(opUnreachable),
			simple(opEnd),
			indexed(opLocalGet, 1),
			simple(opEnd),
		})
	if err := m.addExport(Export{Name: growTrapExport, Kind: externFunc, Index: grow}); err != nil {
		return fmt.Errorf("wasm: grow trap: %w", err)
	}
	for i := range m.Code[:len(m.Code)-1] {
		body := m.Code[i].Body
		for k := range body {
			if body[k].Op == opMemoryGrow {
				body[k] = indexed(opCall, grow)
			}
		}
	}
	return nil
}
