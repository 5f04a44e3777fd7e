package runtime

import (
	"context"
	"encoding/json"
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
		if len(args) == 3 && args[2].IsString() && !r.viewText(args[2], r.log) {
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
	case hostcalls.OpRefusal:
		if len(args) == 2 {
			if which, ok := intArg(args[1]); ok {
				return r.refusalFigure(which)
			}
		}
	case hostcalls.OpPosition:
		if len(args) == 3 {
			return r.userPosition(args[1], args[2])
		}
		return quickjs.Int(-1)
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
			r.stop(KindWorkerExit, "worker error: the guest's C stack overflowed")
		}
		r.stop(KindWorkerExit, r.mem.Exceeded())
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
	}
	if fit != serialize.FitWhole {
		r.stop(KindOutputLimit, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
	}
}

// keepLog keeps the text of the log entry b (see serialize.LogText), a view of the guest's
// memory, in the run's log store; a long one is copied in pieces (see textPiece). It ends the run
// when the text does not fit in the run's memory, or when the run must stop meanwhile.
func (r *run) keepLog(text serialize.LogText, b []byte) {
	n := text.Len(b)
	dst, ok := r.logs.room(n)
	if !ok {
		r.stop(KindWorkerExit, r.mem.Exceeded())
	}
	if n < logLongEntry {
		dst = text.AppendTo(dst, b)
		r.logs.keep(unsafe.String(unsafe.SliceData(dst), len(dst)))
		return
	}
	long := newTextBuilder(n)
	var scratch []byte // for the parts of a text that has characters to replace
	for from := 0; from < text.Bytes(); {
		if from > 0 && r.pace() {
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
			r.stop(KindWorkerExit, fmt.Sprintf(onLogPanicMessage, p))
		}
	}()
	r.onLog(r.logs.last())
}

func (r *run) done(kind int, payload quickjs.Value) {
	switch kind {
	case hostcalls.DoneValue:
		if !r.viewText(payload, r.settleText) {
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
		r.end(KindOutputLimit, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
		return
	}
	if !r.mem.Charge(int64(len(b))) {
		r.end(KindWorkerExit, r.mem.Exceeded())
		return
	}
	r.valueCharge = int64(len(b))
	v := r.copyText(b)
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

// maxValueInPlace bounds the text of a program's value, and of a binding
// call's argument, that the host reads in place (see doneInPlace and
// startCall): larger values go to the guest's printer, which spends fuel
// and can be interrupted, so that no run's end holds the host for more
// than about a millisecond.
const maxValueInPlace = 256 << 10

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
		r.end(KindOutputLimit, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
		return 0
	}
	if !r.mem.Charge(int64(cap(b))) {
		r.end(KindWorkerExit, r.mem.Exceeded())
		return 0
	}
	r.valueCharge = int64(cap(b))
	r.settleValue(b)
	return 0
}

// callCost is what the run's memory is charged for a call besides its
// argument and result: the call's record, its completion, and a rejection
// message of the host's making.
const callCost = 256

// refusal holds the figures of the last hostcalls.CallTooBig or hostcalls.CallNoMemory.
type refusal struct{ bytes, limit int64 }

// startCall validates a binding call and records it as pending; it starts
// when the guest yields (see wait) or, if the guest keeps computing, at its
// next fuel yield. The arguments are JSON text, or, when inPlace is set, the
// value itself, which is printed here if quickjs.AppendPlainJSONUpTo can
// read it within maxValueInPlace bytes. It returns the call id or one of the
// results above.
//
// The host's copy of the arguments is charged to the run's memory from the
// moment it is made until the call returns, before which it is checked
// against MaxArgumentBytes; a call whose copy is too big or does not fit
// is refused, and the guest rejects it with a message naming the limit.
// Big texts are copied and checked in pieces (see textPiece).
func (r *run) startCall(nsArg, memberArg, argsArg quickjs.Value, inPlace bool) int32 {
	ns, ok1 := intArg(nsArg)
	m, ok2 := intArg(memberArg)
	if !ok1 || !ok2 || ns < 0 || ns >= len(r.members) || m < 0 || m >= len(r.members[ns]) {
		return hostcalls.CallRefused
	}
	member := r.members[ns][m]
	fn := r.bindings[ns].Functions[member]
	if fn == nil {
		return hostcalls.CallRefused
	}
	if !inPlace && !argsArg.IsString() {
		return hostcalls.CallRefused
	}
	var args []byte
	if inPlace {
		var ok bool
		if args, ok = r.in.AppendPlainJSONUpTo(nil, argsArg, maxValueInPlace); !ok {
			return hostcalls.CallNeedsText
		}
		if code := r.admitArgument(len(args), cap(args)); code != 0 {
			return code
		}
		// Also for text printed here: Go's rules for arguments are stricter
		// than the guest's (no lone surrogate, no number beyond 2^53).
		if serialize.CheckJSON(args) != nil {
			r.mem.Release(callCost + int64(cap(args)))
			return hostcalls.CallRefused
		}
	} else {
		code := int32(0)
		viewed := r.viewText(argsArg, func(b []byte) { args, code = r.readArgument(b) })
		if !viewed || code == hostcalls.CallInterrupted {
			panic(errEnded)
		}
		if code != 0 {
			return code
		}
	}
	c := &call{id: r.newCallID(), fn: fn, args: args, member: member}
	r.calls++
	r.pending = append(r.pending, c)
	return c.id
}

// readArgument admits and copies the argument text b, a view of the
// guest's memory, and checks the copy. On a refusal it returns its code and
// keeps nothing charged; hostcalls.CallInterrupted if the run ended meanwhile.
func (r *run) readArgument(b []byte) ([]byte, int32) {
	if code := r.admitArgument(len(b), len(b)); code != 0 {
		return nil, code
	}
	args := r.copyText(b)
	if args == nil {
		return nil, hostcalls.CallInterrupted
	}
	switch err := r.checkText(args); err {
	case nil:
		return args, 0
	case errPaused:
		return nil, hostcalls.CallInterrupted
	}
	r.mem.Release(callCost + int64(len(b)))
	return nil, hostcalls.CallRefused
}

// admitArgument checks an argument whose text is n bytes against
// MaxArgumentBytes, and charges the run's memory for a call whose copy of
// it holds size bytes. It returns 0, or the refusal's code.
func (r *run) admitArgument(n, size int) int32 {
	if int64(n) > r.limits.MaxArgumentBytes {
		r.refused = refusal{bytes: int64(n), limit: r.limits.MaxArgumentBytes}
		return hostcalls.CallTooBig
	}
	if !r.mem.Charge(callCost + int64(size)) {
		r.refused = refusal{bytes: int64(n), limit: r.mem.Limit()}
		return hostcalls.CallNoMemory
	}
	return 0
}

// refusalFigure returns a figure of the last refusal for the guest's
// message: its bytes (which 0) or the limit it broke (which 1).
func (r *run) refusalFigure(which int) quickjs.Value {
	f := r.refused.bytes
	if which == 1 {
		f = r.refused.limit
	}
	return quickjs.Float64(float64(f))
}

// launchPending starts the calls the guest made since it last yielded, in
// the order it made them, or queues those past MaxConcurrentCalls.
func (r *run) launchPending() {
	for i, c := range r.pending {
		r.pending[i] = nil
		if r.inflight < r.limits.MaxConcurrentCalls {
			r.launch(c)
		} else {
			r.queue = append(r.queue, c)
		}
	}
	r.pending = r.pending[:0]
}

// newCallID returns a call id not in use: the one freed last, or else the
// next new one (ids start at 1). Ids therefore never exceed the most calls
// ever pending at once, and the guest keeps its pending calls in dense arrays.
func (r *run) newCallID() int32 {
	if n := len(r.freeIDs); n > 0 {
		id := r.freeIDs[n-1]
		r.freeIDs = r.freeIDs[:n-1]
		return id
	}
	r.callIDs++
	return r.callIDs
}

func (r *run) startQueued() {
	for len(r.queue) > 0 && r.inflight < r.limits.MaxConcurrentCalls {
		c := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		r.launch(c)
	}
}

// launch runs a host function on its own goroutine with the Run ctx. Its
// result is handed to the run loop, or dropped if the run has settled. A
// function that calls runtime.Goexit ends the run as a worker exit: the
// goroutine's deferred hand-off marks the run and wakes its loop.
func (r *run) launch(c *call) {
	r.inflight++
	if r.events == nil { // the first call on a goroutine of its own: most runs make none
		r.events, r.finished = make(chan event, 64), make(chan struct{})
	}
	ctx, events, finished, goexited, mem := r.ctx, r.events, r.finished, &r.goexited, r.mem
	go func() {
		var ev event
		returned := false
		defer func() {
			if !returned { // runtime.Goexit: invoke recovers every panic
				goexited.Store(true)
				ev = event{id: c.id, kind: hostcalls.EvGoexit}
			}
			select {
			case events <- ev:
			case <-finished:
				mem.Release(ev.charge) // the run is over: the result is dropped
			}
		}()
		ev = invoke(ctx, c, mem)
		returned = true
	}()
}

// invoke makes the call. From then on the run's memory is charged for the
// result instead of the argument, until the result is delivered (see
// wait); a result that does not fit becomes a rejection that says so.
func invoke(ctx context.Context, c *call, mem *budget.Memory) (ev event) {
	ev.id = c.id
	defer func() {
		if p := recover(); p != nil {
			ev.kind = hostcalls.EvReject
			ev.payload = jsonString(fmt.Sprintf("binding %q panicked: %v", c.member, p))
		}
		mem.Release(int64(cap(c.args)))
		c.args = nil
		ev.charge = callCost
		if n := int64(len(ev.payload)); !mem.Charge(n) {
			ev.kind = hostcalls.EvReject
			ev.payload = jsonString(mem.NoRoom("binding result", n))
		} else {
			ev.charge += n
		}
	}()
	res, err := c.fn(ctx, c.args)
	if err != nil {
		ev.kind, ev.payload = hostcalls.EvReject, jsonString(err.Error())
		return ev
	}
	// The run's goroutine checks res (see checkResult): CheckJSON's frame
	// would make this fresh goroutine grow its stack on every call.
	ev.kind, ev.payload = hostcalls.EvResolve, res
	return ev
}

// checkResult turns a resolution that is not lossless JSON into a
// rejection; a big one is checked in pieces, and the run may end
// meanwhile.
func (r *run) checkResult(ev *event) {
	if ev.kind != hostcalls.EvResolve {
		return
	}
	if ev.payload == nil {
		ev.kind, ev.payload = hostcalls.EvReject, jsonString("binding resolution must be lossless JSON")
		return
	}
	switch err := r.checkText(ev.payload); err {
	case nil, errPaused:
	default:
		ev.kind, ev.payload = hostcalls.EvReject, jsonString("binding resolution must be lossless JSON")
	}
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// Write captures a guest write to stdout or stderr as one log entry.
func (r *run) Write(fd uint32, p []byte) { r.log(p) }

// Sleep waits in the host for a sleep of the C library; the wait counts as
// wall time, not compute time, and ends early when the run must stop.
func (r *run) Sleep(d time.Duration) {
	if r.ended {
		panic(errEnded) // the outcome is decided: nothing left to wait for
	}
	r.launchPending()
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
		r.stop(KindTimeout, budget.WallMessage(r.limits.WallTime))
	}
}

// Exit records that the guest called proc_exit.
func (r *run) Exit(code uint32) {
	r.end(KindWorkerExit, fmt.Sprintf("worker error: the program exited with code %d", code))
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
	if r.goexited.Load() {
		r.end(KindWorkerExit, goexitMessage)
		return r.halt(in, left)
	}
	if len(r.pending) > 0 {
		r.launchPending() // the guest is busy: its calls must not wait for it
	}
	next, trip := r.meter.Refill(left, time.Now())
	if trip != budget.None {
		r.end(KindTimeout, r.meter.Message(trip))
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
