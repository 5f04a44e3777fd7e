package bench

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/internal/runaway"
)

// BenchmarkAbortLatency measures the time from cancelling the ctx of a run
// that is busy in a runaway program to Run returning, for each kind of
// runaway code. It reports the median and p99 in milliseconds (goal: p99
// under 5 ms). Each iteration starts a run, lets it get going, cancels it.
func BenchmarkAbortLatency(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	for name, program := range runaway.Programs() {
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				d, err := coderunAbortLatency(rt, program, 150*time.Millisecond)
				if err != nil {
					b.Fatalf("%s: %v", name, err)
				}
				lat = append(lat, d)
			}
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkWallOvershoot measures how far past a 100 ms wall-clock ceiling a
// runaway run returns, per kind of runaway code (goal: under 10 ms).
func BenchmarkWallOvershoot(b *testing.B) {
	cfg := coderun.DefaultConfig()
	cfg.WallTime = 100 * time.Millisecond
	rt, err := coderun.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	for name, program := range runaway.Programs() {
		b.Run(name, func(b *testing.B) {
			var over []time.Duration
			for b.Loop() {
				t0 := time.Now()
				res, _ := rt.Run(context.Background(), coderun.Request{Program: program})
				if res.Error == nil || res.Error.Kind != coderun.Timeout {
					b.Fatalf("%s: want timeout, got %+v", name, res.Error)
				}
				over = append(over, time.Since(t0)-cfg.WallTime)
			}
			reportPercentiles(b, over)
		})
	}
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(percentile(d, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(d, 99)), "p99-ms")
	b.ReportMetric(ms(percentile(d, 100)), "max-ms")
}

// errStop is the cause of the cancellations of abort-latency runs.
var errStop = errors.New("bench-cancel")

// coderunAbortLatency starts a run of program, cancels its ctx after delay
// and returns the time from the cancellation to Run returning, which it
// must do with an abort.
func coderunAbortLatency(rt *coderun.Runtime, program string, delay time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	return abortLatency(delay, func(started func()) error {
		started()
		res, err := rt.Run(ctx, coderun.Request{Program: program})
		if err != nil || res.Error == nil || res.Error.Kind != coderun.Abort {
			return fmt.Errorf("want an abort, got %v, %+v", err, res.Error)
		}
		return nil
	}, func() { cancel(errStop) })
}

// abortLatency calls run on a goroutine of its own, calls stop delay after
// run calls started (just before it enters the engine) and returns the time
// from then to run returning. run returns nil if it was stopped as it
// should be, an error otherwise.
func abortLatency(delay time.Duration, run func(started func()) error, stop func()) (time.Duration, error) {
	type result struct {
		err error
		at  time.Time
	}
	started := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		err := run(func() { close(started) })
		done <- result{err, time.Now()}
	}()
	select {
	case <-started:
	case r := <-done:
		return 0, fmt.Errorf("the run did not start: %v", r.err)
	}
	time.Sleep(delay)
	t0 := time.Now()
	stop()
	r := <-done
	if r.err != nil {
		return 0, r.err
	}
	return r.at.Sub(t0), nil
}
