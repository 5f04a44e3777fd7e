package runtime

import (
	goruntime "runtime"
	"time"
)

// The native stack of a waiting run. wazero runs an instance's calls on a
// Go-allocated stack that stays as large as the run's deepest call made it:
// 80 KiB for any run with bindings (quickjs.Instance.Warm), up to wazero's
// ceiling of tens of megabytes after a deep recursion. Between two calls
// into the instance nothing is on it, so a run that waits (for a binding
// call or a timer) longer than stackIdle gives it back
// (quickjs.Instance.ReleaseStack): an idle timer releases it from its own
// goroutine while the run waits, and the run's next call into the instance
// warms a new one. Runs that wait less than stackIdle never pay for the new
// stack; a run that waits longer pays for it once per such wait: allocating
// and zeroing 90 KiB of Go heap, which on a VM whose first touch of a page
// is slow can take a few hundred microseconds of CPU, a few percent of a
// wait of stackIdle at worst. The run's memory account still covers the
// stack as large as it grew, so the bound on a run's host memory is the same
// with or without the release.
//
// The handshake between the run's goroutine and the idle timer is r.stack:
const (
	stackHeld      = iota // the run's goroutine may call into the instance
	stackParked           // the run waits; the idle timer may release the stack
	stackReleasing        // the idle timer is releasing it
)

// stackIdle is how long a run waits before its native stack is released:
// long enough that a new stack costs little against the wait, short
// enough that a waiting run holds its 80 KiB for little longer than it
// takes a typical tool call to answer.
const stackIdle = 10 * time.Millisecond

// park is called by the run's goroutine before it waits, with no call into
// the instance in progress: from here until hold, the idle timer may
// release the instance's stack.
func (r *run) park() {
	if r.in == nil {
		return
	}
	r.stack.Store(stackParked)
	d := stackIdle
	if r.e.hooks.stackIdle != 0 {
		d = r.e.hooks.stackIdle
	}
	if r.idle == nil {
		r.idle = time.AfterFunc(d, r.releaseStack)
	} else {
		r.idle.Reset(d)
	}
}

// hold takes the instance back from the idle timer after a wait (or, when
// the caller gave up on a run stuck in an inline call, for the caller). It
// returns once the timer is not releasing the stack, which takes no longer
// than clearing a slice.
func (r *run) hold() {
	if r.stack.Load() == stackHeld {
		return // never parked (no instance yet), or taken back already
	}
	r.idle.Stop()
	for !r.stack.CompareAndSwap(stackParked, stackHeld) {
		goruntime.Gosched()
	}
}

// releaseStack runs on the idle timer's goroutine: it releases the stack
// of a run that is still parked, and has the memory that deep calls took
// returned to the OS (see giveBack) now rather than when the run ends.
func (r *run) releaseStack() {
	if !r.stack.CompareAndSwap(stackParked, stackReleasing) {
		return
	}
	r.in.ReleaseStack()
	if r.gmem != nil {
		deep := r.gmem.deep()
		r.e.giveBack.ran(deep - r.givenBack)
		r.givenBack = deep
	}
	r.releases.Add(1)
	r.stack.Store(stackParked)
	if r.e.hooks.released != nil {
		r.e.hooks.released()
	}
}
