package wasm

// opcodeTargets is the fewest targets of a br_table that dispatches an
// interpreter's opcodes: QuickJS-NG's interpreter switches over about 225
// labels, and no other switch in it has more than a few dozen.
const opcodeTargets = 128

// dispatchLoops returns the positions in body of its dispatch loops: each
// loop that is the innermost loop around a br_table of at least
// opcodeTargets targets. An interpreter's dispatch loop runs once per
// opcode, so Fuel leaves it to the interrupt handler's charge; every other
// loop of the interpreter (a copy of arguments, an inlined builtin's loop
// over its input) is charged like any C loop.
func dispatchLoops(body []Instr) map[int]bool {
	loops := map[int]bool{}
	var open []int // the enclosing blocks' positions, innermost last; -1 for a block or if
	for i, in := range body {
		switch in.Op {
		case opLoop:
			open = append(open, i)
		case opBlock, opIf:
			open = append(open, -1)
		case opEnd:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case opBrTable:
			if len(in.Vec)+1 < opcodeTargets {
				continue
			}
			for k := len(open) - 1; k >= 0; k-- {
				if open[k] >= 0 {
					loops[open[k]] = true
					break
				}
			}
		}
	}
	return loops
}
