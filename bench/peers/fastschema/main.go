// Command fastschema is the fastschema/qjs peer of coderun's benchmarks.
//
// It is its own Go module because fastschema/qjs v0.0.6 fails at run time
// with wazero v1.12.0, which coderun uses; this module keeps v1.9.0, the
// version fastschema requires. The benchmarks two directories up build it
// and drive it as a subprocess; it can also be run by hand.
//
// The script to run is read from the file named by -script. Each sample
// creates a fresh runtime (qjs.New), evaluates the script, reads its
// completion value back as JSON, checks it against -want and closes the
// runtime; only that is timed. The mode says what else a sample does:
//
//	eval    nothing else
//	echo    the runtime gets an async host function, echo, that returns its
//	        argument; a promise completion value is awaited
//	sleep   the same with sleep, which sleeps 50 ms before it returns its
//	        argument (inside the call: the runtime cannot be entered from
//	        another goroutine while the script runs)
//	abort   the runtime is made with a context and CloseOnContextDone, the
//	        script (a runaway loop) is evaluated on a goroutine of its own,
//	        the context is cancelled -delay after Eval is called, and the
//	        sample is the time from the cancellation to Eval returning
//	idle    -runs runtimes at once each evaluate the script, which awaits
//	        wait, a host function that blocks until all of them are
//	        waiting; the answer is the growth of the Go heap and of the
//	        resident set per runtime
//
// With -n N it takes N samples, printing one JSON line per sample and a last
// line with the median. With -n 0 (the default) it takes one sample per line
// read from standard input and answers each with one JSON line, so that a
// caller can interleave its samples with other engines'; the summary line
// follows at end of input. Each request is served on a goroutine of its own,
// so that a caller can keep several samples going at once (to measure
// throughput); answers then come in the order the samples end.
//
//	{"ns": 1234567}                  one sample
//	{"heap_bytes": 12.5, "rss_bytes": 123.5, "pss_bytes": 99.5}   one idle sample, per runtime
//	{"error": "..."}                 a failed sample
//	{"samples": 5, "median_ns": 1234567}
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fastschema/qjs"
)

func main() {
	var r runner
	flag.StringVar(&r.mode, "mode", "eval", "eval, echo, sleep, abort or idle (see the package comment)")
	script := flag.String("script", "", "file holding the script to evaluate")
	flag.StringVar(&r.want, "want", "", "expected completion value, as JSON")
	n := flag.Int("n", 0, "number of samples; 0 reads one request per line of standard input")
	flag.DurationVar(&r.delay, "delay", 20*time.Millisecond, "abort: how long the script runs before the context is cancelled")
	flag.IntVar(&r.runs, "runs", 50, "idle: how many runtimes are alive at once")
	flag.Parse()
	src, err := os.ReadFile(*script)
	if err != nil {
		fatal(err)
	}
	r.script = string(src)
	if !slices.Contains([]string{"eval", "echo", "sleep", "abort", "idle"}, r.mode) {
		fatal(fmt.Errorf("unknown mode %q", r.mode))
	}
	// The first qjs.New compiles the wasm module; keep that out of the
	// samples. It also fixes CloseOnContextDone for every later runtime.
	warm, err := qjs.New(r.option(context.Background()))
	if err != nil {
		fatal(err)
	}
	warm.Close()
	var (
		mu      sync.Mutex // guards out and samples
		out     = json.NewEncoder(os.Stdout)
		samples []time.Duration
	)
	answer := func(v any, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if d > 0 {
			samples = append(samples, d)
		}
		_ = out.Encode(v)
	}
	sample := func() {
		var err error
		if r.mode == "idle" {
			var heap, rss, pss float64
			if heap, rss, pss, err = r.idle(); err == nil {
				answer(map[string]float64{"heap_bytes": heap, "rss_bytes": rss, "pss_bytes": pss}, 0)
				return
			}
		} else {
			var d time.Duration
			if d, err = r.timed(); err == nil {
				answer(map[string]int64{"ns": d.Nanoseconds()}, d)
				return
			}
		}
		answer(map[string]string{"error": err.Error()}, 0)
	}
	if *n > 0 {
		for range *n {
			sample()
		}
	} else {
		var wg sync.WaitGroup
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			wg.Go(sample)
		}
		wg.Wait()
	}
	_ = out.Encode(map[string]int64{"samples": int64(len(samples)), "median_ns": median(samples).Nanoseconds()})
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "fastschema:", err)
	os.Exit(2)
}

// runner evaluates one script in a fresh runtime per sample.
type runner struct {
	mode   string
	script string
	want   string
	delay  time.Duration
	runs   int
}

// option is the runtime option of every sample. Only abort mode uses
// CloseOnContextDone, fastschema's one way to stop a running script: it
// slows every evaluation down.
func (r runner) option(ctx context.Context) qjs.Option {
	return qjs.Option{Context: ctx, CloseOnContextDone: r.mode == "abort", Stdout: io.Discard, Stderr: io.Discard}
}

// timed takes one sample of the mode's kind.
func (r runner) timed() (time.Duration, error) {
	if r.mode == "abort" {
		return r.abort()
	}
	return r.sample()
}

// sample times one fresh runtime: create, evaluate, read back, close.
func (r runner) sample() (d time.Duration, err error) {
	start := time.Now()
	got, err := r.evaluate(context.Background(), nil)
	d = time.Since(start)
	if err != nil {
		return 0, err
	}
	if got != r.want {
		return 0, fmt.Errorf("completion value %s, want %s", got, r.want)
	}
	return d, nil
}

// abort evaluates the script on a goroutine of its own, cancels the
// runtime's context r.delay after the evaluation started and returns the
// time from then to Eval returning, which it must do with an error.
func (r runner) abort() (time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	returned := make(chan time.Time, 1)
	done := make(chan error, 1)
	go func() {
		_, err := r.evaluate(ctx, func() { returned <- time.Now() }, func(*qjs.Context) { close(started) })
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		return 0, fmt.Errorf("the script did not start: %v", err)
	}
	time.Sleep(r.delay)
	t0 := time.Now()
	cancel()
	if err := <-done; err == nil {
		return 0, errors.New("the script ended without being interrupted")
	}
	return (<-returned).Sub(t0), nil // sent before done
}

// idle makes r.runs runtimes at once, each awaiting its wait host function,
// which blocks until all are waiting, and returns the growth of the live
// Go heap, of the resident set and of the proportional set size per
// runtime.
func (r runner) idle() (heap, rss, pss float64, err error) {
	release := make(chan struct{})
	entered := make(chan struct{}, r.runs)
	errs := make(chan error, r.runs)
	heap0, rss0, pss0 := memory()
	for range r.runs {
		go func() {
			_, err := r.evaluate(context.Background(), nil, func(ctx *qjs.Context) {
				ctx.SetAsyncFunc("wait", func(this *qjs.This) {
					entered <- struct{}{}
					<-release
					_ = this.Promise().Resolve(this.Context().NewInt32(1))
				})
			})
			errs <- err
		}()
	}
	for k := 0; k < r.runs; {
		select {
		case <-entered:
			k++
		case err := <-errs:
			close(release)
			return 0, 0, 0, fmt.Errorf("a run ended before its wait call: %v", err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	heap1, rss1, pss1 := memory()
	close(release)
	for range r.runs {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	n := float64(r.runs)
	return float64(heap1-heap0) / n, float64(rss1-rss0) / n, float64(pss1-pss0) / n, err
}

// memory collects garbage, returns freed memory to the system and reads
// the live Go heap, the resident set size and the proportional set size
// (a page mapped n times counts 1/n each time), in bytes; 0 for a figure
// it cannot read.
func memory() (heap, rss, pss int64) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap = int64(ms.HeapAlloc)
	if raw, err := os.ReadFile("/proc/self/statm"); err == nil {
		pages, _ := strconv.ParseInt(strings.Fields(string(raw))[1], 10, 64)
		rss = pages * int64(os.Getpagesize())
	}
	if raw, err := os.ReadFile("/proc/self/smaps_rollup"); err == nil {
		for line := range strings.Lines(string(raw)) {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "Pss:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				pss = kb << 10
			}
		}
	}
	return heap, rss, pss
}

// evaluate runs the script in a fresh runtime made with ctx and returns
// its completion value as JSON. setup, if any, runs just before Eval is
// called; returned, if not nil, as soon as Eval returns.
func (r runner) evaluate(ctx context.Context, returned func(), setup ...func(*qjs.Context)) (_ string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	rt, err := qjs.New(r.option(ctx))
	if err != nil {
		return "", err
	}
	defer rt.Close()
	qctx := rt.Context()
	// Value.JSONStringify (QJS_JSONStringify) returns garbage for some
	// values in v0.0.6, so JSON text is made by JavaScript's JSON.stringify.
	stringify := qctx.Global().GetPropertyStr("JSON").GetPropertyStr("stringify")
	toJSON := func(v *qjs.Value) (string, error) {
		s, err := qctx.Invoke(stringify, qctx.NewUndefined(), v)
		if err != nil {
			return "", err
		}
		return s.String(), nil
	}
	switch r.mode {
	case "echo":
		qctx.SetAsyncFunc("echo", func(this *qjs.This) { echo(this, toJSON, 0) })
	case "sleep":
		qctx.SetAsyncFunc("sleep", func(this *qjs.This) { echo(this, toJSON, sleepTime) })
	}
	for _, f := range setup {
		f(qctx)
	}
	v, err := evalReturned(qctx, r.script, returned)
	if err != nil {
		return "", err
	}
	if v.IsPromise() { // QJS_Eval already runs the job loop; this is a fallback
		if v, err = v.Await(); err != nil {
			return "", err
		}
	}
	return toJSON(v)
}

// evalReturned evaluates script and calls returned, if not nil, as soon as
// Eval returns or panics (a runtime whose context was cancelled panics).
func evalReturned(ctx *qjs.Context, script string, returned func()) (*qjs.Value, error) {
	if returned != nil {
		defer returned()
	}
	return ctx.Eval("bench.js", qjs.Code(script))
}

// sleepTime is how long one call of sleep takes.
const sleepTime = 50 * time.Millisecond

// echo is the async host function of the binding round trip, and after a
// pause of d, of the parallel sleeps. Its argument crosses as JSON text, as
// a coderun binding's does, and the promise is resolved before the
// function returns: fastschema's runtime cannot be entered from another
// goroutine while the script runs, so this is the cheapest correct use of
// SetAsyncFunc.
func echo(this *qjs.This, toJSON func(*qjs.Value) (string, error), d time.Duration) {
	ctx := this.Context()
	args := this.Args()
	if len(args) != 1 {
		_ = this.Promise().Reject(ctx.NewError(errors.New("echo takes one argument")))
		return
	}
	in, err := toJSON(args[0])
	if err != nil {
		_ = this.Promise().Reject(ctx.NewError(err))
		return
	}
	if d > 0 {
		time.Sleep(d)
	}
	out := json.RawMessage(in) // what a Go binding would receive and return
	_ = this.Promise().Resolve(ctx.ParseJSON(string(out)))
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
