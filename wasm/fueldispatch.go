package wasm

import (
	"fmt"
	"slices"
)

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

// An interpreter's loops other than its dispatch loop are charged like any
// C loop, but their yield keeps the loop's state out of the native frame.
// wazero's optimizing compiler gives every SSA value that is live across a
// call a spill slot of its own in the function's native frame (all its
// registers are caller-saved), and the interpreter's frame is paid for once
// per JavaScript call of a recursion (runtime/memory.go charges native
// stack per guest stack byte). An ordinary charge calls fuel_yield on the
// back edge, where the values the loop carries into its next iteration
// (its counter, its pointers) are live, so each charged loop added spill
// slots (docs/builtins.md has the figures).
//
// So in an interpreter the yield stores the loop's carried locals in
// mutable globals before the call and loads them back after it:
//
//	global.get $fuel; <cost>; i64.sub; global.set $fuel
//	global.get $fuel; i64.const 0; i64.lt_s
//	if
//	  local.get $x; global.set $save_x  ...
//	  call $refill  ;; global.get $fuel; call $fuel_yield; global.set $fuel
//	  global.get $save_x; local.set $x  ...
//	end
//
// The values live across the call are then only those the loop does not
// change (already spilled in the interpreter, which calls out everywhere).
// The globals are shared by every such yield, so the host's fuel_yield must
// not call into the instance (coderun's does not: it refills or ends the
// run).

// fuelSaveExportPrefix starts the export names of the globals an
// interpreter's yields save locals in (the global's index follows).
const fuelSaveExportPrefix = "coderun_fuel_save_"

// carriedLocals returns, for the loop at each position in loops, the
// locals the loop carries from one iteration to the next, ascending: those
// written in the loop whose first access in it, in instruction order, is a
// read. That is an approximation of the locals live at the loop's header
// and written in its body; saving a local that is not carried, or not
// saving one that is, costs a spill slot at most and never changes what the
// program computes, since a save and its restore leave every local as it
// was.
func carriedLocals(body []Instr, loops map[int]bool) map[int][]uint32 {
	// Per loop, each local's state: absent (not accessed yet), read first,
	// written first, or carried.
	const readFirst, writtenFirst, isCarried = 1, 2, 3
	state := map[int]map[uint32]int{}
	carried := map[int][]uint32{}
	var open []int // the enclosing loops' positions, innermost last; -1 for a block or if
	for i, in := range body {
		switch in.Op {
		case opLoop:
			open = append(open, i)
			if loops[i] {
				state[i] = map[uint32]int{}
			}
		case opBlock, opIf:
			open = append(open, -1)
		case opEnd:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case opLocalGet, opLocalSet, opLocalTee:
			for _, l := range open {
				st, ok := state[l]
				if l < 0 || !ok {
					continue
				}
				switch {
				case st[in.A] == 0 && in.Op == opLocalGet:
					st[in.A] = readFirst
				case st[in.A] == 0:
					st[in.A] = writtenFirst
				case st[in.A] == readFirst && in.Op != opLocalGet:
					st[in.A] = isCarried
					carried[l] = append(carried[l], in.A)
				}
			}
		}
	}
	for l := range carried {
		slices.Sort(carried[l])
	}
	return carried
}

// savingCharger emits an interpreter's loop charges (see carriedLocals).
type savingCharger struct {
	ch      charger
	refill  uint32               // the refill helper (addRefillHelper)
	skip    map[int]bool         // the dispatch loops, left alone
	carried map[int][]uint32     // the loops' carried locals, by loop position
	types   []ValType            // the function's locals' types
	globals map[ValType][]uint32 // the save globals, by type
}

// charge appends a charge of cost for the loop at position loop.
func (s savingCharger) charge(dst []Instr, loop int, cost Instr) []Instr {
	dst = append(dst,
		indexed(opGlobalGet, s.ch.fuel), cost, simple(opI64Sub), indexed(opGlobalSet, s.ch.fuel),
		indexed(opGlobalGet, s.ch.fuel), i64Const(0), simple(opI64LtS),
		blockInstr(opIf, blockEmpty))
	saved := s.saves(loop)
	for k, x := range s.carried[loop] {
		dst = append(dst, indexed(opLocalGet, x), indexed(opGlobalSet, saved[k]))
	}
	dst = append(dst, indexed(opCall, s.refill))
	for k, x := range s.carried[loop] {
		dst = append(dst, indexed(opGlobalGet, saved[k]), indexed(opLocalSet, x))
	}
	return append(dst, simple(opEnd))
}

// saves returns the globals that hold the carried locals of the loop at
// position loop during its yield, one per local, in order.
func (s savingCharger) saves(loop int) []uint32 {
	used := map[ValType]int{}
	out := make([]uint32, 0, len(s.carried[loop]))
	for _, x := range s.carried[loop] {
		t := s.types[x]
		out = append(out, s.globals[t][used[t]])
		used[t]++
	}
	return out
}

// interpreters is what Fuel knows of the interpreters (cfg.SkipLoops), by
// original absolute index: their dispatch loops, left alone, their other
// loops' carried locals, their locals' types, and the globals their yields
// save carried locals in.
type interpreters struct {
	dispatch map[uint32]map[int]bool
	carried  map[uint32]map[int][]uint32
	types    map[uint32][]ValType
	globals  map[ValType][]uint32
}

// planInterpreters finds what Fuel needs to charge the loops of the
// interpreters in funcs, and adds the save globals to m.
func planInterpreters(m *Module, funcs []uint32) (*interpreters, error) {
	p := &interpreters{dispatch: map[uint32]map[int]bool{}, carried: map[uint32]map[int][]uint32{}, types: map[uint32][]ValType{}}
	for _, f := range funcs {
		body := m.body(f).Body
		if p.dispatch[f] = dispatchLoops(body); len(p.dispatch[f]) == 0 {
			return nil, fmt.Errorf("function %d has no dispatch loop (a loop around a br_table of %d or more targets): it is not an interpreter", f, opcodeTargets)
		}
		charged := map[int]bool{}
		for pos, in := range body {
			charged[pos] = in.Op == opLoop && !p.dispatch[f][pos]
		}
		p.carried[f] = carriedLocals(body, charged)
		var err error
		if p.types[f], err = m.localTypes(f); err != nil {
			return nil, err
		}
	}
	var err error
	p.globals, err = addSaveGlobals(m, p.types, p.carried)
	return p, err
}

// saver returns the charger of interpreter f's loops.
func (p *interpreters) saver(f uint32, ch charger, refill uint32) *savingCharger {
	return &savingCharger{ch: ch, refill: refill, skip: p.dispatch[f], carried: p.carried[f], types: p.types[f], globals: p.globals}
}

// addSaveGlobals adds to m the mutable globals that the interpreters'
// yields save their carried locals in (each interpreter's carried locals by
// loop, in carried), as many of each type as the largest loop needs, and
// returns them by type.
func addSaveGlobals(m *Module, types map[uint32][]ValType, carried map[uint32]map[int][]uint32) (map[ValType][]uint32, error) {
	need := map[ValType]int{}
	for f, loops := range carried {
		for _, locals := range loops {
			n := map[ValType]int{}
			for _, x := range locals {
				n[types[f][x]]++
			}
			for t, k := range n {
				need[t] = max(need[t], k)
			}
		}
	}
	globals := map[ValType][]uint32{}
	for _, t := range []ValType{i32, i64, f32, f64} {
		for range need[t] {
			zero := Instr{Op: map[ValType]Opcode{i32: opI32Const, i64: opI64Const, f32: opF32Const, f64: opF64Const}[t]}
			g := m.addGlobal(Global{Type: GlobalType{ValType: t, Mutable: true}, Init: []Instr{zero, simple(opEnd)}})
			// Exported, as every mutable global is, for the snapshot.
			if err := m.addExport(Export{Name: fmt.Sprintf("%s%d", fuelSaveExportPrefix, g), Kind: ExternGlobal, Index: g}); err != nil {
				return nil, err
			}
			globals[t] = append(globals[t], g)
		}
		delete(need, t)
	}
	if len(need) > 0 {
		return nil, fmt.Errorf("an interpreter loop carries a local of a type other than i32, i64, f32 or f64")
	}
	return globals, nil
}

// localTypes returns the types of the locals (parameters first) of the
// defined function with absolute index idx.
func (m *Module) localTypes(idx uint32) ([]ValType, error) {
	t, ok := m.funcType(idx)
	c := m.body(idx)
	if !ok || c == nil {
		return nil, fmt.Errorf("function %d is not a defined function with a valid type", idx)
	}
	out := slices.Clone(t.Params)
	for _, g := range c.Locals {
		if uint64(len(out))+uint64(g.Count) > 50000 {
			return nil, fmt.Errorf("function %d has too many locals", idx)
		}
		out = append(out, slices.Repeat([]ValType{g.Type}, int(g.Count))...)
	}
	return out, nil
}

// addRefillHelper appends the function () -> () that an interpreter's loop
// calls when its charge leaves the fuel negative: it calls fuel_yield with
// the balance and stores what it returns. A call of an import costs the
// calling function more spill slots than a call of a function of the module.
func addRefillHelper(m *Module, ch charger) uint32 {
	return m.addFunc(FuncType{}, nil, []Instr{
		indexed(opGlobalGet, ch.fuel), indexed(opCall, ch.yield), indexed(opGlobalSet, ch.fuel), simple(opEnd)})
}
