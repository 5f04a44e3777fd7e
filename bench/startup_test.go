package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
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
// binding, and reports the growth of the process's resident memory (RSS,
// and its proportional share, PSS: see growth) and of its live Go heap
// per live run. Issue #5's goal: at most 1 MiB per idle
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
		g, err := idleGrowth(idleRuns, idleProgram, func(w workload) (string, error) { return runCoderun(rt, w) })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(g.rss/1024, "KiB/idle-run")
		b.ReportMetric(g.pss/1024, "pss-KiB/idle-run")
		b.ReportMetric(g.heap/1024, "heap-KiB/idle-run")
	}
}

// BenchmarkSuspendedRSS is BenchmarkIdleRunRSS for runs of the 20-line
// program suspended just before it returns (suspendedProgram), as the
// table's "suspended 20-line program" rows measure them: the growth of RSS,
// PSS and the live Go heap per run, 50 alive at once. The goal: at most
// 0.5 MB of RSS per run. Like BenchmarkIdleRunRSS it reports its last
// sample: with -benchtime 10x, one taken once the engine's memory pool has
// learned which pages of the image runs read and write (a process's first
// samples are higher).
func BenchmarkSuspendedRSS(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	p := suspendedProgram()
	for b.Loop() {
		if _, err := runCoderun(rt, coldRun()); err != nil {
			b.Fatal(err)
		}
		g, err := idleGrowth(idleRuns, p, func(w workload) (string, error) { return runCoderun(rt, w) })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(g.rss/1024, "KiB/suspended-run")
		b.ReportMetric(g.pss/1024, "pss-KiB/suspended-run")
		b.ReportMetric(g.heap/1024, "heap-KiB/suspended-run")
	}
}

// idleRuns is how many runs idleGrowth keeps alive at once.
const idleRuns = 50

// idleSettle is how long idleGrowth waits before it takes its baseline:
// coderun's memory pool unmaps the memories that earlier runs freed beyond
// those it keeps on a goroutine of its own, and a baseline taken while it
// does counts some of their pages, which makes the growth look smaller
// (by up to 190 KiB per run, measured back to back, since each memory maps
// the snapshot's image in about 60 pieces, whose unmapping takes longer).
const idleSettle = 250 * time.Millisecond

// growth is how much memory each live run adds, in bytes: of the live Go
// heap, of the resident set (RSS), and of the proportional set size (PSS).
// RSS counts a page once for every mapping of it, so a page of a file
// that 50 runs map counts 50 times; PSS counts it once, divided among
// them, and is the memory the runs take from the machine.
type growth struct{ heap, rss, pss float64 }

// idleProgram awaits tools.wait and returns what it resolves to, 1: a run
// that holds nothing of its own while it waits.
var idleProgram = workload{body: `return await tools.wait({})`, host: "wait", want: "1"}

// suspendedProgram is the summary workload (the table's 20-line program)
// awaiting tools.wait just before it returns: a run that holds its 1,000
// orders and 601 lines while it waits.
func suspendedProgram() workload {
	w := summary()
	const last = "\nreturn {"
	i := strings.LastIndex(w.body, last)
	if i < 0 {
		panic("summary's body has no final return")
	}
	w.body = w.body[:i] + "\nawait tools.wait({});" + w.body[i:]
	w.host = "wait"
	return w
}

// idleGrowth starts n runs of p, a program that calls tools.wait, a host
// function that blocks until all n runs are waiting and then returns 1,
// and returns the growth of the live Go heap and of the resident set per
// run from before the runs started to when all were waiting.
func idleGrowth(n int, p workload, run func(workload) (string, error)) (growth, error) {
	release := make(chan struct{})
	entered := make(chan struct{}, n)
	w := p
	w.fn = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		entered <- struct{}{}
		<-release
		return json.RawMessage(`1`), nil
	}
	errs := make(chan error, n)
	time.Sleep(idleSettle)
	heap0, rss0, pss0, err := memoryInUse()
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
	heap1, rss1, pss1, err := memoryInUse()
	close(release)
	for range n {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	per := func(a, b int64) float64 { return float64(b-a) / float64(n) }
	return growth{heap: per(heap0, heap1), rss: per(rss0, rss1), pss: per(pss0, pss1)}, err
}

// memoryInUse collects garbage, returns freed memory to the system and
// reads the live Go heap, the resident set size and the proportional set
// size (see growth), in bytes.
func memoryInUse() (heap, rss, pss int64, err error) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, 0, err
	}
	pages, err := strconv.ParseInt(strings.Fields(string(raw))[1], 10, 64)
	if err != nil {
		return 0, 0, 0, err
	}
	pss, err = readPss()
	return int64(ms.HeapAlloc), pages * int64(os.Getpagesize()), pss, err
}

// readPss reads this process's proportional set size from
// /proc/self/smaps_rollup, in bytes.
func readPss() (int64, error) {
	raw, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(raw)) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "Pss:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no Pss line in /proc/self/smaps_rollup")
}

// BenchmarkNew measures coderun.New with an empty cache directory (cold)
// and with the cache that run left (warm). The engine's compiled code is
// shared by every Runtime of a process, so only the first New of a process
// compiles it: cold times the later ones, which also write nothing new (see
// BenchmarkNewFirst for a process's first). Issue #5's goal: at most 0.4 s
// warm.
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

// BenchmarkNewFirst measures the first coderun.New of a process, with
// DefaultConfig (no cache directory: the embedded engine is decompressed
// and compiled), in a child process per iteration (TestNewFirstChild); the
// child times New itself, so process start-up is not counted. Issue #16's
// goal: at most 0.6 s.
func BenchmarkNewFirst(b *testing.B) {
	var total, cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewFirstChild$", "-test.v")
		cmd.Env = append(os.Environ(), newFirstChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var ns, cpuNs int64
		if _, after, ok := strings.Cut(string(out), "new-ns "); !ok {
			b.Fatalf("child printed no time:\n%s", out)
		} else if _, err := fmt.Sscanf(after, "%d cpu-ns %d", &ns, &cpuNs); err != nil {
			b.Fatalf("child printed no time (%v):\n%s", err, out)
		}
		total += time.Duration(ns)
		cpu += time.Duration(cpuNs)
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/new")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/new")
}

// newFirstChildEnv makes TestNewFirstChild run.
const newFirstChildEnv = "CODERUN_BENCH_NEW_FIRST"

// TestNewFirstChild is BenchmarkNewFirst's child: it times this process's
// first coderun.New and prints "new-ns <nanoseconds> cpu-ns <nanoseconds>"
// (wall time, and the process's CPU time during New).
func TestNewFirstChild(t *testing.T) {
	if os.Getenv(newFirstChildEnv) != "1" {
		t.Skip("run by BenchmarkNewFirst")
	}
	start, cpu0 := time.Now(), cpuTime()
	rt, err := coderun.New(coderun.DefaultConfig())
	d, cpu := time.Since(start), cpuTime()-cpu0
	if err != nil {
		t.Fatal(err)
	}
	_ = rt.Close(context.Background())
	fmt.Printf("new-ns %d cpu-ns %d\n", d.Nanoseconds(), cpu.Nanoseconds())
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
