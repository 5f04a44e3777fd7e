package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/coderun/coderun"
)

// workload is one program that every engine runs, in a fresh VM per sample.
type workload struct {
	// body is the coderun program: the body of an async function.
	body string
	// host, if set, names the one async host function the program calls,
	// as tools.<host>; fn is that function. The peers get it as a global
	// function of that name and run the body in an async function.
	host string
	fn   coderun.Func
	// want is the completion value every engine must produce, as JSON.
	want string
	// calls is the number of binding calls one run makes, or 0.
	calls int
}

// script is the workload as a plain script for the peers: the same body in
// a strict function whose call is the script's completion value. A workload
// with a host function is an async function, whose completion value is a
// promise, and its tools.<host> is the engine's global function <host>.
func (w workload) script() string {
	if w.host != "" {
		return "(async function (tools) {\"use strict\";\n" + w.body + "\n})({" + w.host + "})"
	}
	return "(function () {\"use strict\";\n" + w.body + "\n})()"
}

// echoCalls is the number of sequential binding calls of the round-trip run.
const echoCalls = 10_000

// coldRun returns 1+1: the cost of a run is the cost of a fresh VM.
func coldRun() workload { return workload{body: "return 1+1", want: "2"} }

// fib computes the n-th Fibonacci number by naive recursion; fib(27) makes
// about 300,000 calls.
func fib(n int) workload {
	a, b := 0, 1
	for range n {
		a, b = b, a+b
	}
	return workload{
		body: `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
return fib(` + strconv.Itoa(n) + `)`,
		want: strconv.Itoa(a),
	}
}

// echoLoop awaits n sequential tools.echo calls and sums what they return.
func echoLoop(n int) workload {
	return workload{
		body: `let s = 0;
for (let i = 0; i < ` + strconv.Itoa(n) + `; i++) { const r = await tools.echo({i}); s += r.i }
return s`,
		host:  "echo",
		fn:    echo,
		want:  strconv.Itoa(n * (n - 1) / 2),
		calls: n,
	}
}

// summary is the 20-line program (testdata/summary.js, shared with the
// runtime's tests): it builds 1,000 order objects, filters and maps them and
// returns a summary, a small realistic program whose run is mostly a cold
// start.
func summary() workload {
	src, err := os.ReadFile(testdataFile("summary.js"))
	if err != nil {
		panic(err)
	}
	return workload{
		body: strings.TrimSuffix(string(src), "\n"),
		want: `{"count":601,"first":"CUST-1","top":"east","total":3743446}`,
	}
}

// parallelSleeps awaits Promise.all of n calls of tools.sleep, each of which
// sleeps 50 ms in Go: about 50 ms of wall time where the calls overlap,
// n times that where each call resolves before the next one starts.
func parallelSleeps(n int) workload {
	return workload{
		body: `const r = await Promise.all(Array.from({length: ` + strconv.Itoa(n) + `}, (_, i) => tools.sleep({i})));
return r.reduce((s, x) => s + x.i, 0)`,
		host: "sleep",
		fn:   sleep,
		want: strconv.Itoa(n * (n - 1) / 2),
	}
}

// jsonWorkload parses and re-stringifies doc, which is embedded in the
// program as a string literal, and returns the length of the result; doc is
// compact JSON that JSON.stringify reproduces byte for byte, so the length
// is len(doc).
func jsonWorkload(doc string) workload {
	lit, err := json.Marshal(doc) // a JSON string is a JavaScript string literal
	if err != nil {
		panic(err)
	}
	return workload{
		body: "const doc = " + string(lit) + ";\nreturn JSON.stringify(JSON.parse(doc)).length",
		want: strconv.Itoa(len(doc)),
	}
}

// jsonDocObjects is the number of objects in the JSON1MB document.
const jsonDocObjects = 6700

// jsonDoc returns the JSON1MB document: a compact JSON array of 6,700
// objects, about 1 MB of ASCII, generated from a fixed seed so that it is
// the same on every call. Its numbers are integers or have at most two
// decimals, which Go and JavaScript format alike.
func jsonDoc() string {
	type owner struct {
		Login string `json:"login"`
		Team  int    `json:"team"`
	}
	type item struct {
		ID     int      `json:"id"`
		Name   string   `json:"name"`
		Active bool     `json:"active"`
		Score  float64  `json:"score"`
		Tags   []string `json:"tags"`
		Owner  owner    `json:"owner"`
		Note   string   `json:"note"`
	}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	state := uint32(0x9e3779b9)
	next := func(n int) int { // xorshift32
		state ^= state << 13
		state ^= state >> 17
		state ^= state << 5
		return int(state % uint32(n))
	}
	items := make([]item, jsonDocObjects)
	for i := range items {
		it := &items[i]
		it.ID = i
		it.Name = "item-" + strconv.Itoa(100000+i)
		it.Active = next(2) == 0
		it.Score = float64(next(1_000_000)) / 100
		for range 1 + next(4) {
			it.Tags = append(it.Tags, words[next(len(words))])
		}
		it.Owner = owner{Login: "user" + strconv.Itoa(next(5000)), Team: next(40)}
		var note strings.Builder
		for note.Len() < 3+next(11) {
			note.WriteString(words[next(len(words))])
			note.WriteByte(' ')
		}
		it.Note = strings.TrimSpace(note.String())
	}
	doc, err := json.Marshal(items)
	if err != nil {
		panic(err)
	}
	return string(doc)
}

// echo is the binding of the round-trip workload: it returns its argument.
func echo(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
	return args, nil
}

// sleepTime is how long one call of sleep takes.
const sleepTime = 50 * time.Millisecond

// sleep is the binding of parallelSleeps: it returns its argument after
// sleepTime, or ctx's error if ctx ends first.
func sleep(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	return sleepFor(ctx, sleepTime, args)
}

// sleepFor returns args after d, or ctx's error if ctx ends first.
func sleepFor(ctx context.Context, d time.Duration, args json.RawMessage) (json.RawMessage, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return args, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
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
