//go:build linux

package runtime

import (
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// peakSampler samples the Go heap's objects (live and not yet swept) and the process's RSS
// every 200 µs until stopped, without stopping the world, and keeps the largest of each.
type peakSampler struct {
	stop       chan struct{}
	done       sync.WaitGroup
	heap, rss  int64
	sampleRSS  func() int64
	sampleHeap []metrics.Sample
}

func startPeakSampler(rss func() int64) *peakSampler {
	p := &peakSampler{stop: make(chan struct{}), sampleRSS: rss,
		sampleHeap: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
	p.done.Go(func() {
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(p.sampleHeap)
			p.heap = max(p.heap, int64(p.sampleHeap[0].Value.Uint64()))
			p.rss = max(p.rss, p.sampleRSS())
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	})
	return p
}

// peaks stops the sampler and returns the peaks.
func (p *peakSampler) peaks() (heap, rss int64) {
	close(p.stop)
	p.done.Wait()
	return p.heap, p.rss
}

// Runs at once, each of a different hostile kind (compilations that cost esbuild about 300 bytes
// a byte or more, logs near their cap, a failure whose text is over the output cap, a big value):
// the host's memory while they run, Go heap and RSS (guests included), stays within the sum of
// their MemoryBytes plus 64 MiB (256 MiB here): 10-18 MiB of Go heap now, 344 MiB before
// compilations, logs and failure texts were charged and bounded.
func TestHostMemoryOfAHostileMix(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	const memory, runs = 16 << 20, 12
	e := engineWith(t, func(l *budget.Limits) { l.MemoryBytes = memory; l.MaxOutputBytes = 3 << 20 })
	programs := []string{
		hostileCompile(1, 240<<10),
		hostileCompile(2, 240<<10),
		`const s = "x".repeat(1 << 20); for (let i = 0; i < 2; i++) console.log(s); return 1`,
		`await null; throw "x".repeat(4e6)`,
		`return "x".repeat(1e6)`,
	}
	for i := range runs - len(programs) { // 878 KB of decorators: 88 MiB of esbuild's heap each, when esbuild saw them
		programs = append(programs, fmt.Sprintf("// %d\n", i)+strings.Repeat("@d ", 878000/3)+"class A {}")
	}
	require.Len(t, programs, runs)
	mustRun(t, e, "return 1")
	heapBase, rssBase := heapInUse(), vmRSS(t)
	sampler := startPeakSampler(func() int64 { return vmRSS(t) })
	var wg sync.WaitGroup
	outcomes := make([]Outcome, runs)
	for i, p := range programs {
		wg.Go(func() { outcomes[i] = mustRun(t, e, p) })
	}
	wg.Wait()
	heap, rss := sampler.peaks()
	kinds := make([]string, runs)
	for i, o := range outcomes {
		kinds[i] = fmt.Sprintf("%d: %q %.60s (peak %.1f MiB)", i, o.Kind, o.Message, mib(o.PeakMemory))
	}
	want := []string{KindWorkerExit, KindWorkerExit, "", KindOutputLimit, ""}
	for i, o := range outcomes {
		if i < len(want) {
			require.Equal(t, want[i], o.Kind, kinds[i])
		} else {
			require.Equal(t, KindException, o.Kind, kinds[i])
		}
	}
	heap, rss = heap-heapBase, rss-rssBase
	t.Logf("peak growth: Go heap %.1f MiB, RSS %.1f MiB; outcomes:\n%s", mib(heap), mib(rss), strings.Join(kinds, "\n"))
	const bound = runs*memory + 64<<20
	require.LessOrEqual(t, heap, int64(bound), "Go heap")
	require.LessOrEqual(t, rss, int64(bound), "RSS")
}
