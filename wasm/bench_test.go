package wasm

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// benchWorkloads are timed in a fresh instance per run; setup runs first,
// untimed.
var benchWorkloads = []struct{ name, setup, code string }{
	{"fib27", `function fib(n){return n<2?n:fib(n-1)+fib(n-2)}`, `fib(27)`},
	{"json1MB",
		`globalThis.doc = JSON.stringify(Array.from({length: 6700}, (_, i) => ({id: i, name: "item" + i,
			tags: ["alpha", "beta", "gamma"], ok: i % 2 == 0, nested: {x: i * 1.5, y: "abcdefghij".repeat(3), z: [1, 2, 3]}})))`,
		`JSON.stringify(JSON.parse(doc)).length`},
	{"sum1e7", `1`, `let s = 0; for (let i = 0; i < 1e7; i++) s += i; s`},
}

// benchVariant is one way of running the module.
type benchVariant struct {
	name      string
	rt        wazero.Runtime
	cm        wazero.CompiledModule
	interrupt bool
}

func benchVariants(b *testing.B) []benchVariant {
	plain := newTestRuntime(b, wazero.NewRuntimeConfigCompiler())
	closing := newTestRuntime(b, wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true))
	return []benchVariant{
		{"original", plain, compile(b, plain, QuickJS()), false},
		{"hardened", plain, compile(b, plain, hardened(b)), true},
		{"closeOnContextDone", closing, compile(b, closing, QuickJS()), false},
	}
}

// runOnce times code in a fresh instance and returns the time and the
// number of fuel yields during it.
func runOnce(b *testing.B, v benchVariant, setup, code string) (time.Duration, int) {
	m := &meter{quantum: 1_000_000}
	vm := newVM(b, v.rt, v.cm, m, v.interrupt)
	defer vm.mod.Close(context.Background())
	_, err := vm.evalString(setup)
	require.NoError(b, err)
	before := m.refills
	start := time.Now()
	_, err = vm.evalString(code)
	d := time.Since(start)
	require.NoError(b, err)
	return d, m.refills - before
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// BenchmarkQuickJS compares, per workload, the original module, the
// hardened one (fuel with a quantum of 1e6 units, interrupt handler
// installed) and the original on a CloseOnContextDone runtime. Each b.N
// iteration is one round that runs the three variants back to back, so a
// noisy machine affects them alike; it reports the median time of each and
// the median of the per-round ratios. For example:
//
//	go test -run '^$' -bench QuickJS -benchtime 9x ./wasm/
func BenchmarkQuickJS(b *testing.B) {
	variants := benchVariants(b)
	for _, w := range benchWorkloads {
		b.Run(w.name, func(b *testing.B) {
			times := make([][]float64, len(variants))
			var hardOrig, closeHard []float64
			var yields int
			for b.Loop() {
				round := make([]float64, len(variants))
				for i, v := range variants {
					d, y := runOnce(b, v, w.setup, w.code)
					round[i] = float64(d.Nanoseconds())
					times[i] = append(times[i], round[i])
					if v.name == "hardened" {
						yields += y
					}
				}
				hardOrig = append(hardOrig, round[1]/round[0])
				closeHard = append(closeHard, round[2]/round[1])
			}
			for i, v := range variants {
				b.ReportMetric(median(times[i])/1e6, v.name+"-ms")
			}
			b.ReportMetric(median(hardOrig), "hardened/original")
			b.ReportMetric(median(closeHard), "close/hardened")
			b.ReportMetric(float64(yields)/float64(b.N), "yields/run")
			b.ReportMetric(0, "ns/op")
		})
	}
}
