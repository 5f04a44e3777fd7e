package wasm

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuickJSFacts checks the facts about the pinned module that the
// passes' defaults rely on.
func TestQuickJSFacts(t *testing.T) {
	m := decodeQuickJS(t)

	// JS_CallInternal: the only function with a 220-target br_table (the
	// opcode dispatch), a 49 KB body with 70 loops.
	var with220 []uint32
	for i, c := range m.Code {
		for _, in := range c.Body {
			if in.Op == opBrTable && len(in.Vec) == 220 {
				with220 = append(with220, m.numImportedFuncs()+uint32(i))
			}
		}
	}
	require.Equal(t, []uint32{quickJSCallInternal}, with220)
	ci := m.body(quickJSCallInternal)
	require.Len(t, ci.raw.orig, 49100)
	require.Equal(t, 70, countBodyOps(ci.Body, opLoop))

	// The interrupt handler is table element 484 and reads
	// os_pending_signals: return (os_pending_signals >> SIGINT) & 1.
	seg := m.Elements[0]
	require.Equal(t, []Instr{i32Const(1), simple(opEnd)}, seg.Offset)
	require.Equal(t, quickJSInterruptHandler, seg.Funcs[QuickJSInterruptTableIndex-1])
	ft, ok := m.funcType(quickJSInterruptHandler)
	require.True(t, ok)
	require.Equal(t, FuncType{Params: []ValType{i32, i32}, Results: []ValType{i32}}, ft)
	h := m.body(quickJSInterruptHandler)
	require.Empty(t, h.Locals)
	require.Equal(t, []Instr{
		i32Const(99864), {Op: opI32Load, A: 2}, // os_pending_signals
		i32Const(2), simple(opI32ShrU), // SIGINT
		i32Const(1), simple(opI32And),
		simple(opEnd),
	}, h.Body)
}

func countBodyOps(body []Instr, op Opcode) int {
	n := 0
	for _, in := range body {
		if in.Op == op {
			n++
		}
	}
	return n
}

func TestExportStackPointer(t *testing.T) {
	m := decodeQuickJS(t)
	require.NoError(t, ExportStackPointer(m))
	require.Equal(t, Export{Name: stackPointerExport, Kind: ExternGlobal, Index: 0}, m.Exports[len(m.Exports)-1])
	require.ErrorContains(t, ExportStackPointer(m), "already exists")

	for _, tc := range []struct {
		name    string
		globals []Global
		want    string
	}{
		{"no global", nil, "no global 0"},
		{"immutable", []Global{{Type: GlobalType{ValType: i32}, Init: []Instr{i32Const(0), simple(opEnd)}}}, "not a mutable i32"},
		{"i64", []Global{{Type: GlobalType{ValType: i64, Mutable: true}, Init: []Instr{i64Const(0), simple(opEnd)}}}, "not a mutable i32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, ExportStackPointer(&Module{Globals: tc.globals}), tc.want)
		})
	}
}

func TestExportStdLoop(t *testing.T) {
	m := decodeQuickJS(t)
	require.NoError(t, ExportStdLoop(m))
	e := m.Exports[len(m.Exports)-1]
	require.Equal(t, stdLoopExport, e.Name)
	ft, _ := m.funcType(e.Index)
	require.Equal(t, []ValType{i32}, ft.Params)
	require.Empty(t, ft.Results)
	// js_std_loop runs the job queue: it calls JS_ExecutePendingJob (rt, &ctx)
	// -> i32 in a loop that continues while the result is positive.
	var pendingJobCalls int
	body := m.body(e.Index).Body
	for i, in := range body[:len(body)-4] {
		ft, _ := m.funcType(in.A)
		if in.Op == opCall && len(ft.Params) == 2 && len(ft.Results) == 1 &&
			body[i+1].Op == opLocalTee && body[i+3].Op == Opcode(0x4a) /* i32.gt_s */ && body[i+4].Op == opBrIf {
			pendingJobCalls++
		}
	}
	require.Equal(t, 1, pendingJobCalls)
	require.ErrorContains(t, ExportStdLoop(m), "already exists")
	require.ErrorContains(t, ExportStdLoop(&Module{}), "not exported")
}

func TestGrowTrap(t *testing.T) {
	m := decodeQuickJS(t)
	require.NoError(t, growTrap(m))
	require.Len(t, m.Code, 1139)
	grow := m.numImportedFuncs() + 1138
	ft, _ := m.funcType(grow)
	require.Equal(t, FuncType{Params: []ValType{i32}, Results: []ValType{i32}}, ft)
	require.Equal(t, 1, countOps(m, opMemoryGrow), "only the helper grows memory")
	require.Equal(t, 1, countBodyOps(m.body(grow).Body, opMemoryGrow))
	require.Equal(t, 1, countBodyOps(m.body(grow).Body, opUnreachable))
	var calls int
	for _, c := range m.Code {
		for _, in := range c.Body {
			if in.Op == opCall && in.A == grow {
				calls++
			}
		}
	}
	require.Equal(t, 1, calls)

	require.ErrorContains(t, growTrap(&Module{}), "no memory")
}

func TestFuel(t *testing.T) {
	orig := decodeQuickJS(t)
	m := decodeQuickJS(t)
	require.NoError(t, Fuel(m, FuelConfig{LoopCost: 3}))

	// The import is appended, and every defined function index shifts.
	require.Len(t, m.Imports, 25)
	yield := uint32(24)
	im := m.Imports[yield]
	require.Equal(t, fuelImportModule, im.Module)
	require.Equal(t, fuelImportName, im.Name)
	require.Equal(t, FuncType{Params: []ValType{i64}, Results: []ValType{i64}}, m.Types[im.TypeIndex])
	shifted := func(i uint32) uint32 {
		if i >= yield {
			return i + 1
		}
		return i
	}
	for k, f := range orig.Elements[0].Funcs {
		require.Equal(t, shifted(f), m.Elements[0].Funcs[k])
	}
	for k, e := range orig.Exports {
		if e.Kind == externFunc {
			e.Index = shifted(e.Index)
		}
		require.Equal(t, e, m.Exports[k])
	}

	// The fuel global is a mutable i64, initially 0, exported; the stop
	// global that the interrupt handler returns, a mutable i32, initially
	// 0, exported, follows it.
	g, stop := uint32(len(m.Globals)-2), uint32(len(m.Globals)-1)
	require.Equal(t, Global{Type: GlobalType{ValType: i64, Mutable: true}, Init: []Instr{i64Const(0), simple(opEnd)}}, m.Globals[g])
	require.Equal(t, Export{Name: FuelGlobalExport, Kind: ExternGlobal, Index: g}, m.Exports[len(m.Exports)-2])
	require.Equal(t, Global{Type: GlobalType{ValType: i32, Mutable: true}, Init: []Instr{i32Const(0), simple(opEnd)}}, m.Globals[stop])
	require.Equal(t, Export{Name: StopGlobalExport, Kind: ExternGlobal, Index: stop}, m.Exports[len(m.Exports)-1])

	// The chunked bulk memory and grow helpers follow the original functions.
	require.Len(t, m.Code, 1138+3)
	copyHelper, fillHelper, growHelper := uint32(25+1138), uint32(25+1139), uint32(25+1140)
	for _, h := range []uint32{copyHelper, fillHelper} {
		ft, _ := m.funcType(h)
		require.True(t, ft.Equal(FuncType{Params: []ValType{i32, i32, i32}}), "%v", ft)
	}
	ft, _ := m.funcType(growHelper)
	require.True(t, ft.Equal(FuncType{Params: []ValType{i32}, Results: []ValType{i32}}), "%v", ft)
	check := func(tmp uint32, cost ...Instr) []Instr {
		return charger{fuel: g, yield: yield}.charge(nil, tmp, cost...)
	}
	var loops, checked int
	for i := range orig.Code {
		idx := uint32(24 + i)
		before, after := orig.Code[i], m.Code[i]
		switch idx {
		case quickJSInterruptHandler:
			require.Equal(t, []LocalGroup{{Count: 1, Type: i64}}, after.Locals)
			require.Equal(t, append(check(2, i64Const(defaultInterruptCost)), indexed(opGlobalGet, stop), simple(opEnd)), after.Body)
			continue
		}
		// The interpreter's dispatch loop is left to the interrupt handler.
		skip := map[int]bool{}
		if idx == quickJSCallInternal {
			skip = dispatchLoops(before.Body)
			require.Len(t, skip, 1)
		}
		n := countBodyOps(before.Body, opLoop) - len(skip)
		bulk := countBodyOps(before.Body, opMemoryCopy) + countBodyOps(before.Body, opMemoryFill)
		loops += n
		if n+bulk+countBodyOps(before.Body, opMemoryGrow) == 0 {
			require.Equal(t, before.Locals, after.Locals)
			continue
		}
		// One more i64 local (and three i32s for bulk memory operands).
		nl, err := orig.numLocals(idx)
		require.NoError(t, err)
		nl2, err := m.numLocals(idx + 1)
		require.NoError(t, err)
		tmp := uint32(nl)
		if bulk > 0 {
			require.Equal(t, nl+4, nl2)
		} else {
			require.Equal(t, nl+1, nl2)
		}
		// Every loop is followed by a check, and calls are shifted.
		k := 0
		for pos, in := range before.Body {
			switch {
			case skip[pos]:
			case in.Op == opLoop:
				require.Equal(t, in, after.Body[k])
				want := check(tmp, i64Const(3))
				require.Equal(t, want, after.Body[k+1:k+1+len(want)])
				k += 1 + len(want)
				checked++
				continue
			case in.Op == opMemoryGrow:
				require.Equal(t, indexed(opCall, growHelper), after.Body[k])
				k++
				continue
			case in.Op == opMemoryCopy || in.Op == opMemoryFill:
				helper := copyHelper
				if in.Op == opMemoryFill {
					helper = fillHelper
				}
				d, s, n := tmp+1, tmp+2, tmp+3
				want := []Instr{indexed(opLocalSet, n), indexed(opLocalSet, s), indexed(opLocalSet, d),
					indexed(opLocalGet, n), i32Const(bulkMemoryChunk), simple(opI32GtU), blockInstr(opIf, blockEmpty),
					indexed(opLocalGet, d), indexed(opLocalGet, s), indexed(opLocalGet, n), indexed(opCall, helper),
					simple(opElse)}
				want = append(want, check(tmp, indexed(opLocalGet, n), simple(opI64ExtendI32U), i64Const(bulkMemoryShift), simple(opI64ShrU))...)
				want = append(want, indexed(opLocalGet, d), indexed(opLocalGet, s), indexed(opLocalGet, n), in, simple(opEnd))
				require.Equal(t, want, after.Body[k:k+len(want)])
				k += len(want)
				continue
			case in.Op == opCall:
				in.A = shifted(in.A)
			}
			require.Equal(t, in, after.Body[k])
			k++
		}
		require.Len(t, after.Body, k)
	}
	require.Equal(t, 1726-1, loops)
	require.Equal(t, loops, checked)

	out, err := m.Encode()
	require.NoError(t, err)
	m2, err := Decode(out)
	require.NoError(t, err)
	require.Equal(t, m.Code[100].Body, m2.Code[100].Body)
}

func TestFuelConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  FuelConfig
		want string
	}{
		{"negative cost", FuelConfig{LoopCost: -1}, "must not be negative"},
		{"imported handler", FuelConfig{InterruptHandler: 3}, "not a defined function"},
		{"handler type", FuelConfig{InterruptHandler: 266}, "want (i32, i32) -> i32"},
		{"skip imported", FuelConfig{SkipLoops: []uint32{1}}, "not a defined function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, Fuel(decodeQuickJS(t), tc.cfg), tc.want)
		})
	}

	// Everything instrumented, no handler replacement.
	m := decodeQuickJS(t)
	h := slices.Clone(m.body(quickJSInterruptHandler).Body)
	require.NoError(t, Fuel(m, FuelConfig{SkipLoops: []uint32{}, InterruptHandler: noInterruptHandler}))
	require.Equal(t, h, m.body(quickJSInterruptHandler+1).Body)
	require.Equal(t, 1726+3, countOps(m, opLoop), "the bulk memory and grow helpers have a loop each")
	var checks int
	for _, c := range m.Code[:1138] {
		for k, in := range c.Body {
			if in.Op == opLoop && c.Body[k+1].Op == opGlobalGet {
				checks++
			}
		}
	}
	require.Equal(t, 1726, checks)
}

func TestHardenSize(t *testing.T) {
	b := hardened(t)
	m, err := Decode(b)
	require.NoError(t, err)
	require.Len(t, m.Imports, 26)
	// The dispatcher and its two warm-up helpers, 30 call_indirect
	// selectors, grow_checked, and the bulk memory and grow helpers.
	require.Equal(t, 1138+3+30+4, len(m.Code))
	t.Logf("hardened module: %d bytes (original %d)", len(b), len(QuickJS()))
	again, err := Harden(QuickJS(), FuelConfig{})
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, again), "Harden is deterministic")
	_, err = Harden([]byte("junk"), FuelConfig{})
	require.ErrorIs(t, err, errMalformed)
}

func TestFuelBackEdges(t *testing.T) {
	orig := decodeQuickJS(t)
	m := decodeQuickJS(t)
	require.NoError(t, Fuel(m, FuelConfig{BackEdges: true}))
	g := uint32(len(m.Globals) - 2) // the fuel global; the stop global follows
	// Count the branches to loops in the original bodies (outside
	// JS_CallInternal) and the charges in the rewritten ones.
	var backEdges, charges int
	for i := range orig.Code {
		if uint32(24+i) == quickJSCallInternal || uint32(24+i) == quickJSInterruptHandler {
			continue
		}
		var labels []Opcode
		isLoop := func(l uint32) bool { return int(l) < len(labels) && labels[len(labels)-1-int(l)] == opLoop }
		for _, in := range orig.Code[i].Body {
			switch in.Op {
			case opBlock, opLoop, opIf:
				labels = append(labels, in.Op)
			case opEnd:
				if len(labels) > 0 {
					labels = labels[:len(labels)-1]
				}
			case opBr, opBrIf:
				if isLoop(in.A) {
					backEdges++
				}
			case opBrTable:
				if isLoop(in.A) || slices.ContainsFunc(in.Vec, isLoop) {
					backEdges++
				}
			}
		}
		body := m.Code[i].Body
		for k, in := range body {
			if in.Op == opGlobalGet && in.A == g && body[k+1].Op == opI64Const { // bulk charges are not constant
				charges++
			}
		}
	}
	require.Equal(t, backEdges, charges, "one constant charge per back edge")
	t.Logf("%d back edges", backEdges)
}
