package bench

import (
	"context"
	"fmt"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	"github.com/coderun/coderun"
)

// newRuntime returns a coderun runtime with the default configuration
// except MaxProgramBytes, closed when b ends.
func newRuntime(b *testing.B) *coderun.Runtime {
	b.Helper()
	rt, err := coderun.New(benchConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// benchProgramBytes is the MaxProgramBytes of the comparison runtime: the
// JSON1MB program embeds its 1 MB document as a string literal and is
// 1.2 MB of source, over the default limit of 1 MiB.
const benchProgramBytes = 4 << 20

// benchConfig is coderun.DefaultConfig with MaxProgramBytes raised to
// benchProgramBytes, so that every workload of the table runs.
func benchConfig() coderun.Config {
	cfg := coderun.DefaultConfig()
	cfg.MaxProgramBytes = benchProgramBytes
	return cfg
}

// minRounds is the fewest rounds compare takes, whatever -benchtime says.
const minRounds = 5

// compare runs the engines, coderun first, in rounds (see rounds): a round
// per iteration of b.Loop, then more until there are minRounds.
//
// It reports, from the median sample of each engine:
//
//	ns/op                coderun's time per run (replacing the harness's own
//	                     ns/op, which would be the time of a whole round)
//	ns/call              with calls > 0: coderun's time per binding call
//	<peer>-ns/op|call    the same for each peer
//	<peer>/coderun       the peer's time over coderun's: above 1, coderun is
//	                     faster by that factor
//	rounds               the number of samples behind each median
func compare(b *testing.B, calls int, engines ...engine) {
	b.Helper()
	r, err := newRounds(engines)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := r.take(); err != nil {
			b.Fatal(err)
		}
	}
	for r.n < minRounds { // long rounds: -benchtime alone would give one or two
		if err := r.take(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.n), "rounds")
	unit, per := "op", 1.0
	if calls > 0 {
		unit, per = "call", float64(calls)
	}
	base := float64(median(r.samples[0]))
	b.ReportMetric(base, "ns/op")
	if calls > 0 {
		b.ReportMetric(base/per, "ns/call")
	}
	for i, e := range engines[1:] {
		m := float64(median(r.samples[i+1]))
		b.ReportMetric(m/per, e.name+"-ns/"+unit)
		b.ReportMetric(m/base, e.name+"/coderun")
	}
}

// rounds takes samples of engines in rounds: each round takes one sample of
// every engine, in an order that rotates from round to round, so that load
// changes on the machine spread over all of them.
type rounds struct {
	engines []engine
	samples [][]time.Duration // samples[i] are engines[i]'s
	n       int               // rounds taken
}

// newRounds warms every engine up with one untimed sample.
func newRounds(engines []engine) (*rounds, error) {
	for _, e := range engines {
		if _, err := e.sample(); err != nil {
			return nil, fmt.Errorf("%s (warm-up): %w", e.name, err)
		}
	}
	return &rounds{engines: engines, samples: make([][]time.Duration, len(engines))}, nil
}

// take takes one round.
func (r *rounds) take() error { return r.takeBlock(1) }

// takeBlock takes one round of blocks: per consecutive samples of every
// engine.
func (r *rounds) takeBlock(per int) error {
	for k := range r.engines {
		i := (r.n + k) % len(r.engines)
		for range per {
			var d time.Duration
			var err error
			// Labelled, so that a profile of the benchmark tells the
			// engines' samples apart (pprof -tagfocus engine=NAME); the
			// goroutines a sample starts inherit the label.
			pprof.Do(context.Background(), pprof.Labels("engine", r.engines[i].name), func(context.Context) {
				d, err = r.engines[i].sample()
			})
			if err != nil {
				return fmt.Errorf("%s: %w", r.engines[i].name, err)
			}
			r.samples[i] = append(r.samples[i], d)
		}
	}
	r.n++
	return nil
}

// median returns the median of d (the upper one of an even count).
func median(d []time.Duration) time.Duration { return percentile(d, 50) }

// percentile returns the p-th percentile of d, 0 ≤ p ≤ 100: the sample at
// index len(d)×p/100 of the sorted samples (for 99, the largest of fewer
// than 100 samples).
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)*p/100, len(s)-1)]
}
