package wasm

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// unchargedLoops returns the positions of the loops in body that a branch
// goes back to without a fuel charge right before it, leaving out the loops
// charged at their top (Fuel's chunking helpers: a call of $fuel_yield among
// the loop's first instructions). Fuel with BackEdges puts a charge before
// each branch, ending in "i64.const 0; i64.lt_s; if ... end" whose block
// calls one of refills: $fuel_yield itself, or (in an interpreter, whose
// yields save the loop's carried locals around the call) the refill helper
// that calls it.
func unchargedLoops(body []Instr, yield uint32, refills map[uint32]bool) map[int]bool {
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
		if i < 1 || body[i-1].Op != opEnd {
			return false
		}
		calls, depth := false, 0
		for j := i - 2; j >= 2; j-- {
			switch in := body[j]; in.Op {
			case opEnd:
				depth++
			case opBlock, opLoop, opIf:
				if depth > 0 {
					depth--
					continue
				}
				return in.Op == opIf && calls && body[j-1].Op == opI64LtS && body[j-2].Op == opI64Const && body[j-2].C == 0
			case opCall:
				calls = calls || depth == 0 && refills[in.A]
			}
		}
		return false
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
	// The refill helper: global.get $fuel; call $fuel_yield; global.set $fuel.
	refills := map[uint32]bool{yield: true}
	for i := range m.Code {
		if slices.EqualFunc(m.Code[i].Body, []Instr{indexed(opGlobalGet, fuel), indexed(opCall, yield), indexed(opGlobalSet, fuel), simple(opEnd)}, sameInstr) {
			refills[m.numImportedFuncs()+uint32(i)] = true
		}
	}
	require.Len(t, refills, 2, "fuel_yield and the interpreter's refill helper")
	var left []string
	for i := range m.Code {
		body := m.Code[i].Body
		for p := range unchargedLoops(body, yield, refills) {
			left = append(left, fmt.Sprintf("function %d, loop at %d (largest br_table %d)",
				int(m.numImportedFuncs())+i, p, largestBrTable(body[p:])))
		}
	}
	require.Len(t, left, 1, "the interpreter's dispatch loop, and no other loop, is left to the interrupt handler")
	require.Contains(t, left[0], "(largest br_table 2", "the loop left alone dispatches over 200 or more opcodes")
}

// sameInstr reports whether two instructions without vectors are the same.
func sameInstr(a, b Instr) bool {
	return a.Op == b.Op && a.A == b.A && a.B == b.B && a.C == b.C && len(a.Vec) == 0 && len(b.Vec) == 0
}

// A loop carries the locals it writes after reading them; a local written
// before it is read, or only read, is not saved around its yield.
func TestCarriedLocals(t *testing.T) {
	get := func(x uint32) Instr { return indexed(opLocalGet, x) }
	set := func(x uint32) Instr { return indexed(opLocalSet, x) }
	loop, end := blockInstr(opLoop, blockEmpty), simple(opEnd)
	for _, tc := range []struct {
		name string
		body []Instr
		want map[int][]uint32
	}{
		{"counter", []Instr{loop, get(0), i32Const(1), simple(opI32Sub), indexed(opLocalTee, 0), indexed(opBrIf, 0), end, end},
			map[int][]uint32{0: {0}}},
		{"temporary", []Instr{loop, i32Const(1), set(1), get(1), simple(opDrop), end, end}, map[int][]uint32{}},
		{"read only", []Instr{loop, get(2), simple(opDrop), end, end}, map[int][]uint32{}},
		{"inner loop counts for both", []Instr{loop, get(3), simple(opDrop), loop, get(0), set(0), end, set(3), end, end},
			map[int][]uint32{0: {0, 3}, 3: {0}}},
		{"in a block", []Instr{blockInstr(opBlock, blockEmpty), loop, get(1), set(1), end, end, end},
			map[int][]uint32{1: {1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loops := map[int]bool{}
			for p, in := range tc.body {
				loops[p] = in.Op == opLoop
			}
			require.Equal(t, tc.want, carriedLocals(tc.body, loops))
		})
	}
}
