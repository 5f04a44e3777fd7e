package wasm

import (
	"errors"
	"fmt"
	"slices"
)

// Names of what Fuel adds to a module.
const (
	// fuelImportModule and fuelImportName name the imported host function
	// fuel_yield (i64) -> i64.
	fuelImportModule = "coderun"
	fuelImportName   = "fuel_yield"
	// FuelGlobalExport is the export name of the mutable i64 fuel global.
	FuelGlobalExport = "coderun_fuel"
	// StopGlobalExport is the export name of the mutable i32 global that
	// the replaced interrupt handler returns (see Fuel).
	StopGlobalExport = "coderun_stop"
)

// The functions Fuel treats apart in a module built with coderun's glue.
const (
	// callInternalName is JS_CallInternal, the bytecode interpreter, found
	// by the name section. Its dispatch loop runs once per JS opcode, so
	// Fuel leaves that loop uninstrumented by default and charges JS
	// through the interrupt handler instead.
	callInternalName = "JS_CallInternal"
	// interruptExport is the glue's interrupt handler (i32 rt, i32 opaque)
	// -> i32, which coderun_new installs as JSRuntime.interrupt_handler.
	interruptExport = "coderun_interrupt"
)

// noInterruptHandler, as FuelConfig.InterruptHandler, leaves every function
// body other than loop headers and bulk memory operations alone.
const noInterruptHandler = ^uint32(0)

// defaultInterruptCost is the fuel charged per interrupt-handler call:
// QuickJS calls its interrupt handler once per 10,000 interpreter ops
// (JS_INTERRUPT_COUNTER_INIT; the counter drops by one per backward jump
// or call, and by more for some heavy opcodes).
const defaultInterruptCost = 10000

// bulkMemoryShift sets the length charge of memory.copy and memory.fill:
// each one costs len >> bulkMemoryShift units (one unit per 256 bytes, so
// that a copy's fuel per millisecond is of the order of a JavaScript
// loop's; docs/builtins.md has the figures).
const bulkMemoryShift = 8

// bulkMemoryChunk is the largest memory.copy or memory.fill that runs as one
// instruction after Fuel; longer ones are split into chunks of this size
// with a charge (a possible yield) before each. A chunk writing pages the
// host has not made resident takes a page fault each, 20–40 µs on a virtual
// machine: 64 KiB (16 pages) keeps one under a millisecond, where 1 MiB
// chunks left 10–28 ms stretches without a fuel check.
const bulkMemoryChunk = 64 << 10

// FuelConfig configures Fuel. The zero value selects the defaults for the
// pinned QuickJS-NG module.
type FuelConfig struct {
	// LoopCost is charged at the top of every instrumented loop iteration
	// (or, with BackEdges, on every branch back to a loop). Zero means 1.
	LoopCost int64
	// BackEdges moves the loop charge from the top of each iteration to
	// the branches back to the top (br, a taken br_if, or a br_table with
	// a loop among its targets), so a loop body that runs once (such as
	// C's "goto redo" retry loops) costs nothing, and a loop that runs n
	// times costs n-1 charges. Every non-terminating loop still takes
	// back edges, so preemption is unaffected.
	BackEdges bool
	// InterruptCost is charged per call of the interrupt handler. Zero
	// means defaultInterruptCost.
	InterruptCost int64
	// SkipLoops lists the interpreters, by original absolute index, whose
	// dispatch loops (see dispatchLoops) are not instrumented: JavaScript
	// is charged at QuickJS's interrupt poll instead. Their other loops are
	// charged like any C loop, but their yields keep the loop's state out
	// of the native frame (see savingCharger). Nil means the interpreter,
	// JS_CallInternal (by the module's name section); an empty non-nil
	// slice instruments every loop the ordinary way.
	SkipLoops []uint32
	// InterruptHandler is the original absolute index of the function
	// whose body is replaced by a fuel charge that returns the stop
	// global (StopGlobalExport). Zero means the function exported as
	// coderun_interrupt; noInterruptHandler disables the replacement (and the stop global).
	InterruptHandler uint32
}

func (c FuelConfig) withDefaults(m *Module) (FuelConfig, error) {
	if c.LoopCost == 0 {
		c.LoopCost = 1
	}
	if c.InterruptCost == 0 {
		c.InterruptCost = defaultInterruptCost
	}
	if c.LoopCost < 0 || c.InterruptCost < 0 {
		return c, errors.New("fuel costs must not be negative")
	}
	if c.SkipLoops == nil {
		f, err := m.funcByName(callInternalName)
		if err != nil {
			return c, err
		}
		c.SkipLoops = []uint32{f}
	}
	if c.InterruptHandler == 0 {
		f, ok := m.exportedFunc(interruptExport)
		if !ok {
			return c, fmt.Errorf("%s is not exported", interruptExport)
		}
		c.InterruptHandler = f
	}
	return c, nil
}

// Fuel adds deterministic fuel metering and preemption points.
//
// It imports fuelImportModule.fuelImportName, fuel_yield (i64) -> i64,
// after the existing imports (so every defined function's index grows by
// one; table indices do not change), and adds a mutable i64 global, initial
// value 0, exported as FuelGlobalExport. Code charges fuel by subtracting a
// cost from the global; when the result is negative it calls
// fuel_yield(result) and stores what fuel_yield returns:
//
//	global.get $fuel; <cost>; i64.sub; local.tee $t; global.set $fuel
//	local.get $t; i64.const 0; i64.lt_s
//	if  local.get $t; call $fuel_yield; global.set $fuel  end
//
// Charges are made:
//   - at the top of every loop body (or, with cfg.BackEdges, on every
//     branch back to a loop), cfg.LoopCost, except the dispatch loops of
//     the interpreters in cfg.SkipLoops (by default JS_CallInternal's); in
//     an interpreter the yield saves the loop's carried locals in exported
//     mutable globals (named fuelSaveExportPrefix and the global's index)
//     around a call of an appended refill helper, so that the charges do
//     not grow the interpreter's native frame;
//   - in the interrupt handler, whose body is replaced by a charge of
//     cfg.InterruptCost followed by "return $stop", a mutable i32 global,
//     initial value 0, exported as StopGlobalExport and read after the
//     charge. QuickJS calls the handler from the interpreter (and from the
//     regular expression matcher) when JSRuntime.interrupt_handler is set
//     (coderun_new installs it), so JavaScript is
//     charged and preempted there while C loops are charged at their
//     headers;
//   - before every memory.copy and memory.fill, len >> bulkMemoryShift
//     (one unit per 256 bytes), so big copies pay for their length. An
//     operation longer than bulkMemoryChunk calls an appended helper that
//     checks the whole range first (an out-of-bounds operation still traps
//     before writing anything), then copies or fills in chunks of
//     bulkMemoryChunk bytes, charging each, so it stays preemptible. (wazero
//     runs a memory.copy as one Go memmove: on an mmap-backed memory, a
//     53 MB copy into freshly grown pages took 170 ms of page faults with
//     no check, in a 3e6-number sort.) Copies split this way move their
//     chunks in the same direction memmove would, so overlapping ranges
//     are handled;
//   - in place of every memory.grow, a call of an appended helper that
//     grows the memory growChunkPages at a time, charging each chunk
//     1 << growPageShift units per page first (see addGrowHelper): the
//     host may make grown pages resident at once, which for a 512 MiB
//     string buffer took 100–300 ms in one step.
//
// Host-side semantics. The global starts at 0, so the first charge yields.
// fuel_yield(left) is called with the negative balance. It either returns
// the new balance (a refill; it should be positive) or aborts the run by
// panicking, which wazero turns into an error of the exported call in
// progress (the instance must then be discarded). It must not call into
// the instance: the interpreter's yields keep locals in globals that a
// nested yield would overwrite. Instead of panicking, it
// may set the stop global to a non-zero value and return a small balance:
// the next time QuickJS polls the interrupt handler (at once when the
// handler's own charge yielded), the handler returns non-zero and QuickJS
// throws its uncatchable "interrupted" error, which skips every catch and
// finally block and unwinds the JavaScript frames back to the exported call,
// which returns normally (with the exception pending). The stop global is
// never cleared by the module: every later poll throws again. Such an
// instance must be discarded too. The host keeps the
// balance it handed out last (initially 0): on each yield, used += handed -
// left; when the run ends, used += handed - (the global's value). So fuel
// used is everything handed out minus what is left, overdrafts included.
// It is a deterministic function of the program and the instance's state:
// the same program in a fresh instance uses the same fuel whatever the
// refill sizes, since only the points where yields happen depend on them.
//
// Unit. A fuel unit is one loop iteration in C code (with the defaults),
// 1/10,000 of the interpreter's interrupt period (roughly one JS backward
// jump or call), 256 bytes of bulk memory traffic, or 256 bytes of memory
// growth. Every yield is also a host call, hence a point where the Go
// scheduler and garbage collector can stop the goroutine. If the runtime does not install the interrupt
// handler, JavaScript loops (which run inside the interpreter's dispatch loop)
// are neither charged nor preempted.
//
// On error, m may be partly rewritten and should be discarded.
func Fuel(m *Module, cfg FuelConfig) error {
	if err := fuel(m, cfg); err != nil {
		return fmt.Errorf("wasm: fuel: %w", err)
	}
	return nil
}

func fuel(m *Module, cfg FuelConfig) error {
	cfg, err := cfg.withDefaults(m)
	if err != nil {
		return err
	}
	handler, err := checkFuelTargets(m, cfg)
	if err != nil {
		return err
	}
	interp, err := planInterpreters(m, cfg.SkipLoops)
	if err != nil {
		return err
	}
	imported := m.numImportedFuncs()
	yield := m.insertFuncImport(fuelImportModule, fuelImportName, FuncType{Params: []ValType{i64}, Results: []ValType{i64}})
	g := m.addGlobal(Global{Type: GlobalType{ValType: i64, Mutable: true}, Init: []Instr{i64Const(0), simple(opEnd)}})
	if err := m.addExport(Export{Name: FuelGlobalExport, Kind: ExternGlobal, Index: g}); err != nil {
		return err
	}
	ch := charger{fuel: g, yield: yield}
	n := len(m.Code) // the functions to instrument; helpers follow
	bulk := addBulkHelpers(m, ch)
	var refill uint32
	if len(cfg.SkipLoops) > 0 {
		refill = addRefillHelper(m, ch)
	}

	// Defined function i now has absolute index imported+1+i.
	for i := range m.Code[:n] {
		c := &m.Code[i]
		if i == handler {
			continue
		}
		orig := imported + uint32(i)
		var saver *savingCharger
		if slices.Contains(cfg.SkipLoops, orig) {
			saver = interp.saver(orig, ch, refill)
		}
		if !needsFuel(c.Body) {
			continue
		}
		if err := instrument(m, orig+1, saver, cfg, ch, bulk); err != nil {
			return err
		}
	}
	if handler >= 0 {
		return replaceInterruptHandler(m, handler, ch, cfg.InterruptCost)
	}
	return nil
}

// checkFuelTargets checks the functions cfg names and that the exports Fuel
// adds are free. It returns the interrupt handler's position in m.Code, or
// -1 when it is not replaced.
func checkFuelTargets(m *Module, cfg FuelConfig) (int, error) {
	handler := -1
	if cfg.InterruptHandler != noInterruptHandler {
		t, ok := m.funcType(cfg.InterruptHandler)
		if !ok || m.body(cfg.InterruptHandler) == nil {
			return 0, fmt.Errorf("interrupt handler %d is not a defined function", cfg.InterruptHandler)
		}
		want := FuncType{Params: []ValType{i32, i32}, Results: []ValType{i32}}
		if !t.Equal(want) {
			return 0, fmt.Errorf("interrupt handler %d has type %v, want (i32, i32) -> i32", cfg.InterruptHandler, t)
		}
		handler = int(cfg.InterruptHandler - m.numImportedFuncs())
	}
	for _, f := range cfg.SkipLoops {
		if m.body(f) == nil {
			return 0, fmt.Errorf("skipped function %d is not a defined function", f)
		}
	}
	for _, e := range m.Exports {
		if e.Name == FuelGlobalExport || e.Name == StopGlobalExport {
			return 0, fmt.Errorf("export %q already exists", e.Name)
		}
	}
	return handler, nil
}

// addBulkHelpers appends the chunking helpers of the bulk memory operations
// and memory growth that m uses.
func addBulkHelpers(m *Module, ch charger) bulkHelpers {
	var bulk bulkHelpers
	if countOpsIn(m, opMemoryCopy) > 0 {
		bulk.copy = m.addFunc(FuncType{Params: []ValType{i32, i32, i32}}, []LocalGroup{{1, i64}, {1, i32}}, bulkCopyBody(ch))
	}
	if countOpsIn(m, opMemoryFill) > 0 {
		bulk.fill = m.addFunc(FuncType{Params: []ValType{i32, i32, i32}}, []LocalGroup{{1, i64}, {1, i32}}, bulkFillBody(ch))
	}
	if countOpsIn(m, opMemoryGrow) > 0 {
		bulk.grow = addGrowHelper(m, ch)
	}
	return bulk
}

// replaceInterruptHandler replaces the body of the interrupt handler, at
// position handler in m.Code, by a charge of cost that returns the stop
// global, which it adds and exports as StopGlobalExport.
func replaceInterruptHandler(m *Module, handler int, ch charger, cost int64) error {
	stop := m.addGlobal(Global{Type: GlobalType{ValType: i32, Mutable: true}, Init: []Instr{i32Const(0), simple(opEnd)}})
	if err := m.addExport(Export{Name: StopGlobalExport, Kind: ExternGlobal, Index: stop}); err != nil {
		return err
	}
	m.Code[handler] = Code{
		Locals: []LocalGroup{{Count: 1, Type: i64}},
		Body:   append(ch.charge(nil, 2, i64Const(cost)), indexed(opGlobalGet, stop), simple(opEnd)),
	}
	return nil
}

// charger emits fuel charges.
type charger struct {
	fuel  uint32 // the fuel global
	yield uint32 // the fuel_yield function
}

// charge appends a charge of cost (instructions pushing an i64) using the
// i64 local tmp.
func (c charger) charge(dst []Instr, tmp uint32, cost ...Instr) []Instr {
	dst = append(dst, indexed(opGlobalGet, c.fuel))
	dst = append(dst, cost...)
	return append(dst,
		simple(opI64Sub),
		indexed(opLocalTee, tmp),
		indexed(opGlobalSet, c.fuel),
		indexed(opLocalGet, tmp),
		i64Const(0),
		simple(opI64LtS),
		blockInstr(opIf, blockEmpty),
		indexed(opLocalGet, tmp),
		indexed(opCall, c.yield),
		indexed(opGlobalSet, c.fuel),
		simple(opEnd),
	)
}

// needsFuel reports whether a body has a loop, a bulk memory operation or a
// memory.grow.
func needsFuel(body []Instr) bool {
	for _, in := range body {
		if in.Op == opLoop || in.Op == opMemoryCopy || in.Op == opMemoryFill || in.Op == opMemoryGrow {
			return true
		}
	}
	return false
}

// bulkHelpers are the appended functions that run long bulk memory
// operations and memory growth in chunks; zero when absent.
type bulkHelpers struct{ copy, fill, grow uint32 }

func countOpsIn(m *Module, op Opcode) int {
	n := 0
	for i := range m.Code {
		for _, in := range m.Code[i].Body {
			if in.Op == op {
				n++
			}
		}
	}
	return n
}

// instrument inserts the charges into the defined function with absolute
// index idx; in an interpreter (saver not nil), it leaves alone the loops
// in saver.skip and charges the others with saver.
func instrument(m *Module, idx uint32, saver *savingCharger, cfg FuelConfig, ch charger, bulk bulkHelpers) error {
	f := bodyFuel{m: m, idx: idx, saver: saver, cfg: cfg, ch: ch, bulk: bulk, cost: i64Const(cfg.LoopCost)}
	if err := f.addLocals(); err != nil {
		return err
	}
	c := m.body(idx)
	out := make([]Instr, 0, len(c.Body)+len(c.Body)/8)
	for pos, in := range c.Body {
		loops := saver == nil || !saver.skip[pos] // whether this instruction, if a loop, is charged
		if err := f.track(pos, in, loops); err != nil {
			return err
		}
		var err error
		if out, err = f.rewrite(out, pos, in, loops); err != nil {
			return err
		}
	}
	c.Body = out
	return nil
}

// bodyFuel is the state of instrument in one function body.
type bodyFuel struct {
	m     *Module
	idx   uint32
	saver *savingCharger
	cfg   FuelConfig
	ch    charger
	bulk  bulkHelpers
	cost  Instr     // pushes the loop charge
	tmp   uint32    // the i64 local of the charges
	ops   [3]uint32 // the i32 locals of a bulk operation's operands
	// The enclosing blocks, innermost last: opLoop for a loop without
	// parameters, opBlock for anything else (a branch to a loop with
	// parameters carries values, which the br_if rewrite cannot pass),
	// and where each starts.
	labels []Opcode
	starts []int
}

// addLocals adds the i64 local of the charges and, where the body has a
// bulk memory operation, the three i32 locals its operands are saved in
// while its length is charged.
func (f *bodyFuel) addLocals() error {
	var err error
	if f.tmp, err = f.m.addLocal(f.idx, i64); err != nil {
		return err
	}
	c := f.m.body(f.idx)
	if slices.ContainsFunc(c.Body, func(in Instr) bool { return in.Op == opMemoryCopy || in.Op == opMemoryFill }) {
		for k := range f.ops {
			if f.ops[k], err = f.m.addLocal(f.idx, i32); err != nil {
				return err
			}
		}
	}
	return nil
}

// track keeps labels and starts up to date with in, at pos; loops says
// whether in, if a loop, is charged.
func (f *bodyFuel) track(pos int, in Instr, loops bool) error {
	switch in.Op {
	case opLoop:
		op := opLoop
		if !loops {
			op = opBlock // its back edges are left alone
		} else if bt := in.block(); bt >= 0 {
			if t, ok := f.m.typeAt(uint32(bt)); !ok || len(t.Params) > 0 {
				if f.cfg.BackEdges {
					return fmt.Errorf("function %d: loops with parameters are not supported with back-edge charges", f.idx)
				}
				op = opBlock
			}
		}
		f.labels, f.starts = append(f.labels, op), append(f.starts, pos)
	case opBlock, opIf:
		f.labels, f.starts = append(f.labels, in.Op), append(f.starts, pos)
	case opEnd:
		if len(f.labels) > 0 {
			f.labels, f.starts = f.labels[:len(f.labels)-1], f.starts[:len(f.starts)-1]
		}
	}
	return nil
}

// toLoop reports whether a branch to label goes back to a charged loop.
func (f *bodyFuel) toLoop(label uint32) bool {
	return uint64(label) < uint64(len(f.labels)) && f.labels[len(f.labels)-1-int(label)] == opLoop
}

// charge charges the loop that label (or, with -1, the instruction at pos)
// starts.
func (f *bodyFuel) charge(out []Instr, label int, pos int) []Instr {
	if f.saver == nil {
		return f.ch.charge(out, f.tmp, f.cost)
	}
	if label >= 0 {
		pos = f.starts[len(f.starts)-1-label]
	}
	return f.saver.charge(out, pos, f.cost)
}

// rewrite appends in, at pos, to out with its charge, or what replaces it.
func (f *bodyFuel) rewrite(out []Instr, pos int, in Instr, loops bool) ([]Instr, error) {
	backEdges := f.cfg.BackEdges
	switch {
	case in.Op == opLoop && loops && !backEdges:
		out = append(out, in)
		return f.charge(out, -1, pos), nil
	case backEdges && in.Op == opBr && f.toLoop(in.A):
		out = f.charge(out, int(in.A), pos)
		return append(out, in), nil
	case backEdges && in.Op == opBrIf && f.toLoop(in.A):
		// if (cond) { charge; br L } — one label deeper.
		out = append(out, blockInstr(opIf, blockEmpty))
		out = f.charge(out, int(in.A), pos)
		return append(out, indexed(opBr, in.A+1), simple(opEnd)), nil
	case backEdges && in.Op == opBrTable && (f.toLoop(in.A) || slices.ContainsFunc(in.Vec, f.toLoop)):
		if f.saver != nil {
			return nil, fmt.Errorf("function %d: an interpreter's br_table back to a loop is not supported", f.idx)
		}
		out = f.ch.charge(out, f.tmp, f.cost)
		return append(out, in), nil
	case in.Op == opMemoryGrow:
		return append(out, indexed(opCall, f.bulk.grow)), nil
	case in.Op == opMemoryCopy || in.Op == opMemoryFill:
		return bulkOp(out, in, f.ch, f.bulk, f.tmp, f.ops), nil
	}
	return append(out, in), nil
}

// bulkOp appends the charged form of in, a memory.copy or memory.fill
// whose operands dst, src (or value) and len are on the stack: saved in the
// i32 locals ops, it is charged by its length, or, longer than
// bulkMemoryChunk, run by the chunking helper.
func bulkOp(out []Instr, in Instr, ch charger, bulk bulkHelpers, tmp uint32, ops [3]uint32) []Instr {
	d, s, n := ops[0], ops[1], ops[2]
	helper := bulk.copy
	if in.Op == opMemoryFill {
		helper = bulk.fill
	}
	out = append(out,
		indexed(opLocalSet, n), indexed(opLocalSet, s), indexed(opLocalSet, d),
		indexed(opLocalGet, n), i32Const(bulkMemoryChunk), simple(opI32GtU),
		blockInstr(opIf, blockEmpty),
		indexed(opLocalGet, d), indexed(opLocalGet, s), indexed(opLocalGet, n), indexed(opCall, helper),
		simple(opElse))
	out = ch.charge(out, tmp, lengthCost(n)...)
	return append(out, indexed(opLocalGet, d), indexed(opLocalGet, s), indexed(opLocalGet, n), in, simple(opEnd))
}

// lengthCost pushes the charge for a bulk operation of length local n.
func lengthCost(n uint32) []Instr {
	return []Instr{indexed(opLocalGet, n), simple(opI64ExtendI32U), i64Const(bulkMemoryShift), simple(opI64ShrU)}
}

// Locals of the bulk helpers: parameters d, s (or the fill value) and n,
// then the charge's i64 temporary and the chunk length.
const (
	bulkD, bulkS, bulkN, bulkTmp, bulkC = 0, 1, 2, 3, 4
)

// boundsCheck traps unless [local p, local p + local n) lies in memory.
func boundsCheck(dst []Instr, p uint32) []Instr {
	return append(dst,
		indexed(opLocalGet, p), simple(opI64ExtendI32U),
		indexed(opLocalGet, bulkN), simple(opI64ExtendI32U), simple(opI64Add),
		simple(opMemorySize), simple(opI64ExtendI32U), i64Const(16), simple(opI64Shl),
		simple(opI64GtU),
		blockInstr(opIf, blockEmpty), simple(opUnreachable), simple(opEnd))
}

// chunkStart begins the chunk loop: c = min(n, bulkMemoryChunk), charged.
func chunkStart(dst []Instr, ch charger) []Instr {
	dst = append(dst,
		blockInstr(opLoop, blockEmpty),
		indexed(opLocalGet, bulkN), i32Const(bulkMemoryChunk),
		indexed(opLocalGet, bulkN), i32Const(bulkMemoryChunk), simple(opI32LtU),
		simple(opSelect), indexed(opLocalSet, bulkC))
	return ch.charge(dst, bulkTmp, lengthCost(bulkC)...)
}

// chunkEnd ends the chunk loop: n -= c, repeat while n != 0.
func chunkEnd(dst []Instr) []Instr {
	return append(dst,
		indexed(opLocalGet, bulkN), indexed(opLocalGet, bulkC), simple(opI32Sub), indexed(opLocalTee, bulkN),
		indexed(opBrIf, 0),
		simple(opEnd), // loop
		simple(opEnd)) // function
}

// advance adds local c to local p.
func advance(dst []Instr, p uint32) []Instr {
	return append(dst, indexed(opLocalGet, p), indexed(opLocalGet, bulkC), simple(opI32Add), indexed(opLocalSet, p))
}

// bulkCopyBody is the body of the chunked memory.copy helper
// (d, s, n i32; tmp i64; c i32). When d > s it copies from the end, like
// memmove, so overlapping ranges are copied correctly.
func bulkCopyBody(ch charger) []Instr {
	b := boundsCheck(nil, bulkD)
	b = boundsCheck(b, bulkS)
	b = chunkStart(b, ch)
	b = append(b,
		indexed(opLocalGet, bulkD), indexed(opLocalGet, bulkS), simple(opI32GtU),
		blockInstr(opIf, blockEmpty),
		// Backward: the last c bytes of what remains.
		indexed(opLocalGet, bulkD), indexed(opLocalGet, bulkN), simple(opI32Add), indexed(opLocalGet, bulkC), simple(opI32Sub),
		indexed(opLocalGet, bulkS), indexed(opLocalGet, bulkN), simple(opI32Add), indexed(opLocalGet, bulkC), simple(opI32Sub),
		indexed(opLocalGet, bulkC), simple(opMemoryCopy),
		simple(opElse),
		indexed(opLocalGet, bulkD), indexed(opLocalGet, bulkS), indexed(opLocalGet, bulkC), simple(opMemoryCopy))
	b = advance(b, bulkD)
	b = advance(b, bulkS)
	b = append(b, simple(opEnd))
	return chunkEnd(b)
}

// bulkFillBody is the body of the chunked memory.fill helper
// (d, value, n i32; tmp i64; c i32).
func bulkFillBody(ch charger) []Instr {
	b := boundsCheck(nil, bulkD)
	b = chunkStart(b, ch)
	b = append(b, indexed(opLocalGet, bulkD), indexed(opLocalGet, bulkS), indexed(opLocalGet, bulkC), simple(opMemoryFill))
	b = advance(b, bulkD)
	return chunkEnd(b)
}
