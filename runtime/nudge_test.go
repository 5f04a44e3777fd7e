package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/coderun/coderun/internal/quickjs"
	"github.com/stretchr/testify/require"
)

// The engine finds QuickJS's interrupt counter in the pinned build: the int
// after Math.random's state and the hash seed in JSContext.
func TestInterruptCounterFound(t *testing.T) {
	e := testEngine(t)
	require.Equal(t, e.snap.RandomState+12, e.interruptCounter)
}

// The counter is what decides when the guest polls: the same recursion
// polls (each poll charges 10,000 units of fuel) at its first call when the
// counter is zero, and not at all when it is as far from zero as it goes.
func TestInterruptCounterDecidesPolls(t *testing.T) {
	e := testEngine(t)
	const program = "function f(n) { return n ? f(n - 1) + 1 : 0 }\nreturn f(50)"
	fuel := func(counter uint32) uint64 {
		e.hooks.attached = func(in *quickjs.Instance) {
			require.True(t, in.StoreContextU32(e.interruptCounter, counter))
		}
		o, err := e.run(context.Background(), program, nil)
		require.NoError(t, err)
		require.Equal(t, "50", string(o.Value), o.Message)
		return o.FuelUsed
	}
	far, zero := fuel(1<<31-1), fuel(0)
	require.GreaterOrEqual(t, zero, far+10000, "fuel with the counter at zero, and far from it")
}

// Cancelling a run's ctx stores zero into its guest's interrupt counter,
// from the goroutine that cancels (the guest is idle here, so that nothing
// races the store; while it runs, its next call reads it and polls, see
// above). A run that ended first has undone that.
func TestCancelNudgesGuest(t *testing.T) {
	e := testEngine(t)
	for _, ended := range []bool{false, true} {
		in, err := e.qe.Instantiate(context.Background(), templateHost{})
		require.NoError(t, err)
		in.Restore(e.snap.Instance)
		require.True(t, in.StoreContextU32(e.interruptCounter, 1<<31-1))
		ctx, cancel := context.WithCancelCause(context.Background())
		r := &run{e: e, ctx: ctx, in: in}
		stop := r.nudgeOnCancel()
		require.NotNil(t, stop)
		if ended {
			require.True(t, stop(), "undone before the cancel")
		}
		cancel(errors.New("stop"))
		v, ok := in.LoadContextU32(e.interruptCounter)
		for deadline := time.Now().Add(10 * time.Second); !ended && v != 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
			v, ok = in.LoadContextU32(e.interruptCounter)
		}
		require.True(t, ok)
		if ended {
			require.Equal(t, uint32(1<<31-1), v, "the counter of a run that ended")
		} else {
			require.Zero(t, v, "the counter after the cancel")
		}
		require.NoError(t, in.Close(context.Background()))
		require.False(t, in.StoreContextU32(e.interruptCounter, 0), "a store after Close")
	}
}

// Many runs on one long-lived ctx leave nothing registered on it: each run
// undoes its nudge when it ends, else every run's instance would stay
// reachable from the ctx until it is cancelled (host memory growing with
// the number of runs, outside every run's budget), and a cancel would start
// a goroutine per run ever made.
func TestNudgeRegistrationsReleased(t *testing.T) {
	e := testEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := func() {
		o, err := e.run(ctx, "return 1", nil)
		require.NoError(t, err)
		require.Equal(t, "1", string(o.Value), o.Message)
	}
	for range 20 {
		run() // pools and caches at their steady state
	}
	const runs = 400
	before := liveHeap()
	for range runs {
		run()
	}
	grew := int64(liveHeap()) - int64(before)
	t.Logf("live Go heap after %d runs on one ctx: %+d bytes", runs, grew)
	require.Less(t, grew, int64(256<<10), "live Go heap kept by %d finished runs on one ctx", runs)
}
