package bench

import (
	"context"
	"errors"
	"sort"
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
				ctx, cancel := context.WithCancelCause(context.Background())
				type result struct {
					res coderun.Result
					at  time.Time
				}
				done := make(chan result, 1)
				go func() {
					res, _ := rt.Run(ctx, coderun.Request{Program: program})
					done <- result{res, time.Now()}
				}()
				time.Sleep(150 * time.Millisecond)
				t0 := time.Now()
				cancel(errors.New("bench-cancel"))
				r := <-done
				if r.res.Error == nil || r.res.Error.Kind != coderun.Abort {
					b.Fatalf("%s: want abort, got %+v", name, r.res.Error)
				}
				lat = append(lat, r.at.Sub(t0))
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
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(d[len(d)/2]), "p50-ms")
	b.ReportMetric(ms(d[(len(d)*99)/100]), "p99-ms")
	b.ReportMetric(ms(d[len(d)-1]), "max-ms")
}
