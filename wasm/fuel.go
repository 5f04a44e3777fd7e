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

// FuelConfig configures Fuel. The zero value selects the defaults for the
// pinned QuickJS-NG module.
type FuelConfig struct {
	// LoopCost is charged at the top of every instrumented loop iteration.
	// Zero means 1.
	LoopCost int64
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
//   - at the top of every loop body, cfg.LoopCost, except in the functions
//     in cfg.SkipLoops (by default the interpreter's dispatch loop);
//   - in the interrupt handler, whose body is replaced by a charge of
//     cfg.InterruptCost and "return 0". QuickJS calls it from the
//     interpreter when JSRuntime.interrupt_handler is set (the runtime sets
//     it to QuickJSInterruptTableIndex), so JavaScript is charged and
//     preempted there while C loops are charged at their headers;
//   - before every memory.copy and memory.fill, len >> BulkMemoryShift
//     (one unit per 4 KiB), so big copies pay for their length.
//
// Host-side semantics. The global starts at 0, so the first charge yields.
// fuel_yield(left) is called with the negative balance. It either returns
// the new balance (a refill; it should be positive) or aborts the run by
// panicking, which wazero turns into an error of the exported call in
// progress (the instance must then be discarded). Fuel used is the sum over
// refills of (given - left), plus (last given - final global value) at the
// end. It is a deterministic function of the program and the instance's
// state: the same program in a fresh instance uses the same fuel whatever
// the refill sizes, since only the points where yields happen depend on
// them. A fuel unit is one loop iteration in C code (with the defaults),
// 1/10,000 of the interpreter's interrupt period, or 4 KiB of bulk memory
// traffic. Every yield is also a host call, hence a point where the Go
// scheduler and garbage collector can stop the goroutine.
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
	var handler *Code
	if cfg.InterruptHandler != NoInterruptHandler {
		t, ok := m.FuncType(cfg.InterruptHandler)
		if !ok || m.Body(cfg.InterruptHandler) == nil {
			return fmt.Errorf("interrupt handler %d is not a defined function", cfg.InterruptHandler)
		}
		want := FuncType{Params: []ValType{I32, I32}, Results: []ValType{I32}}
		if !t.Equal(want) {
			return fmt.Errorf("interrupt handler %d has type %v, want (i32, i32) -> i32", cfg.InterruptHandler, t)
		}
		handler = m.Body(cfg.InterruptHandler)
	}
	for _, f := range cfg.SkipLoops {
		if m.Body(f) == nil {
			return fmt.Errorf("skipped function %d is not a defined function", f)
		}
	}

	yield := m.insertFuncImport(FuelImportModule, FuelImportName, FuncType{Params: []ValType{I64}, Results: []ValType{I64}})
	g := m.addGlobal(Global{Type: GlobalType{ValType: I64, Mutable: true}, Init: []Instr{I64Const(0), Simple(OpEnd)}})
	if err := m.addExport(Export{Name: FuelGlobalExport, Kind: ExternGlobal, Index: g}); err != nil {
		return err
	}
	ch := charger{fuel: g, yield: yield}

	// Defined function i now has absolute index imported+1+i.
	for i := range m.Code {
		c := &m.Code[i]
		if c == handler {
			continue
		}
		orig := imported + uint32(i)
		loops := !slices.Contains(cfg.SkipLoops, orig)
		if !needsFuel(c.Body, loops) {
			continue
		}
		if err := instrument(m, orig+1, loops, cfg.LoopCost, ch); err != nil {
			return err
		}
	}
	if handler != nil {
		*handler = Code{
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

// instrument inserts the charges into the defined function with absolute
// index idx.
func instrument(m *Module, idx uint32, loops bool, loopCost int64, ch charger) error {
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
	out := make([]Instr, 0, len(c.Body)+len(c.Body)/8)
	for _, in := range c.Body {
		switch {
		case in.Op == OpLoop && loops:
			out = append(out, in)
			out = ch.charge(out, tmp, I64Const(loopCost))
		case in.Op == OpMemoryCopy || in.Op == OpMemoryFill:
			// dst, src|value, len are on the stack.
			out = append(out, Indexed(OpLocalSet, ops[2]), Indexed(OpLocalSet, ops[1]), Indexed(OpLocalSet, ops[0]))
			out = ch.charge(out, tmp,
				Indexed(OpLocalGet, ops[2]),
				Simple(OpI64ExtendI32U),
				I64Const(BulkMemoryShift),
				Simple(OpI64ShrU))
			out = append(out, Indexed(OpLocalGet, ops[0]), Indexed(OpLocalGet, ops[1]), Indexed(OpLocalGet, ops[2]), in)
		default:
			out = append(out, in)
		}
	}
	c.Body = out
	return nil
}
