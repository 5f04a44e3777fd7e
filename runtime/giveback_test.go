package runtime

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Memory is returned only once runs owe giveBackBytes, once for all the
// runs that ended meanwhile, and never more often than giveBackEvery.
func TestGiveBack(t *testing.T) {
	closing := make(chan struct{})
	g := newGiveBack(closing)
	var calls atomic.Int32
	var at [3]time.Time
	g.free = func() {
		if n := calls.Add(1); n <= 3 {
			at[n-1] = time.Now()
		}
	}

	for range 100 {
		g.ran(giveBackBytes / 200) // ordinary runs: half the threshold in all
	}
	g.ran(0)
	g.ran(-1)
	g.wait()
	require.Zero(t, calls.Load(), "below the threshold")

	g.ran(giveBackBytes/2 + 1<<10) // now past the threshold
	g.wait()
	require.Equal(t, int32(1), calls.Load())

	for range 10 {
		g.ran(giveBackBytes)
	}
	g.wait()
	require.Equal(t, int32(2), calls.Load(), "the runs that ended before the return share it")
	require.GreaterOrEqual(t, at[1].Sub(at[0]), giveBackEvery, "rate limited")

	close(closing)
	g.ran(giveBackBytes)
	g.wait()
	require.Equal(t, int32(2), calls.Load(), "nothing after the engine closed")
}
