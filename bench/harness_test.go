package bench

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/coderun/coderun"
)

// newRuntime returns a coderun runtime with the default configuration,
// closed when b ends.
func newRuntime(b *testing.B) *coderun.Runtime {
	b.Helper()
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// minRounds is the fewest rounds compare takes, whatever -benchtime says.
const minRounds = 5

// compare runs the engines, coderun first, in rounds: each round takes one
// sample of every engine, in an order that rotates from round to round, so
// that load changes on the machine spread over all of them. It takes a
// round per iteration of b.Loop, then more until there are minRounds. Every
// engine is warmed up by one untimed sample first.
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
	for _, e := range engines {
		if _, err := e.sample(); err != nil {
			b.Fatalf("%s (warm-up): %v", e.name, err)
		}
	}
	samples := make([][]time.Duration, len(engines))
	sampleRound := func(round int) {
		for k := range engines {
			i := (round + k) % len(engines)
			d, err := engines[i].sample()
			if err != nil {
				b.Fatalf("%s: %v", engines[i].name, err)
			}
			samples[i] = append(samples[i], d)
		}
	}
	round := 0
	for ; b.Loop(); round++ {
		sampleRound(round)
	}
	for ; round < minRounds; round++ { // long rounds: -benchtime alone would give one or two
		sampleRound(round)
	}
	b.ReportMetric(float64(round), "rounds")
	unit, per := "op", 1.0
	if calls > 0 {
		unit, per = "call", float64(calls)
	}
	base := float64(median(samples[0]))
	b.ReportMetric(base, "ns/op")
	if calls > 0 {
		b.ReportMetric(base/per, "ns/call")
	}
	for i, e := range engines[1:] {
		m := float64(median(samples[i+1]))
		b.ReportMetric(m/per, e.name+"-ns/"+unit)
		b.ReportMetric(m/base, e.name+"/coderun")
	}
}

// median returns the median of d (the upper one of an even count).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
