package runtime

import (
	"context"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/serialize"
)

// The run is the quickjs.Host of its instance. Every operand that comes from
// the guest is checked here: a program can reach the raw host function with
// made-up operands, and must get nothing from it that the prelude could not.

var (
	_ quickjs.Host         = (*run)(nil)
	_ quickjs.StackWatcher = (*run)(nil)
)

// Call dispatches a host operation from the prelude.
func (r *run) Call(in *quickjs.Instance, args []quickjs.Value) quickjs.Value {
	if r.halted != haltNone {
		// The guest was asked to unwind and is still running: code that
		// QuickJS lets run on after its uncatchable error (a promise
		// executor's caller, a thenable job's rejection handlers) gets
		// nothing out of the host.
		r.force()
	}
	if len(args) == 0 {
		return quickjs.Int(-1)
	}
	op, ok := intArg(args[0])
	if !ok {
		return quickjs.Int(-1)
	}
	switch op {
	case hostcalls.OpLog:
		if len(args) == 3 && args[2].IsString() && !r.ViewText(args[2], r.log) {
			panic(errEnded)
		}
	case hostcalls.OpCall:
		if len(args) == 4 {
			return quickjs.Int(r.startCall(args[1], args[2], args[3], false))
		}
	case hostcalls.OpCallValue:
		if len(args) == 4 {
			return quickjs.Int(r.startCall(args[1], args[2], args[3], true))
		}
	case hostcalls.OpTimer:
		if len(args) == 2 {
			return quickjs.Int(r.setTimer(args[1]))
		}
		if len(args) == 3 { // an interval's next round (timers.go)
			return quickjs.Int(r.rearmTimer(args[1], args[2]))
		}
	case hostcalls.OpClear:
		if len(args) == 2 {
			if id, ok := intArg(args[1]); ok {
				r.timers.clear(int32(id))
			}
		}
	case hostcalls.OpDone:
		if len(args) == 3 && args[2].IsString() {
			if kind, ok := intArg(args[1]); ok {
				r.done(kind, args[2])
			}
		}
	case hostcalls.OpDoneValue:
		if len(args) == 2 {
			return quickjs.Int(r.doneInPlace(args[1]))
		}
		return quickjs.Int(hostcalls.CallNeedsText)
	default:
		return r.query(op, args)
	}
	return quickjs.Int(0)
}

// query answers the host operations that return data to the prelude
// (Call's other operations): a refusal's figure, a position in the
// program, a web group or random bytes, a time zone's offset, a replay's
// divergence.
func (r *run) query(op int, args []quickjs.Value) quickjs.Value {
	switch op {
	case hostcalls.OpRefusal:
		if len(args) == 2 {
			if which, ok := intArg(args[1]); ok {
				return quickjs.Float64(float64(r.calls.Refusal(which)))
			}
		}
	case hostcalls.OpPosition:
		if len(args) == 3 {
			return r.userPosition(args[1], args[2])
		}
		return quickjs.Int(-1)
	case hostcalls.OpWeb, hostcalls.OpRandom: // web.go
		if n, ok := intArg(args[len(args)-1]); ok && len(args) == 2 {
			if op == hostcalls.OpWeb {
				return r.webGroup(n)
			}
			return r.randomHex(n)
		}
		return quickjs.Undefined
	case hostcalls.OpTimeZone: // timezone.go
		if len(args) == 3 {
			return r.zoneOffset(args[1], args[2])
		}
		return quickjs.Undefined
	case hostcalls.OpDiverged: // replay.go
		return r.diverged()
	}
	return quickjs.Int(0)
}

// StackLow implements quickjs.StackWatcher: the guest's stack went below
// the mark. It charges the native stack the new depth needs, or ends the
// run when the guest went deeper than the account covers and no more fits.
func (r *run) StackLow(in *quickjs.Instance, sp uint32) uint32 {
	if r.gmem == nil || r.gmem.in != in {
		return 0
	}
	mark, ok := r.gmem.low(sp)
	if !ok {
		if r.gmem.full() {
			r.stopFor(BudgetStack, stackMessage)
		}
		r.stopFor(BudgetMemory, budget.MemoryMessage(r.limits.MemoryBytes))
	}
	return mark
}

func intArg(v quickjs.Value) (int, bool) {
	f, ok := v.Number()
	if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

func (r *run) viewString(v quickjs.Value, f func([]byte)) {
	if err := r.in.ViewString(v, f); err != nil {
		panic(err)
	}
}

// log appends one entry through the output ledger; the first entry that does
// not fit ends the run at once, as does one that does not fit in the run's
// memory.
func (r *run) log(b []byte) {
	if r.ended {
		panic(errEnded)
	}
	text, fit := r.ledger.ChargeLog(b)
	if fit != serialize.FitNone {
		r.keepLog(text, b)
		if r.onLog != nil {
			r.notifyLog()
		}
		if r.rp != nil {
			r.rp.logStop(r, r.logs.n)
		}
	}
	if fit != serialize.FitWhole {
		r.stopFor(BudgetOutput, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
	}
}

// keepLog keeps the text of the log entry b (see serialize.LogText), a view of the guest's
// memory, in the run's log store; a long one is copied in pieces (see textPiece). It ends the run
// when the text does not fit in the run's memory, or when the run must stop meanwhile.
func (r *run) keepLog(text serialize.LogText, b []byte) {
	n := text.Len(b)
	dst, ok := r.logs.room(n)
	if !ok {
		r.stopFor(BudgetMemory, budget.MemoryMessage(r.limits.MemoryBytes))
	}
	if n < logLongEntry {
		dst = text.AppendTo(dst, b)
		r.logs.keep(unsafe.String(unsafe.SliceData(dst), len(dst)))
		return
	}
	long := newTextBuilder(n)
	var scratch []byte // for the parts of a text that has characters to replace
	for from := 0; from < text.Bytes(); {
		if from > 0 && r.Pace() {
			panic(errEnded)
		}
		to := text.PartEnd(b, from+textPiece)
		if text.Clean() {
			long.write(b[from:to])
		} else {
			scratch = text.AppendPart(scratch[:0], b, from, to)
			long.write(scratch)
		}
		from = to
	}
	r.logs.keep(long.string())
}

// notifyLog hands the entry just kept to the OnLog hook. A panic in the
// hook ends the run as a worker exit that blames the host.
func (r *run) notifyLog() {
	defer func() {
		if p := recover(); p != nil {
			r.stopPlace = StopAtLog
			r.stopFor(BudgetHost, fmt.Sprintf(onLogPanicMessage, p))
		}
	}()
	r.onLog(r.logs.last())
}

func (r *run) done(kind int, payload quickjs.Value) {
	switch kind {
	case hostcalls.DoneValue:
		if !r.ViewText(payload, r.settleText) {
			panic(errEnded)
		}
	case hostcalls.DoneNone:
		r.end("", "")
	case hostcalls.DoneThrow:
		if viewed, err := r.endThrown(payload); err != nil {
			panic(err)
		} else if !viewed {
			panic(errEnded)
		}
	case hostcalls.DoneInvalid:
		r.end(KindInvalidOutput, "program completion must be lossless JSON")
	case hostcalls.DoneUnrenderable:
		r.end(KindException, "program threw an unrenderable value")
	}
}

// settleText ends the run with the completion value b, a view of the
// compact JSON text of the program's value printed by the guest, if the
// output ledger has room for it and the run's memory for a copy, which is
// made in pieces (see textPiece).
func (r *run) settleText(b []byte) {
	if !r.ledger.FitsValue(int64(len(b))) {
		r.exhaust(BudgetOutput, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
		return
	}
	if !r.mem.Charge(int64(len(b))) {
		r.exhaust(BudgetMemory, budget.MemoryMessage(r.limits.MemoryBytes))
		return
	}
	r.valueCharge = int64(len(b))
	v := r.CopyText(b)
	if v == nil {
		return // the run ended while copying
	}
	// Go checks the text whatever printed it: the guest's printer is the
	// program's to tamper with (a proxy, a changed intrinsic), Go's check
	// is not. A value may hold what an argument may not: integers beyond
	// 2^53 and lone surrogates, which JavaScript reads back exactly.
	if err := r.checkValueText(v); err != nil {
		if err != errPaused {
			r.end(KindInvalidOutput, "program completion must be lossless JSON")
		}
		return
	}
	r.settleValue(v)
}

// settleValue ends the run with the completion value b, the compact JSON
// text of the program's value, which the host owns and has charged to the
// run's memory.
func (r *run) settleValue(b []byte) {
	r.value = b
	r.end("", "")
}

// maxValueInPlace bounds the text of a program's value that the host reads
// in place (see doneInPlace), as it does a binding call's argument.
const maxValueInPlace = hostcalls.MaxValueInPlace

// doneInPlace settles the run with the program's value v if
// quickjs.AppendPlainJSONUpTo can read it within maxValueInPlace bytes and
// it passes Go's checks, and
// returns 0; otherwise it returns hostcalls.CallNeedsText, and the guest checks and
// prints v itself. Plain values print alike on both paths; the guest alone
// decides what is not lossless JSON.
func (r *run) doneInPlace(v quickjs.Value) int32 {
	if r.ended {
		return hostcalls.CallNeedsText
	}
	b, ok := r.in.AppendPlainJSONUpTo(nil, v, maxValueInPlace)
	if !ok || serialize.CheckJSON(b) != nil {
		return hostcalls.CallNeedsText
	}
	if !r.ledger.FitsValue(int64(len(b))) {
		r.exhaust(BudgetOutput, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
		return 0
	}
	if !r.mem.Charge(int64(cap(b))) {
		r.exhaust(BudgetMemory, budget.MemoryMessage(r.limits.MemoryBytes))
		return 0
	}
	r.valueCharge = int64(cap(b))
	r.settleValue(b)
	return 0
}

// startCall hands a binding call's operands to the run's calls (see
// hostcalls.Calls.Start) and returns its result: the call id or a refusal's
// code. The call starts when the guest yields (see wait) or, if the guest
// keeps computing, at its next fuel yield.
func (r *run) startCall(nsArg, memberArg, argsArg quickjs.Value, inPlace bool) int32 {
	ns, ok1 := intArg(nsArg)
	m, ok2 := intArg(memberArg)
	if !ok1 || !ok2 {
		return hostcalls.CallRefused
	}
	id := r.calls.Start(ns, m, argsArg, inPlace)
	if id == hostcalls.CallInterrupted {
		panic(errEnded)
	}
	if id > 0 {
		switch {
		case r.rec != nil:
			r.rec.called(id)
		case r.rp != nil:
			r.rp.called(id)
		}
	}
	return id
}

// Write captures a guest write to stdout or stderr as one log entry.
func (r *run) Write(fd uint32, p []byte) { r.log(p) }

// Sleep waits in the host for a sleep of the C library; the wait counts as
// wall time, not compute time, and ends early when the run must stop.
func (r *run) Sleep(d time.Duration) {
	if r.ended {
		panic(errEnded) // the outcome is decided: nothing left to wait for
	}
	if r.rp != nil {
		return // a replay does not wait
	}
	r.calls.LaunchPending()
	now := time.Now()
	r.meter.Exit(now)
	defer r.meter.Enter(time.Now())
	t := time.NewTimer(d)
	defer t.Stop()
	wall := time.NewTimer(time.Until(r.meter.WallDeadline()))
	defer wall.Stop()
	select {
	case <-t.C:
	case <-r.ctx.Done():
		r.stop(KindAbort, context.Cause(r.ctx).Error())
	case <-r.e.closing:
		r.stop(KindAbort, "runtime disposed")
	case <-wall.C:
		r.stopFor(BudgetWall, budget.WallMessage(r.limits.WallTime))
	}
}

// Exit records that the guest called proc_exit.
func (r *run) Exit(code uint32) {
	r.exhaust(BudgetEngine, exitMessage(code))
}

// FuelYield refills the guest's fuel slice, or ends the run when a budget
// ran out, the caller's ctx is done or the engine is closing. It is the
// guest's preemption point.
func (r *run) FuelYield(in *quickjs.Instance, left int64) int64 {
	if r.ended {
		// The program settled, or this is the guest coming back after it
		// was asked to unwind: what it left running is dropped.
		return r.halt(in, left)
	}
	select {
	case <-r.ctx.Done():
		r.end(KindAbort, context.Cause(r.ctx).Error())
		return r.halt(in, left)
	case <-r.e.closing:
		r.end(KindAbort, "runtime disposed")
		return r.halt(in, left)
	default:
	}
	if r.calls.Goexited() {
		r.exhaust(BudgetHost, goexitMessage)
		return r.halt(in, left)
	}
	if r.calls.HasPending() {
		r.calls.LaunchPending() // the guest is busy: its calls must not wait for it
	}
	next, trip := r.meter.Refill(left, time.Now())
	if trip == budget.TripStop && r.rp != nil {
		r.rp.stopNow(r)
		return r.halt(in, left)
	}
	if trip != budget.None {
		r.exhaustTrip(trip)
		return r.halt(in, left)
	}
	return next
}

// Ways a run's guest was stopped once the outcome was decided (run.halted).
const (
	haltNone        = iota
	haltAsked       // asked to unwind itself (quickjs.Instance.Interrupt), and did
	haltForced      // ended by a panic through wazero
	haltAskedForced // asked, then ended by a panic before it unwound
)

// haltSlice is the fuel the guest gets to unwind once it was asked to: the
// interrupt handler returns at once, and the throw and the unwinding of the
// JavaScript frames take about a hundred units. More means C code the
// unwinding set off (freeing a big array a frame held) or code QuickJS let
// run on, which the panic then cuts short. It is less than one interrupt
// poll's charge, so the guest's next poll yields again.
const haltSlice = 1024

// halt stops the guest of a run whose outcome is decided; left is the
// balance the guest yielded with. When the guest is running JavaScript, it
// asks the guest to unwind itself (quickjs.Instance.Interrupt): at its next
// interrupt poll the handler returns non-zero, QuickJS throws its
// uncatchable "interrupted" error, which skips every catch and finally
// block, and the call into the instance returns normally. That spares the
// way out by a panic through wazero, which recovers it and builds a wasm
// stack trace of every frame. When the yield is not the poll's own
// (budget.PollYield) but a C loop's (the interpreter's own loops are
// charged too, one per call of a recursion), the guest's interrupt counter
// is zeroed as a cancel's nudge does, so that it polls at its next call,
// and the slice it gets also covers that poll's charge.
// When the guest yields again (it did not unwind within haltSlice: C code
// that polls no interrupts, or code QuickJS let run on after the throw), or
// cannot be asked, it panics with errEnded, as before.
func (r *run) halt(in *quickjs.Instance, left int64) int64 {
	if r.halted == haltNone && !r.e.hooks.noInterrupt && in.Interrupt() {
		r.halted = haltAsked
		if !budget.PollYield(left) && r.e.interruptCounter != 0 {
			in.StoreContextU32(r.e.interruptCounter, 0)
			return haltSlice + budget.InterruptCost // the poll's own charge comes out of it
		}
		return haltSlice
	}
	r.force()
	return 0
}

// force ends the guest of a run whose outcome is decided by a panic.
func (r *run) force() {
	if r.halted == haltAsked {
		r.halted = haltAskedForced
	} else {
		r.halted = haltForced
	}
	panic(errEnded)
}
