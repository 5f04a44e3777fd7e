package wasm

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// unchargedLoops returns the positions of the loops in body that a branch
// goes back to without a fuel charge right before it (Fuel with BackEdges
// puts one before each: "... call $fuel_yield; global.set $fuel; end", then
// the branch), leaving
// out the loops charged at their top (Fuel's chunking helpers: a call of
// $fuel_yield among the loop's first instructions).
func unchargedLoops(body []Instr, yield, fuel uint32) map[int]bool {
	var open []int // enclosing blocks' positions; -1 for a block or if
	loops := map[int]bool{}
	toLoop := func(label uint32) bool {
		if uint64(label) >= uint64(len(open)) {
			return false
		}
		p := open[len(open)-1-int(label)]
		return p >= 0 && !chargedAtTop(body[p:], yield)
	}
	charged := func(i int) bool {
		return i >= 3 && body[i-1].Op == opEnd && body[i-2].Op == opGlobalSet && body[i-2].A == fuel &&
			body[i-3].Op == opCall && body[i-3].A == yield
	}
	// uncharged records the loops among labels, when the branch at i is not charged.
	uncharged := func(i int, labels ...uint32) {
		if charged(i) {
			return
		}
		for _, l := range labels {
			if toLoop(l) {
				loops[open[len(open)-1-int(l)]] = true
			}
		}
	}
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
		case opBr, opBrIf:
			uncharged(i, in.A)
		case opBrTable:
			uncharged(i, append([]uint32{in.A}, in.Vec...)...)
		}
	}
	return loops
}

// chargedAtTop reports whether the loop at the start of body calls yield in
// its first instructions.
// largestBrTable returns the most targets of a br_table in the block that
// starts body.
func largestBrTable(body []Instr) int {
	most, depth := 0, 0
	for _, in := range body {
		switch in.Op {
		case opBlock, opLoop, opIf:
			depth++
		case opEnd:
			if depth--; depth == 0 {
				return most
			}
		case opBrTable:
			most = max(most, len(in.Vec)+1)
		}
	}
	return most
}

func chargedAtTop(body []Instr, yield uint32) bool {
	for _, in := range body[:min(len(body), 24)] {
		if in.Op == opCall && in.A == yield {
			return true
		}
	}
	return false
}

// Every branch back to a loop in the hardened engine is charged, save
// those of the interpreter's dispatch loop (charged through the interrupt
// handler): a loop the interpreter inlined from a builtin (the copy of a
// spread array, say) is charged like any C loop, so no builtin runs an
// argument-sized loop without a preemption point.
func TestEveryLoopCharged(t *testing.T) {
	src, err := Harden(QuickJS(), FuelConfig{BackEdges: true})
	require.NoError(t, err)
	m, err := Decode(src)
	require.NoError(t, err)
	yield := uint32(0)
	for i, im := range m.Imports {
		if im.Module == fuelImportModule && im.Name == fuelImportName {
			yield = uint32(i) // functions are the only imports before it
		}
	}
	var fuel uint32
	for _, e := range m.Exports {
		if e.Name == FuelGlobalExport {
			fuel = e.Index
		}
	}
	var left []string
	for i := range m.Code {
		body := m.Code[i].Body
		for p := range unchargedLoops(body, yield, fuel) {
			left = append(left, fmt.Sprintf("function %d, loop at %d (largest br_table %d)",
				int(m.numImportedFuncs())+i, p, largestBrTable(body[p:])))
		}
	}
	require.Len(t, left, 1, "the interpreter's dispatch loop, and no other loop, is left to the interrupt handler")
	require.Contains(t, left[0], "(largest br_table 2", "the loop left alone dispatches over 200 or more opcodes")
}
