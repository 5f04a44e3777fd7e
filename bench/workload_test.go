package bench

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// workload is one program that every engine runs, in a fresh VM per sample.
type workload struct {
	// body is the coderun program: the body of an async function.
	body string
	// async says the program awaits tools.echo; the peers get an echo
	// function and run the body in an async function.
	async bool
	// want is the completion value every engine must produce, as JSON.
	want string
	// calls is the number of binding calls one run makes, or 0.
	calls int
}

// script is the workload as a plain script for the peers: the same body in
// a strict function whose call is the script's completion value. An async
// workload's completion value is a promise, and its tools.echo is the
// engine's global echo function.
func (w workload) script() string {
	if w.async {
		return "(async function (tools) {\"use strict\";\n" + w.body + "\n})({echo})"
	}
	return "(function () {\"use strict\";\n" + w.body + "\n})()"
}

// echoCalls is the number of sequential binding calls of the round-trip run.
const echoCalls = 10_000

// coldRun returns 1+1: the cost of a run is the cost of a fresh VM.
func coldRun() workload { return workload{body: "return 1+1", want: "2"} }

// fib27 computes the 27th Fibonacci number by naive recursion (about
// 300,000 calls).
func fib27() workload {
	return workload{
		body: `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
return fib(27)`,
		want: "196418",
	}
}

// echoLoop awaits n sequential tools.echo calls and sums what they return.
func echoLoop(n int) workload {
	return workload{
		body: `let s = 0;
for (let i = 0; i < ` + strconv.Itoa(n) + `; i++) { const r = await tools.echo({i}); s += r.i }
return s`,
		async: true,
		want:  strconv.Itoa(n * (n - 1) / 2),
		calls: n,
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
