package wasm_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/wasm"
)

// overheadDoc builds the 1 MB JSON document of BenchmarkQuickJS's json1MB
// workload.
const overheadDoc = `JSON.stringify(Array.from({length: 6700}, (_, i) => ({id: i, name: "item" + i,
	tags: ["alpha", "beta", "gamma"], ok: i % 2 == 0, nested: {x: i * 1.5, y: "abcdefghij".repeat(3), z: [1, 2, 3]}})))`

// BenchmarkEngineOverhead measures what coderun adds to the engine on the
// 1 MB JSON round trip (issue 29: at most 1.15× the bare engine). Each
// round times, in alternating order, a coderun run of `const doc = <the
// document>; return JSON.stringify(JSON.parse(doc)).length` (its compilation
// cached by a warm-up run, as bench's JSON1MB row does: the run includes
// making the instance, loading the bytecode with its 1 MB string, fuel and
// the value's check) and the bare upstream module evaluating
// `JSON.stringify(JSON.parse(doc)).length` after an untimed setup that sets
// doc. It reports the medians of the wall and thread CPU times and the
// median of the rounds' CPU ratios, coderun/bare:
//
//	go test -run '^$' -bench EngineOverhead -benchtime 15x ./wasm/
func BenchmarkEngineOverhead(b *testing.B) {
	bare := wasm.NewBareEngine(b)
	doc := bare.Eval(b, overheadDoc)
	lit, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	cfg := coderun.DefaultConfig()
	cfg.MaxProgramBytes = 4 << 20
	rt, err := coderun.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	program := "const doc = " + string(lit) + ";\nreturn JSON.stringify(JSON.parse(doc)).length"
	want := strconv.Itoa(len(doc))
	timeCoderun(b, rt, program, want) // caches the compilation
	var walls, cpus [2][]float64
	var ratios []float64
	for r := 0; b.Loop(); r++ {
		var round [2]time.Duration
		for k := range 2 {
			i := (r + k) % 2
			var wall, cpu time.Duration
			if i == 0 {
				wall, cpu = timeCoderun(b, rt, program, want)
			} else {
				wall, cpu = bare.Time(b, "globalThis.doc = "+string(lit), "JSON.stringify(JSON.parse(doc)).length")
			}
			round[i] = cpu
			walls[i] = append(walls[i], float64(wall.Nanoseconds()))
			cpus[i] = append(cpus[i], float64(cpu.Nanoseconds()))
		}
		ratios = append(ratios, float64(round[0])/float64(round[1]))
	}
	for i, name := range []string{"coderun", "bare"} {
		b.ReportMetric(wasm.Median(walls[i])/1e6, name+"-ms")
		b.ReportMetric(wasm.Median(cpus[i])/1e6, name+"-cpu-ms")
	}
	b.ReportMetric(wasm.Median(ratios), "coderun/bare")
}

// timeCoderun runs program, checks that it returns want, and returns the
// run's wall time and the CPU time of the thread that ran it (a run without
// bindings executes on its caller's goroutine).
func timeCoderun(b *testing.B, rt *coderun.Runtime, program, want string) (wall, cpu time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := wasm.ThreadCPUTime()
	start := time.Now()
	res, err := rt.Run(context.Background(), coderun.Request{Program: program})
	wall = time.Since(start)
	c1, _ := wasm.ThreadCPUTime()
	if err != nil {
		b.Fatal(err)
	}
	if res.Error != nil || string(res.Value) != want {
		b.Fatalf("coderun: value %s, error %v; want %s", res.Value, res.Error, want)
	}
	if cpu = c1 - c0; !ok {
		cpu = wall
	}
	return wall, cpu
}
