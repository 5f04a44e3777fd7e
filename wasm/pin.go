package wasm

import "fmt"

// pinInterruptHandler stops quickjs-libc's std.evalScript from changing
// JSRuntime.interrupt_handler. evalScript installs the libc interrupt
// handler on entry and clears the field on return; once cleared, QuickJS
// never polls again and JavaScript runs without being charged or
// preempted. The runtime sets the field itself at start-up, so the pass
// turns evalScript's stores to that field into drops.
//
// The function is found by its one recognisable instruction pair,
// `i32.const QuickJSInterruptTableIndex; i32.store offset=X` (installing the
// handler); every i32.store or i64.store at offset X in that function (the
// install and the clear) is removed. Exactly one function must match.
func pinInterruptHandler(m *Module) error {
	found := -1
	var offset uint32
	for i := range m.Code {
		body := m.Code[i].Body
		for k := 1; k < len(body); k++ {
			if body[k].Op == opI32Store && body[k-1].Op == opI32Const && body[k-1].i32() == int32(QuickJSInterruptTableIndex) {
				if found >= 0 && found != i {
					return fmt.Errorf("wasm: pin interrupt handler: more than one function installs it")
				}
				found, offset = i, body[k].B
			}
		}
	}
	if found < 0 {
		return fmt.Errorf("wasm: pin interrupt handler: no function installs it")
	}
	code := &m.Code[found]
	out := make([]Instr, 0, len(code.Body)+4)
	removed := 0
	for _, in := range code.Body {
		if (in.Op == opI32Store || in.Op == Opcode(0x37) /* i64.store */) && in.B == offset {
			out = append(out, simple(opDrop), simple(opDrop))
			removed++
			continue
		}
		out = append(out, in)
	}
	if removed < 2 {
		return fmt.Errorf("wasm: pin interrupt handler: expected an install and a clear, found %d stores", removed)
	}
	code.Body = out
	return nil
}
