package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The prewarm pool's filler wakes a few dozen times a second at most while
// it has nothing to do: while the pool is full and the engine idle, and
// while a run is in flight (here one waiting in a binding). It polled every
// millisecond, a thousand wake-ups and about 3% of a CPU a second. A run
// that takes an instance still has the pool refilled after it. The bound is
// on wake-ups counted, which a busy machine can only lower.
func TestPrewarmFillerBacksOff(t *testing.T) {
	e, err := New(context.Background(), Options{Limits: testLimits(), CacheDir: testCacheDir(t), Prewarm: 2})
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
	const span = 500 * time.Millisecond
	// fillPollMin doubling to fillPollMax, then every fillPollMax: 21 in
	// span; polling every fillPollMin: up to 500.
	const most = 40
	for range 2 {
		full()
		before := e.fillPolls.Load()
		time.Sleep(span)
		polls := e.fillPolls.Load() - before
		t.Logf("idle: %d wake-ups in %v", polls, span)
		require.LessOrEqual(t, polls, int64(most), "wake-ups of an idle engine's filler in %v", span)

		entered, release := make(chan struct{}), make(chan struct{})
		bindings := []Binding{{Global: "tools", Functions: map[string]Func{
			"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) {
				close(entered)
				<-release
				return json.RawMessage(`2`), nil
			},
		}}}
		done := make(chan Outcome, 1)
		go func() {
			o, err := e.run(context.Background(), "return await tools.wait(0)", bindings)
			require.NoError(t, err)
			done <- o
		}()
		select {
		case <-entered:
		case o := <-done:
			t.Fatalf("the run ended before its binding call: %+v", o)
		}
		require.Less(t, len(e.ready), cap(e.ready), "the run took a prewarmed instance")
		before = e.fillPolls.Load()
		time.Sleep(span)
		polls = e.fillPolls.Load() - before
		t.Logf("a run in flight: %d wake-ups in %v", polls, span)
		require.LessOrEqual(t, polls, int64(most), "wake-ups of the filler in %v while a run waits", span)
		close(release)
		o := <-done
		require.Equal(t, "2", string(o.Value), o.Message)
	}
	full()
}
