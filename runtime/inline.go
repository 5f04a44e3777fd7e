package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
)

// A run with bindings executes on a goroutine of its own while the caller of
// run waits for it. This lets the run make a call inline, on its own
// goroutine, when that call is all the guest is waiting for: no other call
// in flight or queued, no timer set. The guest cannot run until the call
// completes, so nothing can tell the difference, and the call skips the two
// goroutine hand-offs (start and completion), which cost more than the rest
// of a round trip when they wake the other CPU. Every other call still runs
// on a goroutine of its own.
//
// A function that ignores its ctx would hold the run's goroutine; the caller
// therefore watches the ctx, Close and the wall deadline, and gives up on a
// run stuck in an inline call: it decides the outcome (abort or timeout,
// as the run would have), cleans up, and returns. The run's goroutine then
// leaves as soon as the function returns, without touching the run. The
// handshake is r.inline:
const (
	inlineNone      = iota // the run's goroutine owns the run
	inlineRunning          // it is in an inline call; the caller may give up
	inlineAbandoned        // the caller gave up and owns the run
)

// errAbandoned unwinds the run's goroutine once the caller has given up.
var errAbandoned = errors.New("coderun: run abandoned by its caller")

// executeDetached executes the run on a new goroutine and returns its
// outcome, or the abort or timeout that ended it while it was stuck in an
// inline call.
func (r *run) executeDetached() Outcome {
	r.detached = true
	done := make(chan struct{})
	var out Outcome
	var finished bool
	var panicked any // a panic of the run's goroutine, raised again in the caller's, as before
	go func() {
		presizeStack()
		defer close(done)
		defer func() {
			if p := recover(); p != nil && p != errAbandoned {
				panicked = p
			}
		}()
		out = r.execute()
		finished = true
	}()
	wall := time.NewTimer(time.Until(r.meter.WallDeadline()))
	defer wall.Stop()
	var kind, b, message string
	select {
	case <-done:
		return r.finishedOutcome(out, finished, panicked)
	case <-r.ctx.Done():
		kind, message = KindAbort, context.Cause(r.ctx).Error()
	case <-r.e.closing:
		kind, message = KindAbort, "runtime disposed"
	case <-wall.C:
		kind, b, message = KindTimeout, BudgetWall, budget.WallMessage(r.limits.WallTime)
	}
	if !r.inline.CompareAndSwap(inlineRunning, inlineAbandoned) {
		// The run's goroutine is not in an inline call and will not enter
		// one (see callInline): it sees the same signal and ends itself.
		<-done
		return r.finishedOutcome(out, finished, panicked)
	}
	r.hold() // from the idle timer: the run's goroutine parked before its call
	r.settle(kind, b, message)
	o := r.outcome()
	r.closeRun()
	return o
}

// finishedOutcome is the outcome of a run whose goroutine returned; it
// returns without one only when a host function called runtime.Goexit.
func (r *run) finishedOutcome(out Outcome, finished bool, panicked any) Outcome {
	if panicked != nil {
		panic(panicked)
	}
	if finished {
		return out
	}
	r.exhaust(BudgetHost, goexitMessage)
	return r.outcome()
}

// callInline makes the one pending call on the run's goroutine when it is
// all the guest waits for, and returns its completion. It returns false
// when the call must run on a goroutine of its own, or when the run has to
// end first (the caller's ctx is done, the engine is closing, the wall
// deadline passed).
func (r *run) callInline() (hostcalls.Event, bool) {
	if !r.detached || r.timers.Len() != 0 {
		return hostcalls.Event{}, false
	}
	c := r.calls.Lone()
	if c == nil {
		return hostcalls.Event{}, false
	}
	// Parked before the caller may take the run over, so that a caller
	// that does finds the idle timer's handshake set up (see hold).
	r.park()
	// From here until the call returns, the caller may give up on the run
	// and take it over: nothing of the run is touched until it is handed
	// back.
	r.inline.Store(inlineRunning)
	// Checked after the store: a caller that saw a signal before it, and so
	// could not give up on the run, has that signal seen here.
	if r.signalled() {
		r.reclaim()
		r.hold()
		r.calls.Unlone(c)
		return hostcalls.Event{}, false
	}
	ev := r.calls.Invoke(c)
	r.reclaim()
	r.hold()
	return ev, true
}

// reclaim takes the run back from the caller after an inline call, or
// unwinds the run's goroutine if the caller gave up on the run meanwhile.
func (r *run) reclaim() {
	if !r.inline.CompareAndSwap(inlineRunning, inlineNone) {
		panic(errAbandoned)
	}
}

// signalled reports whether the run must end: the caller's ctx is done, the
// engine is closing or the wall deadline passed.
func (r *run) signalled() bool {
	if r.ctx.Err() != nil {
		return true
	}
	select {
	case <-r.e.closing:
		return true
	default:
	}
	return !time.Now().Before(r.meter.WallDeadline())
}

// presizeStack grows the calling goroutine's stack ahead of the deep calls of a
// run (the engine, wazero and the host functions it calls): one copy of a
// stack that holds two frames, instead of a copy at each doubling, each of
// which walks every frame on the stack to adjust its pointers.
//
//go:noinline
func presizeStack() {
	var pad [presizeBytes]byte
	keep(pad[:])
}

// presizeBytes is the frame presizeStack claims.
const presizeBytes = 16 << 10

// keep uses b, so that presizeStack's frame is not optimised away.
//
//go:noinline
func keep(b []byte) { b[0] = 1 }
