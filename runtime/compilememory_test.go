package runtime

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// totalAlloc returns the bytes the Go heap has allocated so far, after a collection.
func totalAlloc() int64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.TotalAlloc)
}

// hostileCompile returns a distinct program (by i) that costs esbuild the most host memory per
// byte that the compile-work limits accept: about 300 bytes for each of its 2 bytes per line.
func hostileCompile(i, bytes int) string {
	return fmt.Sprintf("// %d\n", i) + strings.Repeat("x\n", bytes/2)
}

// What compiling a program allocates in the host is charged to its run: it appears in the
// run's peak, and all the run allocates in Go stays within that peak and a constant.
func TestCompileMemoryIsCharged(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 256 << 20 })
	mustRun(t, e, "return 1") // the engine's first run warms what it keeps
	before := totalAlloc()
	o := mustRun(t, e, hostileCompile(0, 240<<10))
	allocated := totalAlloc() - before
	require.Equal(t, KindException, o.Kind, o.Message) // x is not defined
	t.Logf("allocated %.1f MiB, peak %.1f MiB", mib(allocated), mib(o.PeakMemory))
	require.Greater(t, allocated, int64(32<<20), "the program is not as costly as it should be")
	require.LessOrEqual(t, allocated, o.PeakMemory+4<<20)
}

// Eight runs of 16 MiB at once, each compiling a distinct 878 KB program that would cost esbuild
// about 35 MiB (decorators, once parsed all, 88 MiB), fail within their budgets: the decorators
// are refused by the scan, which stops at their nesting, and the other programs fail as memory
// failures that say what to do as soon as their scan's next reservation does not fit.
func TestCompileOverMemory(t *testing.T) {
	const runs, memory = 8, 16 << 20
	e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = memory })
	mustRun(t, e, "return 1")
	programs := []string{}
	for i := range runs {
		if i%2 == 0 {
			programs = append(programs, fmt.Sprintf("// %d\n", i)+strings.Repeat("@d ", 878000/3)+"class A {}")
		} else {
			programs = append(programs, hostileCompile(i, 878000))
		}
	}
	before := totalAlloc()
	var wg sync.WaitGroup
	outcomes := make([]Outcome, runs)
	for i, p := range programs {
		wg.Go(func() { outcomes[i] = mustRun(t, e, p) })
	}
	wg.Wait()
	allocated := totalAlloc() - before
	for i, o := range outcomes {
		if i%2 == 0 {
			require.Equal(t, KindException, o.Kind)
			require.Contains(t, o.Message, "SyntaxError: decorators are not supported")
			continue
		}
		require.Equal(t, KindWorkerExit, o.Kind)
		require.Contains(t, o.Message, budget.MemoryMessage(memory)+": compiling the program takes about")
		require.Contains(t, o.Message, "over MemoryBytes (16777216 bytes); make the program shorter")
	}
	t.Logf("allocated %.1f MiB; %s", mib(allocated), outcomes[1].Message)
	// Within the runs' budgets: each compilation allocates no more than it reserved, and stops
	// when a reservation does not fit (280 MiB in all when compilations were not charged).
	require.LessOrEqual(t, allocated, int64(runs*memory))
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
