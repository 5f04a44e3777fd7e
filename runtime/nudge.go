package runtime

import (
	"context"
	"strconv"
	"time"

	"github.com/coderun/coderun/internal/quickjs"
)

// Nudging a running guest. QuickJS polls for interrupts when its context's
// interrupt counter, which every jump and call of the interpreter counts
// down, reaches zero (every 10,000 of them: JS_INTERRUPT_COUNTER_INIT); the
// poll is the fuel charge that yields to the host (run.FuelYield), which is
// where a cancelled ctx is seen. A JavaScript loop polls every few tens of
// microseconds, a recursion every few hundred. So when the caller's ctx is
// cancelled while the guest runs, the goroutine that cancels stores zero
// into the counter (context.AfterFunc, nudge): a guest that calls a function
// next reads it and polls, and the abort does not wait for the counter to
// run down. The store is a hint. The guest's own update of the counter can
// overwrite it (nudge tries a few times), and a loop that only jumps keeps
// the counter in a register while it loops, so it is not nudged and polls
// when it would have. A store that comes after the instance was closed is
// dropped (quickjs.Instance.StoreContextU32). The poll the nudge brings
// forward charges its 10,000 units of fuel early, to a run whose outcome is
// already the abort.

// interruptCounterProbeLoops is the loop the probe runs: the counter drops
// by at least one per iteration, and by a few at most.
const interruptCounterProbeLoops = 500

// interruptCounterAfterRandomState is where QuickJS-NG 0.16's JSContext
// puts interrupt_counter relative to random_state: the uint64 random_state,
// then the uint32 hash_seed, then the int counter.
const interruptCounterAfterRandomState = 8 + 4

// findInterruptCounter returns the offset in JSContext of QuickJS's
// interrupt counter, or 0 when it cannot be told for sure: in QuickJS-NG
// 0.16 it is the int after hash_seed, the uint32 after the uint64
// random_state (at st.RandomState), so at st.RandomState+12, and it is
// taken only if it behaves as the counter in an instance of the snapshot:
// set to 5,000, a loop of interruptCounterProbeLoops iterations takes it
// down by 1 to 4 per iteration; set to 1, the next loop polls, which sets it
// back to 10,000 before the loop takes it down a little.
func findInterruptCounter(ctx context.Context, qe *quickjs.Engine, st snapshotState) uint32 {
	in, err := qe.Instantiate(ctx, templateHost{})
	if err != nil {
		return 0
	}
	defer in.Close(ctx)
	in.Restore(st.Instance)
	off := st.RandomState + interruptCounterAfterRandomState
	after := func(start uint32, loops int) (int64, bool) {
		if !in.StoreContextU32(off, start) {
			return 0, false
		}
		v, err := in.Eval("for (let i = 0; i < "+strconv.Itoa(loops)+"; i++) {}", "coderun:probe", quickjs.EvalGlobal)
		if err != nil || v.IsException() {
			return 0, false
		}
		got, ok := in.LoadContextU32(off)
		return int64(int32(got)), ok
	}
	// The script's own start counts a few more.
	const loops, slack = interruptCounterProbeLoops, 50
	if v, ok := after(5000, loops); !ok || v > 5000-loops || v < 5000-4*loops-slack {
		return 0
	}
	if v, ok := after(1, 10); !ok || v > 10000-10 || v < 10000-4*10-slack {
		return 0
	}
	return off
}

// nudgeOnCancel makes a cancellation of the run's ctx nudge its guest (see
// above); it returns the function that undoes that, or nil.
func (r *run) nudgeOnCancel() (stop func() bool) {
	off, in := r.e.interruptCounter, r.in
	if off == 0 || r.ctx.Done() == nil {
		return nil
	}
	return context.AfterFunc(r.ctx, func() { nudge(in, off) })
}

// nudgeTries is how many times nudge stores zero, nudgeGap apart.
const (
	nudgeTries = 3
	nudgeGap   = 2 * time.Microsecond
)

// nudge stores zero into the interrupt counter at off, and again, up to
// nudgeTries times, while the guest's own update of the counter overwrote
// the store (the counter reads neither zero, nor below it, nor reset by a
// poll). A loop that only jumps keeps the counter in a register and writes
// it back when it leaves the loop, so its store is always overwritten; the
// tries are bounded so that such a guest costs the nudging goroutine a few
// microseconds, and its own poll comes within tens of them anyway.
func nudge(in *quickjs.Instance, off uint32) {
	const reset = 9000 // at or above: a poll set the counter back to 10,000
	for range nudgeTries {
		if !in.StoreContextU32(off, 0) {
			return // closed
		}
		for start := time.Now(); time.Since(start) < nudgeGap; {
		}
		v, ok := in.LoadContextU32(off)
		if !ok || v == 0 || int32(v) < 0 || v >= reset {
			return
		}
	}
}
