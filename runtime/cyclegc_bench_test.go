package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
)

// gcThresholdBefore is how far malloc_gc_threshold lies before stack_size
// in QuickJS-NG's struct JSRuntime on wasm32 (internal/quickjs/sources.go
// lists the fields between gc_obj_list and stack_size).
const gcThresholdBefore = 4

// setCycleGC sets the cycle collector's threshold of an instance restored
// from the snapshot. It checks first that the field holds CycleGC, as the
// snapshot left it (no collection runs while it is built), so that a
// layout change fails the benchmark instead of writing elsewhere.
func setCycleGC(b *testing.B, in *quickjs.Instance, threshold uint32) {
	st := in.State()
	at := st.Runtime + st.Layout.StackSize - gcThresholdBefore
	if v, ok := in.Memory().ReadUint32Le(at); !ok || v != CycleGC {
		b.Fatalf("malloc_gc_threshold at %#x holds %d, want %d", at, v, CycleGC)
	}
	in.Memory().WriteUint32Le(at, threshold)
}

// cycleGCWorkloads are the programs of docs/performance.md's cycle
// collector table: cyclic garbage (which only the collector frees) under
// 32 MiB of MemoryBytes, with its twin without the cycle (pairs-3e6), and
// allocation-heavy programs without cycles (where the collector is only
// overhead) under 64 MiB.
var cycleGCWorkloads = []struct {
	name, program string
	memory        int64
}{
	{"cycles-3e6", `let s = 0; for (let i = 0; i < 3e6; i++) { const a = {}; const b = { a }; a.b = b; s++ } return s`, 32 << 20},
	{"pairs-3e6", `let s = 0; for (let i = 0; i < 3e6; i++) { const a = {}; const b = { a }; s++ } return s`, 32 << 20},
	{"catch-4e5", `let s = 0; for (let i = 0; i < 400000; i++) { const p = Promise.resolve(i); p.catch(() => {}); s++; if (i % 1000 == 0) await null } return s`, 32 << 20},
	{"short", `const rows = Array.from({ length: 4000 }, (_, i) => ({ id: i, name: "n" + i, score: i % 97 }));
return rows.filter((r) => r.score > 50).map((r) => ({ ...r, rank: r.score * 2 })).sort((a, b) => b.rank - a.rank).slice(0, 10).length`, 64 << 20},
	{"json-1MB", `const data = Array.from({ length: 8000 }, (_, i) => ({ id: i, name: "item " + i, tags: ["a", "b", "c"], nested: { x: i / 3, y: [1, 2, 3], ok: i % 2 == 0 } }));
let text = JSON.stringify(data), n = 0;
for (let k = 0; k < 5; k++) { const v = JSON.parse(text); text = JSON.stringify(v); n += v.length }
return [text.length, n]`, 64 << 20},
	{"objects-1e5", `const a = []; for (let i = 0; i < 100000; i++) a.push({ i, s: "x" + i, p: [i] }); return a.length`, 64 << 20},
}

// BenchmarkCycleCollector runs each workload of cycleGCWorkloads at each
// initial threshold of the cycle collector, and reports the run's peak memory (peak-MiB), its fuel (Mfuel) and whether it
// completed (ok). After each collection QuickJS sets the threshold to 1.5
// times the heap that survived, so the initial one only decides when the
// first collection runs.
//
//	go test -run '^$' -bench CycleCollector -benchtime 3x ./runtime/
func BenchmarkCycleCollector(b *testing.B) {
	thresholds := []uint32{64 << 10, 256 << 10, 1 << 20, 4 << 20, quickjs.NoCycleGC}
	for _, w := range cycleGCWorkloads {
		for _, th := range thresholds {
			name := fmt.Sprintf("%s/%dKiB", w.name, th>>10)
			if th == quickjs.NoCycleGC {
				name = w.name + "/off"
			}
			b.Run(name, func(b *testing.B) {
				e := testEngineWith(b, func(l *budget.Limits) { l.MemoryBytes = w.memory })
				e.hooks.attached = func(in *quickjs.Instance) { setCycleGC(b, in, th) }
				var o Outcome
				for b.Loop() {
					var err error
					if o, err = e.run(context.Background(), w.program, nil); err != nil {
						b.Fatal(err)
					}
				}
				ok := 0.0
				if o.Kind == "" {
					ok = 1
				}
				b.ReportMetric(ok, "ok")
				b.ReportMetric(float64(o.PeakMemory)/(1<<20), "peak-MiB")
				b.ReportMetric(float64(o.FuelUsed)/1e6, "Mfuel")
			})
		}
	}
}
