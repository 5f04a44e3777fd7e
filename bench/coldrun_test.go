package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coderun/coderun"
)

// BenchmarkColdRun measures one whole run in a fresh VM: for coderun,
// instantiate, initialise QuickJS and the prelude, run `return 1+1`, read the
// value back (the program's compilation is cached after the warm-up run);
// for the peers, goja.New + RunString, modernc quickjs NewVM + Eval + Close
// and fastschema qjs.New + Eval + Close, each reading the value back.
func BenchmarkColdRun(b *testing.B) {
	w := coldRun()
	compare(b, 0, coderunEngine(newRuntime(b), w), gojaEngine(w), moderncEngine(w), fastschemaEngine(b, w))
}

// BenchmarkColdRunAlone measures a cold run (`return 1+1`, a fresh instance,
// the program's compilation cached, the value read back) with coderun alone
// and no Prewarm pool: the instance is made on the request path. It reports
// the median (ns/op), as issue #5's goals are medians, besides the mean and
// the 90th percentile. Issue #5's goal: at most 0.25 ms.
func BenchmarkColdRunAlone(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	timeRuns(b, rt, 0)
}

// timeRuns times one `return 1+1` run per iteration of b.Loop, each after an
// untimed pause (none if pause is 0), and reports the median as ns/op, the
// mean as mean-ns and the 90th percentile as p90-ns.
func timeRuns(b *testing.B, rt *coderun.Runtime, pause time.Duration) {
	if _, err := timeColdRun(rt); err != nil { // caches the compilation
		b.Fatal(err)
	}
	var d []time.Duration
	var total time.Duration
	for b.Loop() {
		if pause > 0 {
			b.StopTimer()
			time.Sleep(pause)
			b.StartTimer()
		}
		took, err := timeColdRun(rt)
		if err != nil {
			b.Fatal(err)
		}
		d = append(d, took)
		total += took
	}
	b.ReportMetric(float64(median(d)), "ns/op")
	b.ReportMetric(float64(total)/float64(len(d)), "mean-ns")
	b.ReportMetric(float64(percentile(d, 90)), "p90-ns")
}

// timeColdRun times one run of `return 1+1` on rt and checks its value.
func timeColdRun(rt *coderun.Runtime) (time.Duration, error) {
	start := time.Now()
	res, err := rt.Run(context.Background(), coderun.Request{Program: "return 1+1"})
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if string(res.Value) != "2" {
		return 0, fmt.Errorf("cold run: value %s, error %+v", res.Value, res.Error)
	}
	return took, nil
}
