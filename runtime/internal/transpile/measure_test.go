package transpile

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
)

// measuredShapes are worstShapes and TypeScript programs as dense, which take the source-map path
// (and, with names esbuild changes, phaseNames) instead of the verbatim one.
var measuredShapes = append(worstShapes[:len(worstShapes):len(worstShapes)],
	shape{name: "ts statements", pre: "x=-a.b.c as T;\n"},
	shape{name: "ts renamed", pre: "{let a1:T=1;{let a1=2;f(a1)}}\n"},
)

// TestMeasureShapes prints, for each shape at 1 MiB, what each phase of CompileContext takes and,
// in parentheses, the longest step of the phase during which it does not look at its context (see
// poller): how late a cancel can be seen.
func TestMeasureShapes(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	for _, s := range measuredShapes {
		measureCompile(t, s.name, s.build(1<<20))
	}
}

// TestMeasureAtLimits is TestMeasureShapes with each shape that the nesting limits accept as large
// as the compile-work limits (see work.go) accept, up to 1 MiB: the longest that an esbuild call
// can take on it. The realistic program (see realisticProgram) comes last, at 1 MiB.
func TestMeasureAtLimits(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	for _, s := range measuredShapes {
		if s.rejected {
			continue
		}
		measureCompile(t, s.name, largestAccepted(s))
	}
	measureCompile(t, "realistic", realisticProgram(t, 1<<20))
}

// largestAccepted returns the shape at the largest size up to 1 MiB that the scan accepts, found
// by bisection.
func largestAccepted(s shape) string {
	accepted := func(size int) bool {
		c := compilation{poll: newPoller(context.Background()), src: s.build(size), limits: defaultWorkLimits}
		_, _, err := c.scan()
		return err == nil
	}
	lo, hi := 16, 1<<20
	if accepted(hi) {
		return s.build(hi)
	}
	for hi-lo > 64 {
		mid := (lo + hi) / 2
		if accepted(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return s.build(lo)
}

// measureCompile compiles src and prints what each phase took, the longest step of each phase
// without a look at the context, the peak of the goroutine stacks and the bytes allocated: once,
// or MEASURE_RUNS times.
func measureCompile(t *testing.T, name, src string) {
	runs := 1
	_, _ = fmt.Sscan(os.Getenv("MEASURE_RUNS"), &runs)
	for range runs {
		measureCompileOnce(t, name, src)
	}
}

// measureCompileOnce is one compilation of measureCompile.
func measureCompileOnce(t *testing.T, name, src string) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	stopSampling := sampleStackPeak(500 * time.Microsecond)
	phases := map[Phase]time.Duration{}
	var last Phase
	lastAt := time.Now()
	start := lastAt
	ctx := &gapContext{Context: t.Context(), last: start}
	_, err := CompileContext(ctx, src, Options{OnPhase: func(p Phase) {
		now := time.Now()
		if p > 0 {
			phases[last] = now.Sub(lastAt)
		}
		last, lastAt = p, now
		ctx.phase = p
	}})
	_ = ctx.Err() // the step after the last look
	phases[last] = time.Since(lastAt)
	total := time.Since(start)
	peak := stopSampling()
	runtime.ReadMemStats(&m1)
	msg := ""
	if err != nil {
		msg = err.Error()
		if len(msg) > 50 {
			msg = msg[:50]
		}
	}
	g := ctx.gaps
	fmt.Printf("%-24s %7d B %6.1fms  scan %5.1f (%4.1f)  transform %5.1f (%5.1f)  verify %5.1f (%5.1f)  map %5.1f (%5.1f)  names %5.1f (%5.1f)  stack %4d KiB  alloc %4d MiB  %s\n",
		name, len(src), ms(total), ms(phases[PhaseScan]), ms(g[PhaseScan]), ms(phases[PhaseTransform]), ms(g[PhaseTransform]),
		ms(phases[PhaseVerify]), ms(g[PhaseVerify]), ms(phases[phaseSourceMap]), ms(g[phaseSourceMap]),
		ms(phases[phaseNames]), ms(g[phaseNames]), (peak-min(peak, m0.StackInuse))>>10, (m1.TotalAlloc-m0.TotalAlloc)>>20, msg)
}

// gapContext records the longest time between two calls of Err, per phase (the phase running when
// Err is called: CompileContext calls OnPhase after Err).
type gapContext struct {
	context.Context
	last  time.Time
	phase Phase
	gaps  [phaseNames + 1]time.Duration
}

func (c *gapContext) Err() error {
	now := time.Now()
	c.gaps[c.phase] = max(c.gaps[c.phase], now.Sub(c.last))
	c.last = now
	return c.Context.Err()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func TestMeasureNearLimit(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	for _, s := range worstShapes {
		lo, hi := 1, 100000
		for lo < hi { // the largest repetition count that passes the nesting check
			mid := (lo + hi + 1) / 2
			if _, b := tokenizeBounded(s.repeat(mid), nil, defaultWorkLimits); b.err == nil {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		src := s.repeat(lo)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		stopSampling := sampleStackPeak(200 * time.Microsecond)
		start := time.Now()
		_, err := Compile(src)
		d := time.Since(start)
		peak := stopSampling()
		runtime.ReadMemStats(&m1)
		msg := ""
		if err != nil {
			msg = err.Error()
			msg = msg[:min(60, len(msg))]
		}
		fmt.Printf("%-24s reps %6d %8d B  %6.1fms  stack %6d KiB  alloc %5d MiB  %s\n", s.name, lo, len(src), ms(d),
			(peak-min(peak, m0.StackInuse))>>10, (m1.TotalAlloc-m0.TotalAlloc)>>20, msg)
	}
}

func TestMeasureFunctions(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	for _, tc := range []struct{ name, unit string }{
		{"flat arrows", "a=>b;\n"},
		{"flat functions", "function f(){}\n"},
		{"methods", "({m(){}});\n"},
		{"arrows 8 deep, same name", strings.Repeat("a=>", 8) + "b;\n"},
		{"arrows 64 deep, same name", strings.Repeat("a=>", 64) + "b;\n"},
		{"arrows 250 deep, same name", strings.Repeat("a=>", 250) + "b;\n"},
		{"arrows 480 deep, same name", strings.Repeat("a=>", 480) + "b;\n"},
	} {
		src := ""
		for n := 1; ; n *= 2 { // the largest power of two of units that passes the checks
			next := strings.Repeat(tc.unit, n)
			if _, b := tokenizeBounded(next, nil, defaultWorkLimits); len(next) > 1<<20 || b.err != nil {
				break
			}
			src = next
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start := time.Now()
		_, err := Compile(src)
		d := time.Since(start)
		runtime.ReadMemStats(&m1)
		fmt.Printf("%-28s %8d B  %7.1fms  alloc %5d MiB  err %v\n", tc.name, len(src), ms(d), (m1.TotalAlloc-m0.TotalAlloc)>>20, err)
	}
}

// TestMeasureDiagnostics prints, for each shape esbuild reports many diagnostics for, what
// esbuild alone costs on it at CODERUN_RAW_SIZE bytes (default 64 KiB; the quadratic shapes grow
// with the square of the size), and what Compile costs on it at 1 MiB.
func TestMeasureDiagnostics(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	rawSize := 64 << 10
	if v := os.Getenv("CODERUN_RAW_SIZE"); v != "" {
		_, _ = fmt.Sscan(v, &rawSize)
	}
	measure := func(f func()) (time.Duration, uint64) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start := time.Now()
		f()
		d := time.Since(start)
		runtime.ReadMemStats(&m1)
		return d, (m1.TotalAlloc - m0.TotalAlloc) >> 20
	}
	fmt.Printf("%-30s %28s   %s\n", "shape", fmt.Sprintf("esbuild at %d KiB", rawSize>>10), "Compile at 1 MiB")
	for _, d := range diagShapes {
		raw := d.build(rawSize)
		var msgs int
		rd, ra := measure(func() {
			res := api.Transform(inputHeader+raw+inputFooter, api.TransformOptions{
				Loader: api.LoaderTS, Target: api.ESNext, MinifyWhitespace: true, Sourcemap: api.SourceMapExternal,
				SourcesContent: api.SourcesContentExclude, Sourcefile: sourceFile,
			})
			msgs = len(res.Errors) + len(res.Warnings)
		})
		src := d.build(1 << 20)
		var err error
		cd, ca := measure(func() { _, err = Compile(src) })
		msg := "accepted"
		if err != nil {
			msg = err.Error()[:min(70, len(err.Error()))]
		}
		fmt.Printf("%-30s %8.0fms %5d MiB %6d msgs   %6.0fms %5d MiB  %s\n", d.name, ms(rd), ra, msgs, ms(cd), ca, msg)
	}
}

// sampleStackPeak samples the goroutine stacks in use every interval until
// the returned function is called; that function waits for the sampler to
// stop and returns the highest StackInuse seen.
func sampleStackPeak(interval time.Duration) (stop func() uint64) {
	done, result := make(chan struct{}), make(chan uint64)
	go func() {
		var m runtime.MemStats
		var peak uint64
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.StackInuse)
			select {
			case <-done:
				result <- peak
				return
			case <-time.After(interval):
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}
