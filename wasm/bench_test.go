package wasm

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// benchWorkload is JavaScript timed in a fresh instance per run; setup
// runs first, untimed.
type benchWorkload struct{ name, setup, code string }

// benchWorkloads are the workloads of BenchmarkQuickJS.
var benchWorkloads = []benchWorkload{
	{"fib27", `function fib(n){return n<2?n:fib(n-1)+fib(n-2)}`, `fib(27)`},
	{"json1MB",
		`globalThis.doc = JSON.stringify(Array.from({length: 6700}, (_, i) => ({id: i, name: "item" + i,
			tags: ["alpha", "beta", "gamma"], ok: i % 2 == 0, nested: {x: i * 1.5, y: "abcdefghij".repeat(3), z: [1, 2, 3]}})))`,
		`JSON.stringify(JSON.parse(doc)).length`},
	{"sum1e7", `1`, `let s = 0; for (let i = 0; i < 1e7; i++) s += i; s`},
	{"summary", `1`, "(function () {\n" + summaryBody() + "\n})()"},
}

// summaryBody is the 20-line program of bench/'s table (testdata/summary.js).
func summaryBody() string {
	src, err := os.ReadFile(testdataFile("summary.js"))
	if err != nil {
		panic(err)
	}
	return string(src)
}

// benchVariant is one way of running the module.
type benchVariant struct {
	name string
	rt   wazero.Runtime
	cm   wazero.CompiledModule
}

// benchVariants returns the variants named in $CODERUN_BENCH_VARIANTS
// (comma-separated; default "original,hardened,closeOnContextDone"; also
// "backEdges": hardened with FuelConfig.BackEdges, as the runtime's engine
// is; "fuelOnly": the original with only the Fuel pass, configured so;
// "no<Pass>", such as "noStackWatch": backEdges without that pass; see
// applyPasses; "file=PATH": the upstream module at PATH, unhardened). A name may end in "@n", such as "backEdges@3": that module
// with its code shifted by n units (see shiftCode). The ratios compare the
// second variant with the first and the third with the second.
func benchVariants(b *testing.B) []benchVariant {
	names := os.Getenv("CODERUN_BENCH_VARIANTS")
	if names == "" {
		names = "original,hardened,closeOnContextDone"
	}
	plain := newTestRuntime(b, wazero.NewRuntimeConfigCompiler())
	var closing wazero.Runtime
	var vs []benchVariant
	for _, full := range strings.Split(names, ",") {
		name, shift, shifted := strings.Cut(full, "@")
		src := variantSource(b, name)
		if shifted {
			n, err := strconv.Atoi(shift)
			require.NoError(b, err, "variant %q", full)
			src = shiftCode(b, src, n)
		}
		rt := plain
		if name == "closeOnContextDone" {
			if closing == nil {
				closing = newTestRuntime(b, wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true))
			}
			rt = closing
		}
		vs = append(vs, benchVariant{full, rt, compile(b, rt, src)})
	}
	return vs
}

// variantSource returns the module of the variant called name (without a
// shift). Every variant runs with the glue's interrupt handler installed:
// in the original it returns 0, in the others it charges fuel.
func variantSource(b *testing.B, name string) []byte {
	if path, ok := strings.CutPrefix(name, "file="); ok {
		// A build of the upstream module to compare, such as one made with
		// other compiler flags (wasm/upstream/README.md).
		src, err := os.ReadFile(path)
		require.NoError(b, err)
		return src
	}
	switch name {
	case "original", "closeOnContextDone":
		return QuickJS()
	case "hardened":
		return hardened(b)
	case "backEdges":
		src, err := Harden(QuickJS(), FuelConfig{BackEdges: true})
		require.NoError(b, err)
		return src
	case "fuelOnly":
		// The runtime's fuel configuration alone.
		return applyPasses(b, "")
	}
	// "no<Pass>": backEdges without that pass of Harden.
	skip, ok := strings.CutPrefix(name, "no")
	if !ok {
		b.Fatalf("unknown variant %q", name)
	}
	return applyPasses(b, skip)
}

// shiftCode returns src with n never-executed global updates (a unit)
// added at the start of its first defined function: the code of every
// later function moves by some multiple of 16 bytes, and nothing else
// changes. wazero lays out functions in index order, 16-byte aligned, and
// where the interpreter's code lands changes its speed by up to 15% on
// some workloads (bench/README.md at 23be69a, "Levers tried"), so a pass is measured
// at a few shifts.
func shiftCode(b *testing.B, src []byte, n int) []byte {
	m, err := Decode(src)
	require.NoError(b, err)
	g := m.addGlobal(Global{Type: GlobalType{ValType: i32, Mutable: true}, Init: []Instr{i32Const(0), simple(opEnd)}})
	pad := []Instr{indexed(opGlobalGet, g), blockInstr(opIf, blockEmpty)}
	for k := range n {
		pad = append(pad, indexed(opGlobalGet, g), i32Const(int32(k+1000)), simple(opI32Add), indexed(opGlobalSet, g))
	}
	pad = append(pad, simple(opEnd))
	c := &m.Code[0]
	c.Body = append(pad, c.Body...)
	out, err := m.Encode()
	require.NoError(b, err)
	return out
}

// applyPasses returns QuickJS() after the passes of Harden, with the
// runtime's FuelConfig, but the one named skip; skip "" applies Fuel
// alone.
func applyPasses(b *testing.B, skip string) []byte {
	m, err := Decode(QuickJS())
	require.NoError(b, err)
	fuel := func(m *Module) error { return Fuel(m, FuelConfig{BackEdges: true}) }
	passes := []struct {
		name string
		f    func(*Module) error
	}{
		{"RefuseImports", refuseImports}, {"ExportStackPointer", ExportStackPointer},
		{"AddDispatcher", AddDispatcher}, {"GrowTrap", growTrap}, {"DirectCalls", directCalls},
		{"Fuel", fuel}, {"StackWatch", stackWatch},
	}
	found := false
	for _, p := range passes {
		if p.name == skip {
			found = true
			continue
		}
		if skip == "" && p.name != "Fuel" {
			continue
		}
		require.NoError(b, p.f(m), p.name)
	}
	if skip != "" && !found {
		b.Fatalf("no pass %q", skip)
	}
	out, err := m.Encode()
	require.NoError(b, err)
	return out
}

// runOnce runs code in a fresh instance and returns the wall time, the CPU
// time of the thread that ran it (the wall time where that is not
// available) and the number of fuel yields during it. On a shared machine
// the thread CPU time is the steadier figure: it leaves out the time the
// thread waits for a CPU.
func runOnce(b *testing.B, v benchVariant, setup, code string) (wall, cpu time.Duration, yields int) {
	m := &meter{quantum: 1_000_000}
	vm := newVM(b, v.rt, v.cm, m)
	defer vm.mod.Close(context.Background())
	_, err := vm.evalString(setup)
	require.NoError(b, err)
	before := m.refills
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := threadCPUTime()
	start := time.Now()
	_, err = vm.evalString(code)
	wall = time.Since(start)
	c1, _ := threadCPUTime()
	require.NoError(b, err)
	cpu = c1 - c0
	if !ok {
		cpu = wall
	}
	return wall, cpu, m.refills - before
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// BenchmarkQuickJS compares, per workload, the original module, the
// hardened one (fuel with a quantum of 1e6 units) and the original on a CloseOnContextDone runtime. Each b.N
// iteration is one round that runs the three variants back to back (in
// alternating order), so a noisy machine affects them alike. It reports the median thread CPU time
// ("-cpu-ms") and wall time ("-ms") of each, and the medians of the
// per-round CPU time ratios. For example:
//
//	go test -run '^$' -bench QuickJS -benchtime 9x ./wasm/
func BenchmarkQuickJS(b *testing.B) {
	variants := benchVariants(b)
	for _, w := range benchWorkloads {
		b.Run(w.name, func(b *testing.B) {
			walls := make([][]float64, len(variants))
			cpus := make([][]float64, len(variants))
			var hardOrig, closeHard []float64
			var yields int
			for r := 0; b.Loop(); r++ {
				round := make([]float64, len(variants))
				for k := range variants {
					i := alternated(r, k, len(variants))
					v := variants[i]
					wall, cpu, y := runOnce(b, v, w.setup, w.code)
					round[i] = float64(cpu.Nanoseconds())
					cpus[i] = append(cpus[i], round[i])
					walls[i] = append(walls[i], float64(wall.Nanoseconds()))
					if i == 1 {
						yields += y
					}
				}
				if len(round) > 1 {
					hardOrig = append(hardOrig, round[1]/round[0])
				}
				if len(round) > 2 {
					closeHard = append(closeHard, round[2]/round[1])
				}
			}
			for i, v := range variants {
				b.ReportMetric(median(walls[i])/1e6, v.name+"-ms")
				b.ReportMetric(median(cpus[i])/1e6, v.name+"-cpu-ms")
			}
			if len(variants) > 1 {
				b.ReportMetric(median(hardOrig), variants[1].name+"/"+variants[0].name)
			}
			if len(variants) > 2 {
				b.ReportMetric(median(closeHard), variants[2].name+"/"+variants[1].name)
			}
			b.ReportMetric(float64(yields)/float64(b.N), "yields/run")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// instantiateBatch is the number of instantiations BenchmarkInstantiate
// times together.
const instantiateBatch = 200

// instantiateOnce returns the thread CPU time (the wall time where that is
// not available) of instantiateBatch instantiations of v's module, each
// closed again, with nothing run in them.
func instantiateOnce(b *testing.B, v benchVariant) time.Duration {
	ctx := context.WithValue(context.Background(), meterKey{}, &meter{quantum: 1 << 40})
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := threadCPUTime()
	start := time.Now()
	for range instantiateBatch {
		mod, err := v.rt.InstantiateModule(ctx, v.cm, cfg)
		require.NoError(b, err)
		require.NoError(b, mod.Close(ctx))
	}
	if !ok {
		return time.Since(start)
	}
	c1, _ := threadCPUTime()
	return c1 - c0
}

// BenchmarkInstantiate compares the cost of instantiating and closing the
// variants of BenchmarkQuickJS ($CODERUN_BENCH_VARIANTS), which is most of
// what a module pass can change in a cold run: per round, each variant
// instantiates instantiateBatch times (in alternating order); it reports
// the median CPU time per instantiation ("-us") and the median per-round
// ratio of the second variant to the first. For example:
//
//	CODERUN_BENCH_VARIANTS=backEdges,noDirectCalls go test -run '^$' -bench Instantiate -benchtime 15x ./wasm/
func BenchmarkInstantiate(b *testing.B) {
	variants := benchVariants(b)
	cpus := make([][]float64, len(variants))
	var ratio []float64
	for r := 0; b.Loop(); r++ {
		round := make([]float64, len(variants))
		for k := range variants {
			i := alternated(r, k, len(variants))
			round[i] = float64(instantiateOnce(b, variants[i]).Nanoseconds()) / instantiateBatch
			cpus[i] = append(cpus[i], round[i])
		}
		if len(round) > 1 {
			ratio = append(ratio, round[1]/round[0])
		}
	}
	for i, v := range variants {
		b.ReportMetric(median(cpus[i])/1e3, v.name+"-us")
	}
	if len(variants) > 1 {
		b.ReportMetric(median(ratio), variants[1].name+"/"+variants[0].name)
	}
	b.ReportMetric(0, "ns/op")
}

// alternated is the k-th of n variants to run in round r: the order
// alternates from round to round, so that drift on a shared machine does
// not favour one variant.
func alternated(r, k, n int) int {
	if r%2 == 1 {
		return n - 1 - k
	}
	return k
}

// testdataFile is the path of name in the repository's testdata directory,
// found from this source file's path, so that a test binary built with
// "go test -c" finds it from any directory (the measurements in bench/README.md
// at 23be69a run them from /tmp); relative to the working directory when the binary has no such path.
func testdataFile(name string) string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		return filepath.Join(filepath.Dir(file), "..", "testdata", name)
	}
	return filepath.Join("..", "testdata", name)
}
