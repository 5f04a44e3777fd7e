package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// An idle engine with a prewarm pool wakes its filler a few dozen times a
// second at most (it polled every millisecond, a thousand wake-ups and
// about 3% of a CPU a second while nothing ran), and a run that takes an
// instance still has the pool refilled after it. The bound is on wake-ups
// counted, which a busy machine can only lower.
func TestPrewarmIdleBacksOff(t *testing.T) {
	limits := budget.Limits{
		Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: time.Minute,
		MemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20,
	}
	e, err := New(context.Background(), Options{Limits: limits, CacheDir: testCacheDir(t), Prewarm: 2})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	full := func() {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); len(e.ready) < cap(e.ready); {
			if time.Now().After(deadline) {
				t.Fatalf("the pool holds %d of %d instances after a minute", len(e.ready), cap(e.ready))
			}
			time.Sleep(time.Millisecond)
		}
	}
	for range 3 {
		full()
		before := e.fillPolls.Load()
		const idle = 500 * time.Millisecond
		time.Sleep(idle)
		polls := e.fillPolls.Load() - before
		t.Logf("%d wake-ups in %v idle", polls, idle)
		// fillPollMin doubling to fillPollMax, then every fillPollMax: 21;
		// polling every fillPollMin: up to 500.
		require.LessOrEqual(t, polls, int64(40), "wake-ups of an idle filler in %v", idle)

		o, err := e.run(context.Background(), "return 1+1", nil)
		require.NoError(t, err)
		require.Equal(t, "2", string(o.Value))
		require.Less(t, len(e.ready), cap(e.ready), "the run took a prewarmed instance")
	}
	full()
}
