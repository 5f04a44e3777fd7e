package bench

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
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
// binding, and reports the growth of the process's resident memory per live
// run. Issue #5's goal: at most 1 MiB per idle run.
func BenchmarkIdleRunRSS(b *testing.B) {
	const runs = 50
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	for b.Loop() {
		release := make(chan struct{})
		var waiting sync.WaitGroup
		waiting.Add(runs)
		ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
			"wait": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				waiting.Done()
				<-release
				return json.RawMessage(`1`), nil
			},
		}}
		// One run first, so that the engine's own one-time allocations are
		// not counted.
		if _, err := rt.Run(context.Background(), coderun.Request{Program: "return 1"}); err != nil {
			b.Fatal(err)
		}
		before := rssBytes(b)
		var done sync.WaitGroup
		for range runs {
			done.Add(1)
			go func() {
				defer done.Done()
				_, _ = rt.Run(context.Background(), coderun.Request{Program: `return await tools.wait({})`, Bindings: []coderun.Namespace{ns}})
			}()
		}
		waiting.Wait()
		time.Sleep(50 * time.Millisecond)
		after := rssBytes(b)
		close(release)
		done.Wait()
		b.ReportMetric(float64(after-before)/runs/1024, "KiB/idle-run")
	}
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

// rssBytes reads the process's resident set size from /proc/self/statm.
func rssBytes(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		b.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(raw))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// BenchmarkColdRunPrewarm measures a cold run (`return 1+1`) that takes an
// instance the Prewarm pool made ahead of time, with an idle pause between
// runs (not timed) so the pool refills, as on a machine that is otherwise
// idle. Issue #5's goal: at most 0.1 ms.
func BenchmarkColdRunPrewarm(b *testing.B) {
	cfg := coderun.DefaultConfig()
	cfg.Prewarm = 2
	rt, err := coderun.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	req := coderun.Request{Program: "return 1+1"}
	for b.Loop() {
		b.StopTimer()
		time.Sleep(5 * time.Millisecond)
		b.StartTimer()
		res, err := rt.Run(context.Background(), req)
		if err != nil || string(res.Value) != "2" {
			b.Fatalf("run: %v %+v", err, res.Error)
		}
	}
}
