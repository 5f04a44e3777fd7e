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
// runtime; only that is timed. With -mode echo, the runtime also gets an
// async host function, echo; a promise completion value is awaited.
//
// With -n N it takes N samples, printing one JSON line per sample and a last
// line with the median. With -n 0 (the default) it takes one sample per line
// read from standard input and answers each with one JSON line, so that a
// caller can interleave its samples with other engines'; the summary line
// follows at end of input.
//
//	{"ns": 1234567}                  one sample
//	{"error": "..."}                 a failed sample
//	{"samples": 5, "median_ns": 1234567}
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/fastschema/qjs"
)

func main() {
	mode := flag.String("mode", "eval", "eval: plain script; echo: async script with the echo host function")
	script := flag.String("script", "", "file holding the script to evaluate")
	want := flag.String("want", "", "expected completion value, as JSON")
	n := flag.Int("n", 0, "number of samples; 0 reads one request per line of standard input")
	flag.Parse()
	src, err := os.ReadFile(*script)
	if err != nil {
		fatal(err)
	}
	r := runner{mode: *mode, script: string(src), want: *want}
	if r.mode != "eval" && r.mode != "echo" {
		fatal(fmt.Errorf("unknown mode %q", r.mode))
	}
	// The first qjs.New compiles the wasm module; keep that out of the samples.
	warm, err := qjs.New(qjs.Option{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		fatal(err)
	}
	warm.Close()
	out := json.NewEncoder(os.Stdout)
	var samples []time.Duration
	sample := func() {
		d, err := r.sample()
		if err != nil {
			_ = out.Encode(map[string]string{"error": err.Error()})
			return
		}
		samples = append(samples, d)
		_ = out.Encode(map[string]int64{"ns": d.Nanoseconds()})
	}
	if *n > 0 {
		for range *n {
			sample()
		}
	} else {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			sample()
		}
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
}

// sample times one fresh runtime: create, evaluate, read back, close.
func (r runner) sample() (d time.Duration, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	start := time.Now()
	got, err := r.evaluate()
	d = time.Since(start)
	if err != nil {
		return 0, err
	}
	if got != r.want {
		return 0, fmt.Errorf("completion value %s, want %s", got, r.want)
	}
	return d, nil
}

func (r runner) evaluate() (string, error) {
	rt, err := qjs.New(qjs.Option{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		return "", err
	}
	defer rt.Close()
	ctx := rt.Context()
	// Value.JSONStringify (QJS_JSONStringify) returns garbage for some
	// values in v0.0.6, so JSON text is made by JavaScript's JSON.stringify.
	stringify := ctx.Global().GetPropertyStr("JSON").GetPropertyStr("stringify")
	toJSON := func(v *qjs.Value) (string, error) {
		s, err := ctx.Invoke(stringify, ctx.NewUndefined(), v)
		if err != nil {
			return "", err
		}
		return s.String(), nil
	}
	if r.mode == "echo" {
		ctx.SetAsyncFunc("echo", func(this *qjs.This) { echo(this, toJSON) })
	}
	v, err := ctx.Eval("bench.js", qjs.Code(r.script))
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

// echo is the async host function of the binding round trip. Its argument
// crosses as JSON text, as a coderun binding's does, and the promise is
// resolved before the function returns: fastschema's runtime cannot be
// entered from another goroutine while the script runs, so this is the
// cheapest correct use of SetAsyncFunc.
func echo(this *qjs.This, toJSON func(*qjs.Value) (string, error)) {
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
