package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/runtime/quickjs"
	"github.com/coderun/coderun/serialize"
)

// The run is the quickjs.Host of its instance. Every operand that comes from
// the guest is checked here: a program can reach the raw host function with
// made-up operands, and must get nothing from it that the prelude could not.

var _ quickjs.Host = (*run)(nil)

// Call dispatches a host operation from the prelude.
func (r *run) Call(in *quickjs.Instance, args []quickjs.Value) quickjs.Value {
	if len(args) == 0 {
		return quickjs.Int(-1)
	}
	op, ok := intArg(args[0])
	if !ok {
		return quickjs.Int(-1)
	}
	switch op {
	case opLog:
		if len(args) == 3 && args[2].Tag() == quickjs.TagString {
			r.viewString(args[2], r.log)
		}
	case opCall:
		if len(args) == 4 {
			return quickjs.Int(r.startCall(args[1], args[2], args[3], false))
		}
	case opCallValue:
		if len(args) == 4 {
			return quickjs.Int(r.startCall(args[1], args[2], args[3], true))
		}
	case opTimer:
		if len(args) == 2 {
			return quickjs.Int(r.setTimer(args[1]))
		}
	case opClear:
		if len(args) == 2 {
			if id, ok := intArg(args[1]); ok {
				r.timers.clear(int32(id))
			}
		}
	case opDone:
		if len(args) == 3 && args[2].Tag() == quickjs.TagString {
			if kind, ok := intArg(args[1]); ok {
				r.done(kind, args[2])
			}
		}
	case opDoneValue:
		if len(args) == 2 {
			return quickjs.Int(r.doneInPlace(args[1]))
		}
		return quickjs.Int(callNeedsText)
	}
	return quickjs.Int(0)
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
// not fit ends the run at once.
func (r *run) log(b []byte) {
	if r.ended {
		panic(errEnded)
	}
	text, fit := r.ledger.AddLog(b)
	if fit != serialize.FitNone {
		r.logs = append(r.logs, text)
	}
	if fit != serialize.FitWhole {
		r.stop(KindOutputLimit, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
	}
}

func (r *run) done(kind int, payload quickjs.Value) {
	switch kind {
	case doneValue:
		r.viewString(payload, func(b []byte) { r.settleValue(b, false) })
	case doneNone:
		r.end("", "")
	case doneThrow:
		var text string
		r.viewString(payload, func(b []byte) { text = string(b) })
		r.end(KindException, r.renderStack(text))
	case doneInvalid:
		r.end(KindInvalidOutput, "program completion must be lossless JSON")
	case doneUnrenderable:
		r.end(KindException, "program threw an unrenderable value")
	}
}

// settleValue ends the run with the completion value b, the compact JSON
// text of the program's value, if the output ledger has room for it. It
// keeps b itself when owned is set, else a copy (b is a view of the
// guest's memory).
func (r *run) settleValue(b []byte, owned bool) {
	if !r.ledger.FitsValue(int64(len(b))) {
		r.end(KindOutputLimit, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
		return
	}
	if !owned {
		b = append([]byte(nil), b...)
	}
	r.value = b
	r.end("", "")
}

// maxValueInPlace bounds the text of a program's value that the host reads
// in place (see doneInPlace): larger values go to the guest's printer,
// which spends fuel and can be interrupted, so that no run's end holds the
// host for more than about a millisecond.
const maxValueInPlace = 256 << 10

// doneInPlace settles the run with the program's value v if
// quickjs.AppendPlainJSONUpTo can read it within maxValueInPlace bytes and
// it passes Go's checks, and
// returns 0; otherwise it returns callNeedsText, and the guest checks and
// prints v itself. Plain values print alike on both paths; the guest alone
// decides what is not lossless JSON.
func (r *run) doneInPlace(v quickjs.Value) int32 {
	if r.ended {
		return callNeedsText
	}
	b, ok := r.in.AppendPlainJSONUpTo(nil, v, maxValueInPlace)
	if !ok || serialize.CheckJSON(b) != nil {
		return callNeedsText
	}
	r.settleValue(b, true)
	return 0
}

// Results of startCall besides a call id.
const (
	callRefused   = -1 // not a valid call: the guest rejects it
	callNeedsText = -2 // the value is not read in place: print it and call again
)

// startCall validates a binding call and records it as pending; it starts
// when the guest yields (see wait) or, if the guest keeps computing, at its
// next fuel yield. The arguments are JSON text, or, when inPlace is set, the
// value itself, which is printed here if quickjs.AppendPlainJSON can read it.
// It returns the call id, callRefused or callNeedsText.
func (r *run) startCall(nsArg, memberArg, argsArg quickjs.Value, inPlace bool) int32 {
	ns, ok1 := intArg(nsArg)
	m, ok2 := intArg(memberArg)
	if !ok1 || !ok2 || ns < 0 || ns >= len(r.members) || m < 0 || m >= len(r.members[ns]) {
		return callRefused
	}
	member := r.members[ns][m]
	fn := r.bindings[ns].Functions[member]
	if fn == nil {
		return callRefused
	}
	if !inPlace && argsArg.Tag() != quickjs.TagString {
		return callRefused
	}
	var args []byte
	if inPlace {
		var ok bool
		if args, ok = r.in.AppendPlainJSON(nil, argsArg); !ok {
			return callNeedsText
		}
	} else {
		r.viewString(argsArg, func(b []byte) { args = append([]byte(nil), b...) })
	}
	// Also for text printed here: Go's rules for arguments are stricter
	// than the guest's (no lone surrogate, no number beyond 2^53).
	if serialize.CheckJSON(args) != nil {
		return callRefused
	}
	c := &call{id: r.newCallID(), fn: fn, args: args, member: member}
	r.pending = append(r.pending, c)
	return c.id
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
	ctx, events, finished, goexited := r.ctx, r.events, r.finished, &r.goexited
	go func() {
		var ev event
		returned := false
		defer func() {
			if !returned { // runtime.Goexit: invoke recovers every panic
				goexited.Store(true)
				ev = event{id: c.id, kind: evGoexit}
			}
			select {
			case events <- ev:
			case <-finished:
			}
		}()
		ev = invoke(ctx, c)
		returned = true
	}()
}

func invoke(ctx context.Context, c *call) (ev event) {
	ev.id = c.id
	defer func() {
		if p := recover(); p != nil {
			ev.kind = evReject
			ev.payload = jsonString(fmt.Sprintf("binding %q panicked: %v", c.member, p))
		}
	}()
	res, err := c.fn(ctx, c.args)
	if err != nil {
		ev.kind, ev.payload = evReject, jsonString(err.Error())
		return ev
	}
	// The run's goroutine checks res (see checkResult): CheckJSON's frame
	// would make this fresh goroutine grow its stack on every call.
	ev.kind, ev.payload = evResolve, res
	return ev
}

// checkResult turns a resolution that is not lossless JSON into a rejection.
func checkResult(ev *event) {
	if ev.kind == evResolve && (ev.payload == nil || serialize.CheckJSON(ev.payload) != nil) {
		ev.kind, ev.payload = evReject, jsonString("binding resolution must be lossless JSON")
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
		panic(errEnded) // the program settled: what it left running is dropped
	}
	select {
	case <-r.ctx.Done():
		r.stop(KindAbort, context.Cause(r.ctx).Error())
	case <-r.e.closing:
		r.stop(KindAbort, "runtime disposed")
	default:
	}
	if r.goexited.Load() {
		r.stop(KindWorkerExit, goexitMessage)
	}
	if len(r.pending) > 0 {
		r.launchPending() // the guest is busy: its calls must not wait for it
	}
	next, trip := r.meter.Refill(left, time.Now())
	if trip != budget.None {
		r.stop(KindTimeout, r.meter.Message(trip))
	}
	return next
}
