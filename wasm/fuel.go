package wasm

import (
	"errors"
	"fmt"
	"slices"
)

// Names of what Fuel adds to a module.
const (
	// FuelImportModule and FuelImportName name the imported host function
	// fuel_yield (i64) -> i64.
	FuelImportModule = "coderun"
	FuelImportName   = "fuel_yield"
	// FuelGlobalExport is the export name of the mutable i64 fuel global.
	FuelGlobalExport = "coderun_fuel"
)

// Function indices in the pinned QuickJS-NG module (QuickJS()), before any
// pass shifts them.
const (
	// QuickJSCallInternal is JS_CallInternal, the bytecode interpreter. Its
	// dispatch loop runs once per JS opcode, so Fuel leaves its loops
	// uninstrumented by default and charges JS through the interrupt
	// handler instead.
	QuickJSCallInternal uint32 = 266
	// QuickJSInterruptHandler is quickjs-libc's interrupt_handler
	// (i32 rt, i32 opaque) -> i32, table element QuickJSInterruptTableIndex.
	QuickJSInterruptHandler uint32 = 1126
	// QuickJSInterruptTableIndex is the table index of the interrupt
	// handler: the value the runtime stores in JSRuntime.interrupt_handler.
	// Table indices do not change under any pass.
	QuickJSInterruptTableIndex uint32 = 484
)

// NoInterruptHandler, as FuelConfig.InterruptHandler, leaves every function
// body other than loop headers and bulk memory operations alone.
const NoInterruptHandler = ^uint32(0)

// DefaultInterruptCost is the fuel charged per interrupt-handler call:
// QuickJS calls its interrupt handler once per 10,000 interpreter ops
// (JS_INTERRUPT_COUNTER_INIT; the counter drops by one per backward jump
// or call, and by more for some heavy opcodes).
const DefaultInterruptCost = 10000

// BulkMemoryShift sets the length charge of memory.copy and memory.fill:
// each one costs len >> BulkMemoryShift units (one unit per 4 KiB).
const BulkMemoryShift = 12

// BulkMemoryChunk is the largest memory.copy or memory.fill that runs as one
// instruction after Fuel; longer ones are split into chunks of this size
// with a charge (a possible yield) before each.
const BulkMemoryChunk = 1 << 20

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
	// means DefaultInterruptCost.
	InterruptCost int64
	// SkipLoops lists the functions, by original absolute index, whose
	// loops are not instrumented. Nil means {QuickJSCallInternal}; an empty
	// non-nil slice instruments every loop.
	SkipLoops []uint32
	// InterruptHandler is the original absolute index of the function
	// whose body is replaced by a fuel charge that returns 0. Zero means
	// QuickJSInterruptHandler; NoInterruptHandler disables the replacement.
	InterruptHandler uint32
}

func (c FuelConfig) withDefaults() (FuelConfig, error) {
	if c.LoopCost == 0 {
		c.LoopCost = 1
	}
	if c.InterruptCost == 0 {
		c.InterruptCost = DefaultInterruptCost
	}
	if c.LoopCost < 0 || c.InterruptCost < 0 {
		return c, errors.New("fuel costs must not be negative")
	}
	if c.SkipLoops == nil {
		c.SkipLoops = []uint32{QuickJSCallInternal}
	}
	if c.InterruptHandler == 0 {
		c.InterruptHandler = QuickJSInterruptHandler
	}
	return c, nil
}

// Fuel adds deterministic fuel metering and preemption points.
//
// It imports FuelImportModule.FuelImportName, fuel_yield (i64) -> i64,
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
//     branch back to a loop), cfg.LoopCost, except in the functions in
//     cfg.SkipLoops (by default the interpreter's dispatch loop);
//   - in the interrupt handler, whose body is replaced by a charge of
//     cfg.InterruptCost and "return 0". QuickJS calls it from the
//     interpreter when JSRuntime.interrupt_handler is set (the runtime sets
//     it to QuickJSInterruptTableIndex), so JavaScript is charged and
//     preempted there while C loops are charged at their headers;
//   - before every memory.copy and memory.fill, len >> BulkMemoryShift
//     (one unit per 4 KiB), so big copies pay for their length. An
//     operation longer than BulkMemoryChunk calls an appended helper that
//     checks the whole range first (an out-of-bounds operation still traps
//     before writing anything), then copies or fills in chunks of
//     BulkMemoryChunk bytes, charging each, so it stays preemptible. (wazero
//     runs a memory.copy as one Go memmove: on an mmap-backed memory, a
//     53 MB copy into freshly grown pages took 170 ms of page faults with
//     no check, in a 3e6-number sort.) Copies split this way move their
//     chunks in the same direction memmove would, so overlapping ranges
//     are handled.
//
// Host-side semantics. The global starts at 0, so the first charge yields.
// fuel_yield(left) is called with the negative balance. It either returns
// the new balance (a refill; it should be positive) or aborts the run by
// panicking, which wazero turns into an error of the exported call in
// progress (the instance must then be discarded). The host keeps the
// balance it handed out last (initially 0): on each yield, used += handed -
// left; when the run ends, used += handed - (the global's value). So fuel
// used is everything handed out minus what is left, overdrafts included.
// It is a deterministic function of the program and the instance's state:
// the same program in a fresh instance uses the same fuel whatever the
// refill sizes, since only the points where yields happen depend on them.
//
// Unit. A fuel unit is one loop iteration in C code (with the defaults),
// 1/10,000 of the interpreter's interrupt period (roughly one JS backward
// jump or call), or 4 KiB of bulk memory traffic. Every yield is also a
// host call, hence a point where the Go scheduler and garbage collector can
// stop the goroutine. If the runtime does not install the interrupt
// handler, JavaScript loops (which run inside the skipped interpreter
// function) are neither charged nor preempted.
//
// On error, m may be partly rewritten and should be discarded.
func Fuel(m *Module, cfg FuelConfig) error {
	if err := fuel(m, cfg); err != nil {
		return fmt.Errorf("wasm: fuel: %w", err)
	}
	return nil
}

func fuel(m *Module, cfg FuelConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	imported := m.NumImportedFuncs()
	handler := -1 // the handler's position in m.Code
	if cfg.InterruptHandler != NoInterruptHandler {
		t, ok := m.FuncType(cfg.InterruptHandler)
		if !ok || m.Body(cfg.InterruptHandler) == nil {
			return fmt.Errorf("interrupt handler %d is not a defined function", cfg.InterruptHandler)
		}
		want := FuncType{Params: []ValType{I32, I32}, Results: []ValType{I32}}
		if !t.Equal(want) {
			return fmt.Errorf("interrupt handler %d has type %v, want (i32, i32) -> i32", cfg.InterruptHandler, t)
		}
		handler = int(cfg.InterruptHandler - imported)
	}
	for _, f := range cfg.SkipLoops {
		if m.Body(f) == nil {
			return fmt.Errorf("skipped function %d is not a defined function", f)
		}
	}
	for _, e := range m.Exports {
		if e.Name == FuelGlobalExport {
			return fmt.Errorf("export %q already exists", e.Name)
		}
	}

	yield := m.insertFuncImport(FuelImportModule, FuelImportName, FuncType{Params: []ValType{I64}, Results: []ValType{I64}})
	g := m.addGlobal(Global{Type: GlobalType{ValType: I64, Mutable: true}, Init: []Instr{I64Const(0), Simple(OpEnd)}})
	if err := m.addExport(Export{Name: FuelGlobalExport, Kind: ExternGlobal, Index: g}); err != nil {
		return err
	}
	ch := charger{fuel: g, yield: yield}
	n := len(m.Code) // the functions to instrument; helpers follow
	var bulk bulkHelpers
	if countOpsIn(m, OpMemoryCopy) > 0 {
		bulk.copy = m.addFunc(FuncType{Params: []ValType{I32, I32, I32}}, []LocalGroup{{1, I64}, {1, I32}}, bulkCopyBody(ch))
	}
	if countOpsIn(m, OpMemoryFill) > 0 {
		bulk.fill = m.addFunc(FuncType{Params: []ValType{I32, I32, I32}}, []LocalGroup{{1, I64}, {1, I32}}, bulkFillBody(ch))
	}

	// Defined function i now has absolute index imported+1+i.
	for i := range m.Code[:n] {
		c := &m.Code[i]
		if i == handler {
			continue
		}
		orig := imported + uint32(i)
		loops := !slices.Contains(cfg.SkipLoops, orig)
		if !needsFuel(c.Body, loops) {
			continue
		}
		if err := instrument(m, orig+1, loops, cfg, ch, bulk); err != nil {
			return err
		}
	}
	if handler >= 0 {
		m.Code[handler] = Code{
			Locals: []LocalGroup{{Count: 1, Type: I64}},
			Body:   append(ch.charge(nil, 2, I64Const(cfg.InterruptCost)), I32Const(0), Simple(OpEnd)),
		}
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
	dst = append(dst, Indexed(OpGlobalGet, c.fuel))
	dst = append(dst, cost...)
	return append(dst,
		Simple(OpI64Sub),
		Indexed(OpLocalTee, tmp),
		Indexed(OpGlobalSet, c.fuel),
		Indexed(OpLocalGet, tmp),
		I64Const(0),
		Simple(OpI64LtS),
		BlockInstr(OpIf, BlockEmpty),
		Indexed(OpLocalGet, tmp),
		Indexed(OpCall, c.yield),
		Indexed(OpGlobalSet, c.fuel),
		Simple(OpEnd),
	)
}

// needsFuel reports whether a body has a loop to instrument (when loops is
// set) or a bulk memory operation.
func needsFuel(body []Instr, loops bool) bool {
	for _, in := range body {
		if (loops && in.Op == OpLoop) || in.Op == OpMemoryCopy || in.Op == OpMemoryFill {
			return true
		}
	}
	return false
}

// bulkHelpers are the appended functions that run long bulk memory
// operations in chunks; zero when absent.
type bulkHelpers struct{ copy, fill uint32 }

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
// index idx.
func instrument(m *Module, idx uint32, loops bool, cfg FuelConfig, ch charger, bulk bulkHelpers) error {
	tmp, err := m.addLocal(idx, I64)
	if err != nil {
		return err
	}
	// The three i32 operands of a bulk memory operation are saved in
	// locals while its length is charged.
	var ops [3]uint32
	c := m.Body(idx)
	if slices.ContainsFunc(c.Body, func(in Instr) bool { return in.Op == OpMemoryCopy || in.Op == OpMemoryFill }) {
		for k := range ops {
			if ops[k], err = m.addLocal(idx, I32); err != nil {
				return err
			}
		}
	}
	d, s, n := ops[0], ops[1], ops[2]
	cost := I64Const(cfg.LoopCost)
	// The enclosing blocks, innermost last: OpLoop for a loop without
	// parameters, OpBlock for anything else (a branch to a loop with
	// parameters carries values, which the br_if rewrite cannot pass).
	var labels []Opcode
	toLoop := func(label uint32) bool {
		return uint64(label) < uint64(len(labels)) && labels[len(labels)-1-int(label)] == OpLoop
	}
	out := make([]Instr, 0, len(c.Body)+len(c.Body)/8)
	for _, in := range c.Body {
		switch in.Op {
		case OpLoop:
			op := OpLoop
			if bt := in.Block(); bt >= 0 {
				if t, ok := m.typeAt(uint32(bt)); !ok || len(t.Params) > 0 {
					if cfg.BackEdges {
						return fmt.Errorf("function %d: loops with parameters are not supported with back-edge charges", idx)
					}
					op = OpBlock
				}
			}
			labels = append(labels, op)
		case OpBlock, OpIf:
			labels = append(labels, in.Op)
		case OpEnd:
			if len(labels) > 0 {
				labels = labels[:len(labels)-1]
			}
		}
		backEdges := loops && cfg.BackEdges
		switch {
		case in.Op == OpLoop && loops && !cfg.BackEdges:
			out = append(out, in)
			out = ch.charge(out, tmp, cost)
		case backEdges && in.Op == OpBr && toLoop(in.A):
			out = ch.charge(out, tmp, cost)
			out = append(out, in)
		case backEdges && in.Op == OpBrIf && toLoop(in.A):
			// if (cond) { charge; br L } — one label deeper.
			out = append(out, BlockInstr(OpIf, BlockEmpty))
			out = ch.charge(out, tmp, cost)
			out = append(out, Indexed(OpBr, in.A+1), Simple(OpEnd))
		case backEdges && in.Op == OpBrTable && (toLoop(in.A) || slices.ContainsFunc(in.Vec, toLoop)):
			out = ch.charge(out, tmp, cost)
			out = append(out, in)
		case in.Op == OpMemoryCopy || in.Op == OpMemoryFill:
			helper := bulk.copy
			if in.Op == OpMemoryFill {
				helper = bulk.fill
			}
			// dst, src (or value), len are on the stack.
			out = append(out,
				Indexed(OpLocalSet, n), Indexed(OpLocalSet, s), Indexed(OpLocalSet, d),
				Indexed(OpLocalGet, n), I32Const(BulkMemoryChunk), Simple(OpI32GtU),
				BlockInstr(OpIf, BlockEmpty),
				Indexed(OpLocalGet, d), Indexed(OpLocalGet, s), Indexed(OpLocalGet, n), Indexed(OpCall, helper),
				Simple(OpElse))
			out = ch.charge(out, tmp, lengthCost(n)...)
			out = append(out, Indexed(OpLocalGet, d), Indexed(OpLocalGet, s), Indexed(OpLocalGet, n), in, Simple(OpEnd))
		default:
			out = append(out, in)
		}
	}
	c.Body = out
	return nil
}

// lengthCost pushes the charge for a bulk operation of length local n.
func lengthCost(n uint32) []Instr {
	return []Instr{Indexed(OpLocalGet, n), Simple(OpI64ExtendI32U), I64Const(BulkMemoryShift), Simple(OpI64ShrU)}
}

// Locals of the bulk helpers: parameters d, s (or the fill value) and n,
// then the charge's i64 temporary and the chunk length.
const (
	bulkD, bulkS, bulkN, bulkTmp, bulkC = 0, 1, 2, 3, 4
)

// boundsCheck traps unless [local p, local p + local n) lies in memory.
func boundsCheck(dst []Instr, p uint32) []Instr {
	return append(dst,
		Indexed(OpLocalGet, p), Simple(OpI64ExtendI32U),
		Indexed(OpLocalGet, bulkN), Simple(OpI64ExtendI32U), Simple(OpI64Add),
		Simple(OpMemorySize), Simple(OpI64ExtendI32U), I64Const(16), Simple(OpI64Shl),
		Simple(OpI64GtU),
		BlockInstr(OpIf, BlockEmpty), Simple(OpUnreachable), Simple(OpEnd))
}

// chunkStart begins the chunk loop: c = min(n, BulkMemoryChunk), charged.
func chunkStart(dst []Instr, ch charger) []Instr {
	dst = append(dst,
		BlockInstr(OpLoop, BlockEmpty),
		Indexed(OpLocalGet, bulkN), I32Const(BulkMemoryChunk),
		Indexed(OpLocalGet, bulkN), I32Const(BulkMemoryChunk), Simple(OpI32LtU),
		Simple(OpSelect), Indexed(OpLocalSet, bulkC))
	return ch.charge(dst, bulkTmp, lengthCost(bulkC)...)
}

// chunkEnd ends the chunk loop: n -= c, repeat while n != 0.
func chunkEnd(dst []Instr) []Instr {
	return append(dst,
		Indexed(OpLocalGet, bulkN), Indexed(OpLocalGet, bulkC), Simple(OpI32Sub), Indexed(OpLocalTee, bulkN),
		Indexed(OpBrIf, 0),
		Simple(OpEnd), // loop
		Simple(OpEnd)) // function
}

// advance adds local c to local p.
func advance(dst []Instr, p uint32) []Instr {
	return append(dst, Indexed(OpLocalGet, p), Indexed(OpLocalGet, bulkC), Simple(OpI32Add), Indexed(OpLocalSet, p))
}

// bulkCopyBody is the body of the chunked memory.copy helper
// (d, s, n i32; tmp i64; c i32). When d > s it copies from the end, like
// memmove, so overlapping ranges are copied correctly.
func bulkCopyBody(ch charger) []Instr {
	b := boundsCheck(nil, bulkD)
	b = boundsCheck(b, bulkS)
	b = chunkStart(b, ch)
	b = append(b,
		Indexed(OpLocalGet, bulkD), Indexed(OpLocalGet, bulkS), Simple(OpI32GtU),
		BlockInstr(OpIf, BlockEmpty),
		// Backward: the last c bytes of what remains.
		Indexed(OpLocalGet, bulkD), Indexed(OpLocalGet, bulkN), Simple(OpI32Add), Indexed(OpLocalGet, bulkC), Simple(OpI32Sub),
		Indexed(OpLocalGet, bulkS), Indexed(OpLocalGet, bulkN), Simple(OpI32Add), Indexed(OpLocalGet, bulkC), Simple(OpI32Sub),
		Indexed(OpLocalGet, bulkC), Simple(OpMemoryCopy),
		Simple(OpElse),
		Indexed(OpLocalGet, bulkD), Indexed(OpLocalGet, bulkS), Indexed(OpLocalGet, bulkC), Simple(OpMemoryCopy))
	b = advance(b, bulkD)
	b = advance(b, bulkS)
	b = append(b, Simple(OpEnd))
	return chunkEnd(b)
}

// bulkFillBody is the body of the chunked memory.fill helper
// (d, value, n i32; tmp i64; c i32).
func bulkFillBody(ch charger) []Instr {
	b := boundsCheck(nil, bulkD)
	b = chunkStart(b, ch)
	b = append(b, Indexed(OpLocalGet, bulkD), Indexed(OpLocalGet, bulkS), Indexed(OpLocalGet, bulkC), Simple(OpMemoryFill))
	b = advance(b, bulkD)
	return chunkEnd(b)
}
