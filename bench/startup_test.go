package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun"
)

// BenchmarkThroughput measures trivial cold runs (`return 1+1`, a fresh
// instance each) from GOMAXPROCS goroutines at once (2 on the reference
// machine), reported as runs/s. Issue #5's goal: at least 3,000 runs/s.
func BenchmarkThroughput(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	req := coderun.Request{Program: "return 1+1"}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := rt.Run(context.Background(), req)
			if err != nil || string(res.Value) != "2" {
				b.Errorf("run: %v %+v", err, res.Error)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkIdleRunRSS keeps 50 runs alive at once, each waiting on a
// binding, and reports the growth of the process's resident memory and of
// its live Go heap per live run. Issue #5's goal: at most 1 MiB per idle
// run.
func BenchmarkIdleRunRSS(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	for b.Loop() {
		// One run first, so that the engine's own one-time allocations are
		// not counted.
		if _, err := runCoderun(rt, coldRun()); err != nil {
			b.Fatal(err)
		}
		g, err := idleGrowth(idleRuns, func(w workload) (string, error) { return runCoderun(rt, w) })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(g.rss/1024, "KiB/idle-run")
		b.ReportMetric(g.heap/1024, "heap-KiB/idle-run")
	}
}

// idleRuns is how many runs idleGrowth keeps alive at once.
const idleRuns = 50

// growth is how much memory each live run adds, in bytes.
type growth struct{ heap, rss float64 }

// idleGrowth starts n runs of a program that awaits tools.wait, a host
// function that blocks until all n runs are waiting, and returns the
// growth of the live Go heap and of the resident set per run from before
// the runs started to when all were waiting.
func idleGrowth(n int, run func(workload) (string, error)) (growth, error) {
	release := make(chan struct{})
	entered := make(chan struct{}, n)
	w := workload{body: `return await tools.wait({})`, host: "wait", want: "1",
		fn: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			entered <- struct{}{}
			<-release
			return json.RawMessage(`1`), nil
		}}
	errs := make(chan error, n)
	heap0, rss0, err := memoryInUse()
	if err != nil {
		return growth{}, err
	}
	for range n {
		go func() {
			got, err := run(w)
			if err == nil && got != w.want {
				err = fmt.Errorf("completion value %s, want %s", got, w.want)
			}
			errs <- err
		}()
	}
	for k := 0; k < n; {
		select {
		case <-entered:
			k++
		case err := <-errs:
			close(release)
			return growth{}, fmt.Errorf("a run ended before its wait call: %v", err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	heap1, rss1, err := memoryInUse()
	close(release)
	for range n {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	return growth{heap: float64(heap1-heap0) / float64(n), rss: float64(rss1-rss0) / float64(n)}, err
}

// memoryInUse collects garbage, returns freed memory to the system and
// reads the live Go heap and the process's resident set size, in bytes.
func memoryInUse() (heap, rss int64, err error) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, err
	}
	pages, err := strconv.ParseInt(strings.Fields(string(raw))[1], 10, 64)
	return int64(ms.HeapAlloc), pages * int64(os.Getpagesize()), err
}

// BenchmarkNew measures coderun.New with an empty cache directory (the
// QuickJS module is rewritten, the snapshot built and compiled) and with the
// cache that run left (warm). Issue #5's goal: at most 0.4 s warm.
func BenchmarkNew(b *testing.B) {
	dir := b.TempDir()
	newWith := func(b *testing.B, dir string) {
		cfg := coderun.DefaultConfig()
		cfg.CacheDir = dir
		rt, err := coderun.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = rt.Close(context.Background())
		b.StartTimer()
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			newWith(b, dir+"/cold"+strconv.Itoa(i))
		}
	})
	newWith(b, dir+"/warm") // fill the cache
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			newWith(b, dir+"/warm")
		}
	})
}

// BenchmarkColdRunPrewarm measures a cold run (`return 1+1`) that takes an
// instance the Prewarm pool made ahead of time, with an idle pause between
// runs (not timed) so the pool refills, as on a machine that is otherwise
// idle. Like BenchmarkColdRunAlone it reports the median as ns/op. Issue
// #5's goal: at most 0.1 ms.
func BenchmarkColdRunPrewarm(b *testing.B) {
	cfg := coderun.DefaultConfig()
	cfg.Prewarm = 2
	rt, err := coderun.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	timeRuns(b, rt, 5*time.Millisecond)
}
