package coderun_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/internal/runaway"
	"github.com/stretchr/testify/require"
)

// stallWatchdog is how long the child of TestRunawayDoesNotStallTheHost
// waits for runtime.GC to return, or for its ticker to tick, before it calls
// the process stalled. A stalled process waits until the guest ends, which a
// runaway program never does; a loaded machine delays either by a second or
// two at worst. How long runtime.GC takes is BenchmarkGCDuringRunaway's.
const stallWatchdog = time.Minute

// While a runaway program runs, the rest of the process keeps going: a
// ticker goroutine ticks and runtime.GC returns (the guest reaches a
// preemption point every fuel slice; without one, the collector's
// stop-the-world would wait for the guest forever). Each case runs in a
// subprocess, so that a regression that stalls the process cannot hang the
// suite.
func TestRunawayDoesNotStallTheHost(t *testing.T) {
	if name := os.Getenv("CODERUN_STALL_CHILD"); name != "" {
		stallChild(name)
		return
	}
	if raceEnabled {
		t.Skip("the collector's stop-the-world against a guest that never yields: -race finds nothing there, and instruments the children (scripts/test runs it without)")
	}
	for name := range runaway.Programs() {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*stallWatchdog)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRunawayDoesNotStallTheHost$")
			cmd.Env = append(os.Environ(), "CODERUN_STALL_CHILD="+name)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "child: %s", out)
			require.Contains(t, string(out), "CHILD OK", "child: %s", out)
			t.Logf("child: %s", out)
		})
	}
}

// stallChild runs one runaway program and checks, while it runs, that
// runtime.GC returns and a ticker keeps ticking, five times over, each
// within stallWatchdog; then it cancels the run and prints CHILD OK (with
// the times runtime.GC took) or the failure.
func stallChild(name string) {
	fail := func(err error) { fmt.Println("CHILD FAIL:", err); os.Exit(0) }
	cfg := coderun.DefaultConfig()
	if dir, err := os.UserCacheDir(); err == nil {
		cfg.CacheDir = filepath.Join(dir, "coderun") // testCacheDir's: the children load the engine, not compile it
	}
	rt, err := coderun.New(cfg)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan coderun.Result, 1)
	go func() {
		res, _ := rt.Run(ctx, coderun.Request{Program: runaway.Programs()[name]})
		done <- res
	}()
	var ticks atomic.Int64
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				ticks.Add(1)
			case <-stop:
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // into the runaway part
	var gcs []time.Duration
	for range 5 {
		before := ticks.Load()
		took, ok := within(stallWatchdog, goruntime.GC)
		if !ok {
			fail(fmt.Errorf("runtime.GC did not return within %v while the guest ran: the guest reaches no preemption point", stallWatchdog))
		}
		gcs = append(gcs, took)
		if !polled(stallWatchdog, func() bool { return ticks.Load() > before }) {
			fail(fmt.Errorf("the ticker did not tick for %v while the guest ran", stallWatchdog))
		}
	}
	close(stop)
	select {
	case res := <-done:
		fail(fmt.Errorf("the program ended early: %+v", res.Error))
	default:
	}
	cancel(errors.New("user-cancel"))
	select {
	case res := <-done:
		if res.Error == nil || res.Error.Kind != coderun.Abort || res.Error.Message != "user-cancel" {
			fail(fmt.Errorf("want abort user-cancel, got %+v", res.Error))
		}
	case <-time.After(stallWatchdog):
		fail(fmt.Errorf("the run did not end within %v of its cancellation", stallWatchdog))
	}
	fmt.Println("CHILD OK: runtime.GC took", gcs)
}

// within calls f on a goroutine of its own and returns how long it took, or
// false if it did not return within d (f is then left running).
func within(d time.Duration, f func()) (time.Duration, bool) {
	returned := make(chan time.Duration, 1)
	go func() {
		t0 := time.Now()
		f()
		returned <- time.Since(t0)
	}()
	select {
	case took := <-returned:
		return took, true
	case <-time.After(d):
		return 0, false
	}
}

// polled reports whether cond became true within d, polling it every
// millisecond.
func polled(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// BenchmarkGCDuringRunaway measures how long runtime.GC takes while a
// runaway program runs, per kind of runaway code (the contract's figure is
// a 100 ms median), and reports the median and the worst in milliseconds.
// TestRunawayDoesNotStallTheHost only checks that it returns.
func BenchmarkGCDuringRunaway(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	require.NoError(b, err)
	defer rt.Close(context.Background())
	for name, program := range runaway.Programs() {
		b.Run(name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = rt.Run(ctx, coderun.Request{Program: program})
			}()
			time.Sleep(300 * time.Millisecond) // into the runaway part
			var gcs []time.Duration
			for b.Loop() {
				t0 := time.Now()
				goruntime.GC()
				gcs = append(gcs, time.Since(t0))
			}
			cancel()
			<-done
			slices.Sort(gcs)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(gcs[len(gcs)/2]), "p50-ms")
			b.ReportMetric(ms(gcs[len(gcs)-1]), "max-ms")
		})
	}
}
