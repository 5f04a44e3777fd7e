package coderun_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/internal/runaway"
	"github.com/stretchr/testify/require"
)

// While a runaway program runs, the rest of the process keeps going: a
// ticker goroutine ticks and runtime.GC returns promptly (the guest reaches
// a preemption point every fuel slice). Each case runs in a subprocess, so
// that a regression that stalls the process cannot hang the suite.
func TestRunawayDoesNotStallTheHost(t *testing.T) {
	if name := os.Getenv("CODERUN_STALL_CHILD"); name != "" {
		stallChild(name)
		return
	}
	for name := range runaway.Programs() {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRunawayDoesNotStallTheHost$")
			cmd.Env = append(os.Environ(), "CODERUN_STALL_CHILD="+name)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "child: %s", out)
			require.Contains(t, string(out), "CHILD OK", "child: %s", out)
		})
	}
}

// stallChild runs one runaway program and checks, while it runs, that a
// ticker keeps ticking and that runtime.GC returns within 100 ms (median of
// five); then it
// cancels the run and prints CHILD OK or the failure.
func stallChild(name string) {
	fail := func(err error) { fmt.Println("CHILD FAIL:", err); os.Exit(0) }
	rt, err := coderun.New(coderun.DefaultConfig())
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
	time.Sleep(300 * time.Millisecond) // well into the runaway part
	var gcs []time.Duration
	for range 5 {
		before := ticks.Load()
		t0 := time.Now()
		goruntime.GC()
		gcs = append(gcs, time.Since(t0))
		time.Sleep(50 * time.Millisecond)
		if ticks.Load() == before {
			fail(errors.New("the ticker did not tick for 50 ms while the guest ran"))
		}
	}
	close(stop)
	// A stalled process shows as seconds; the median is the figure the
	// contract sets (100 ms), the worst call gets room for a loaded 2-core
	// machine running the race detector.
	slices.Sort(gcs)
	if gcs[len(gcs)/2] > 100*time.Millisecond || gcs[len(gcs)-1] > time.Second {
		fail(fmt.Errorf("runtime.GC took %v while the guest ran", gcs))
	}
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
	case <-time.After(10 * time.Second):
		fail(errors.New("the run did not end after cancellation"))
	}
	fmt.Println("CHILD OK")
}
