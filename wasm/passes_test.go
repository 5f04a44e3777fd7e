package wasm

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// quickJSFuncs returns the functions Fuel treats apart in m, found the way
// Fuel finds them: the interpreter, JS_CallInternal, by the name section,
// and the glue's interrupt handler by its export.
func quickJSFuncs(t testing.TB, m *Module) (callInternal, handler uint32) {
	t.Helper()
	callInternal, err := m.funcByName(callInternalName)
	require.NoError(t, err)
	handler, ok := m.exportedFunc(interruptExport)
	require.True(t, ok, "%s is not exported", interruptExport)
	return callInternal, handler
}

// tableIndex returns the table index of function f: the value a C function
// pointer to f holds. m has one active element segment at a constant offset.
func tableIndex(t testing.TB, m *Module, f uint32) uint32 {
	t.Helper()
	require.Len(t, m.Elements, 1)
	seg := m.Elements[0]
	require.Equal(t, opI32Const, seg.Offset[0].Op)
	k := slices.Index(seg.Funcs, f)
	require.GreaterOrEqual(t, k, 0, "function %d is not in the table", f)
	require.NotContains(t, seg.Funcs[k+1:], f, "function %d is in the table twice", f)
	return uint32(seg.Offset[0].i32()) + uint32(k)
}

// TestQuickJSFacts checks the facts about the module (built with coderun's
// glue) that the passes' defaults rely on.
func TestQuickJSFacts(t *testing.T) {
	m := decodeQuickJS(t)
	callInternal, handler := quickJSFuncs(t, m)

	// JS_CallInternal is the interpreter: by far the largest function (its
	// opcode dispatch inlines most of QuickJS's opcodes), with loops that
	// Fuel leaves uninstrumented by default.
	largest, largestFunc, second := 0, uint32(0), 0
	for i, c := range m.Code {
		if n := len(c.raw.orig); n > largest {
			second, largest, largestFunc = largest, n, m.numImportedFuncs()+uint32(i)
		} else if n > second {
			second = n
		}
	}
	require.Equal(t, callInternal, largestFunc)
	require.Greater(t, largest, 2*second, "no other function is an interpreter")
	require.Positive(t, countBodyOps(m.body(callInternal).Body, opLoop))

	// The interrupt handler is the glue's coderun_interrupt, return 0, and
	// reached through the table (JS_SetInterruptHandler stores a pointer).
	ft, ok := m.funcType(handler)
	require.True(t, ok)
	require.Equal(t, FuncType{Params: []ValType{i32, i32}, Results: []ValType{i32}}, ft)
	h := m.body(handler)
	require.Empty(t, h.Locals)
	require.Equal(t, []Instr{i32Const(0), simple(opEnd)}, h.Body)
	byName, err := m.funcByName(interruptExport)
	require.NoError(t, err)
	require.Equal(t, handler, byName, "the name section agrees with the exports")
	require.Positive(t, tableIndex(t, m, handler))
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

func TestGrowTrap(t *testing.T) {
	m := decodeQuickJS(t)
	funcs := len(m.Code)
	require.NoError(t, growTrap(m))
	require.Len(t, m.Code, funcs+1)
	grow := m.numImportedFuncs() + uint32(funcs)
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
	callInternal, handler := quickJSFuncs(t, orig)
	m := decodeQuickJS(t)
	// The build has bulk memory instructions (-mbulk-memory: memcpy and
	// memset are memory.copy and memory.fill); a function with both is
	// added all the same, so that their rewrite is checked on known operands.
	require.Positive(t, countOps(orig, opMemoryCopy)+countOps(orig, opMemoryFill))
	withBulk(orig)
	withBulk(m)
	imported := orig.numImportedFuncs()
	require.NoError(t, Fuel(m, FuelConfig{LoopCost: 3}))

	w := checkFuelAdditions(t, orig, m)
	w.callInternal = callInternal
	var err error
	w.interpTypes, err = m.localTypes(callInternal + 1)
	require.NoError(t, err)
	var loops, checked int
	for i := range orig.Code {
		idx := imported + uint32(i)
		before, after := orig.Code[i], m.Code[i]
		if idx == handler {
			require.Equal(t, []LocalGroup{{Count: 1, Type: i64}}, after.Locals)
			require.Equal(t, append(w.charge(2, i64Const(defaultInterruptCost)), indexed(opGlobalGet, w.stop), simple(opEnd)), after.Body)
			continue
		}
		// The interpreter's dispatch loop is left to the interrupt handler.
		skip := map[int]bool{}
		if idx == callInternal {
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
		if bulk > 0 {
			require.Equal(t, nl+4, nl2)
		} else {
			require.Equal(t, nl+1, nl2)
		}
		checked += w.checkBody(t, idx, before.Body, after.Body, skip, uint32(nl))
	}
	require.Equal(t, countOps(orig, opLoop)-1, loops, "every loop but the interpreter's dispatch loop")
	require.Greater(t, loops, 1000, "QuickJS's C loops")
	require.Equal(t, loops, checked)

	out, err := m.Encode()
	require.NoError(t, err)
	m2, err := Decode(out)
	require.NoError(t, err)
	require.Equal(t, m.Code[100].Body, m2.Code[100].Body)
}

// checkFuelAdditions checks what Fuel adds to orig to make m: the import,
// the function indices it shifts, the fuel and stop globals and exports and
// the helpers, and returns their indices.
func checkFuelAdditions(t *testing.T, orig, m *Module) fuelWant {
	t.Helper()
	imported, funcs := orig.numImportedFuncs(), len(orig.Code)
	// The import is appended, and every defined function index shifts.
	require.Len(t, m.Imports, len(orig.Imports)+1)
	w := fuelWant{m: m, yield: imported}
	im := m.Imports[w.yield]
	require.Equal(t, fuelImportModule, im.Module)
	require.Equal(t, fuelImportName, im.Name)
	require.Equal(t, FuncType{Params: []ValType{i64}, Results: []ValType{i64}}, m.Types[im.TypeIndex])
	for k, f := range orig.Elements[0].Funcs {
		require.Equal(t, w.shifted(f), m.Elements[0].Funcs[k])
	}
	for k, e := range orig.Exports {
		if e.Kind == externFunc {
			e.Index = w.shifted(e.Index)
		}
		require.Equal(t, e, m.Exports[k])
	}

	// The fuel global is a mutable i64, initially 0, exported; the stop
	// global that the interrupt handler returns, a mutable i32, initially
	// 0, exported, follows it.
	g, stop := uint32(len(m.Globals)-2), uint32(len(m.Globals)-1)
	w.g, w.stop = g, stop
	require.Equal(t, Global{Type: GlobalType{ValType: i64, Mutable: true}, Init: []Instr{i64Const(0), simple(opEnd)}}, m.Globals[g])
	require.Equal(t, Export{Name: FuelGlobalExport, Kind: ExternGlobal, Index: g}, m.Exports[len(m.Exports)-2])
	require.Equal(t, Global{Type: GlobalType{ValType: i32, Mutable: true}, Init: []Instr{i32Const(0), simple(opEnd)}}, m.Globals[stop])
	require.Equal(t, Export{Name: StopGlobalExport, Kind: ExternGlobal, Index: stop}, m.Exports[len(m.Exports)-1])

	// The chunked bulk memory and grow helpers follow the original
	// functions, then the interpreter's refill helper.
	require.Len(t, m.Code, funcs+4)
	first := imported + 1 + uint32(funcs)
	w.copyHelper, w.fillHelper, w.growHelper, w.refill = first, first+1, first+2, first+3
	require.Equal(t, []Instr{indexed(opGlobalGet, g), indexed(opCall, w.yield), indexed(opGlobalSet, g), simple(opEnd)}, m.body(w.refill).Body)
	for _, h := range []uint32{w.copyHelper, w.fillHelper} {
		ft, _ := m.funcType(h)
		require.True(t, ft.Equal(FuncType{Params: []ValType{i32, i32, i32}}), "%v", ft)
	}
	ft, _ := m.funcType(w.growHelper)
	require.True(t, ft.Equal(FuncType{Params: []ValType{i32}, Results: []ValType{i32}}), "%v", ft)
	return w
}

// fuelWant is what TestFuel expects of Fuel's rewrite of m: the indices of
// the fuel global g, of fuel_yield and of the helpers Fuel adds.
type fuelWant struct {
	m                                  *Module
	g, stop, yield, refill             uint32
	copyHelper, fillHelper, growHelper uint32
	callInternal                       uint32
	interpTypes                        []ValType // the locals of JS_CallInternal
}

// shifted is the index of function i after the import Fuel inserts.
func (w fuelWant) shifted(i uint32) uint32 {
	if i >= w.yield {
		return i + 1
	}
	return i
}

// charge is a charge of cost with the i64 local tmp.
func (w fuelWant) charge(tmp uint32, cost ...Instr) []Instr {
	return charger{fuel: w.g, yield: w.yield}.charge(nil, tmp, cost...)
}

// checkBody checks after, the rewrite of body before of function idx whose
// charges use the local tmp: every loop but those in skip is followed by a
// charge of 3, bulk memory operations are charged, memory.grow calls the
// helper and calls are shifted. It returns the number of loops charged.
func (w fuelWant) checkBody(t *testing.T, idx uint32, before, after []Instr, skip map[int]bool, tmp uint32) int {
	t.Helper()
	k, checked := 0, 0
	for pos, in := range before {
		switch {
		case skip[pos]:
		case in.Op == opLoop && idx == w.callInternal:
			require.Equal(t, in, after[k])
			k += 1 + checkSavingCharge(t, w.m, w.interpTypes, after[k+1:], w.g, w.refill, tmp)
			checked++
			continue
		case in.Op == opLoop:
			require.Equal(t, in, after[k])
			want := w.charge(tmp, i64Const(3))
			require.Equal(t, want, after[k+1:k+1+len(want)])
			k += 1 + len(want)
			checked++
			continue
		case in.Op == opMemoryGrow:
			require.Equal(t, indexed(opCall, w.growHelper), after[k])
			k++
			continue
		case in.Op == opMemoryCopy || in.Op == opMemoryFill:
			want := w.bulkOp(in, tmp)
			require.Equal(t, want, after[k:k+len(want)])
			k += len(want)
			continue
		case in.Op == opCall:
			in.A = w.shifted(in.A)
		}
		require.Equal(t, in, after[k])
		k++
	}
	require.Len(t, after, k)
	return checked
}

// bulkOp is the expected rewrite of in, a memory.copy or memory.fill, in a
// function whose charges use the local tmp and the three after it.
func (w fuelWant) bulkOp(in Instr, tmp uint32) []Instr {
	helper := w.copyHelper
	if in.Op == opMemoryFill {
		helper = w.fillHelper
	}
	d, s, n := tmp+1, tmp+2, tmp+3
	want := []Instr{indexed(opLocalSet, n), indexed(opLocalSet, s), indexed(opLocalSet, d),
		indexed(opLocalGet, n), i32Const(bulkMemoryChunk), simple(opI32GtU), blockInstr(opIf, blockEmpty),
		indexed(opLocalGet, d), indexed(opLocalGet, s), indexed(opLocalGet, n), indexed(opCall, helper),
		simple(opElse)}
	want = append(want, w.charge(tmp, indexed(opLocalGet, n), simple(opI64ExtendI32U), i64Const(bulkMemoryShift), simple(opI64ShrU))...)
	return append(want, indexed(opLocalGet, d), indexed(opLocalGet, s), indexed(opLocalGet, n), in, simple(opEnd))
}

// checkSavingCharge checks the charge of 3 that an interpreter's loop
// starts with (body): the fuel global g drops by 3, and if it is negative,
// the refill helper is called with locals saved in globals around the call,
// each restored from the global it was saved in, none of them the charge's
// own temporary tmp, each global a mutable one of its local's type added
// before g. It returns the charge's length.
func checkSavingCharge(t *testing.T, m *Module, types []ValType, body []Instr, g, refill, tmp uint32) int {
	t.Helper()
	head := []Instr{indexed(opGlobalGet, g), i64Const(3), simple(opI64Sub), indexed(opGlobalSet, g),
		indexed(opGlobalGet, g), i64Const(0), simple(opI64LtS), blockInstr(opIf, blockEmpty)}
	require.Equal(t, head, body[:len(head)])
	k := len(head)
	type save struct{ local, global uint32 }
	var saves []save
	for body[k].Op == opLocalGet {
		require.Equal(t, opGlobalSet, body[k+1].Op)
		saves = append(saves, save{body[k].A, body[k+1].A})
		k += 2
	}
	require.Equal(t, indexed(opCall, refill), body[k])
	k++
	for _, sv := range saves {
		require.Equal(t, []Instr{indexed(opGlobalGet, sv.global), indexed(opLocalSet, sv.local)}, body[k:k+2])
		require.NotEqual(t, tmp, sv.local)
		require.Less(t, sv.global, g)
		require.Equal(t, GlobalType{ValType: types[sv.local], Mutable: true}, m.Globals[sv.global].Type)
		k += 2
	}
	require.Equal(t, simple(opEnd), body[k])
	return k + 1
}

// withBulk adds to m a function (i32, i32, i32) -> () that runs
// memory.copy and memory.fill on its arguments.
func withBulk(m *Module) {
	get := func() []Instr { return []Instr{indexed(opLocalGet, 0), indexed(opLocalGet, 1), indexed(opLocalGet, 2)} }
	body := append(get(), simple(opMemoryCopy))
	body = append(append(body, get()...), simple(opMemoryFill), simple(opEnd))
	m.addFunc(FuncType{Params: []ValType{i32, i32, i32}}, nil, body)
}

// bulkHelperCount is the number of bulk memory and grow helpers Fuel adds
// to m.
func bulkHelperCount(m *Module) int {
	return min(countOps(m, opMemoryCopy), 1) + min(countOps(m, opMemoryFill), 1) + min(countOps(m, opMemoryGrow), 1)
}

func TestFuelConfig(t *testing.T) {
	callInternal, handler := quickJSFuncs(t, decodeQuickJS(t))
	for _, tc := range []struct {
		name string
		cfg  FuelConfig
		want string
	}{
		{"negative cost", FuelConfig{LoopCost: -1}, "must not be negative"},
		{"imported handler", FuelConfig{InterruptHandler: 3}, "not a defined function"},
		{"handler type", FuelConfig{InterruptHandler: callInternal}, "want (i32, i32) -> i32"},
		{"skip imported", FuelConfig{SkipLoops: []uint32{1}}, "not a defined function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, Fuel(decodeQuickJS(t), tc.cfg), tc.want)
		})
	}

	// Everything instrumented, no handler replacement.
	m := decodeQuickJS(t)
	loops, funcs, helpers := countOps(m, opLoop), len(m.Code), bulkHelperCount(m)
	h := slices.Clone(m.body(handler).Body)
	require.NoError(t, Fuel(m, FuelConfig{SkipLoops: []uint32{}, InterruptHandler: noInterruptHandler}))
	require.Equal(t, h, m.body(handler+1).Body)
	require.Equal(t, loops+helpers, countOps(m, opLoop), "the bulk memory and grow helpers have a loop each")
	var checks int
	for _, c := range m.Code[:funcs] {
		for k, in := range c.Body {
			if in.Op == opLoop && c.Body[k+1].Op == opGlobalGet {
				checks++
			}
		}
	}
	require.Equal(t, loops, checks)

	// The defaults need the name section and the glue's export.
	noNames := decodeQuickJS(t)
	noNames.Customs = nil
	require.ErrorContains(t, Fuel(noNames, FuelConfig{}), "no name section")
	noExport := decodeQuickJS(t)
	noExport.Exports = slices.DeleteFunc(noExport.Exports, func(e Export) bool { return e.Name == interruptExport })
	require.ErrorContains(t, Fuel(noExport, FuelConfig{}), interruptExport+" is not exported")
}

func TestHardenSize(t *testing.T) {
	orig := decodeQuickJS(t)
	indirectTypes := map[uint32]bool{}
	for _, c := range orig.Code {
		for _, in := range c.Body {
			if in.Op == opCallIndirect {
				indirectTypes[in.A] = true
			}
		}
	}
	b := hardened(t)
	m, err := Decode(b)
	require.NoError(t, err)
	require.Len(t, m.Imports, len(orig.Imports)+2, "fuel_yield and the stack watch hook")
	// The dispatcher and its two warm-up helpers, one call_indirect
	// selector per type, grow_checked, the bulk memory and grow helpers, and
	// the interpreter's refill helper.
	require.Equal(t, len(orig.Code)+3+len(indirectTypes)+1+bulkHelperCount(orig)+1, len(m.Code))
	t.Logf("hardened module: %d bytes (original %d)", len(b), len(QuickJS()))
	again, err := Harden(QuickJS(), FuelConfig{})
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, again), "Harden is deterministic")
	_, err = Harden([]byte("junk"), FuelConfig{})
	require.ErrorIs(t, err, errMalformed)
}

func TestFuelBackEdges(t *testing.T) {
	orig := decodeQuickJS(t)
	callInternal, handler := quickJSFuncs(t, orig)
	m := decodeQuickJS(t)
	require.NoError(t, Fuel(m, FuelConfig{BackEdges: true}))
	g := uint32(len(m.Globals) - 2) // the fuel global; the stop global follows
	// Count the branches to loops in the original bodies (outside
	// JS_CallInternal) and the charges in the rewritten ones.
	var backEdges, charges int
	for i := range orig.Code {
		if idx := orig.numImportedFuncs() + uint32(i); idx == callInternal || idx == handler {
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
