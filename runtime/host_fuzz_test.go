package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
)

// forgedOperands are the operands FuzzHostCalls draws from: every JavaScript
// type, numbers at the edges of the host's checks, texts that are not JSON,
// not lossless, or large.
var forgedOperands = []string{
	`0`, `1`, `2`, `-1`, `99`, `0.5`, `2**31`, `-(2**31)`, `2**53`, `NaN`, `-0`, `Infinity`, `1e21`,
	`"x"`, `"{}"`, `"[1e400]"`, `"\"\\ud800\""`, `"{bad"`, `"1"`, `"x".repeat(1 << 20)`,
	`{}`, `[]`, `[2**60]`, `({a: -0})`, `[1, [2, [3]]]`, `new Date()`, `new Proxy({}, {})`,
	`undefined`, `null`, `true`, `Symbol()`, `10n`, `(() => 1)`, `new Uint8Array(4)`,
}

// FuzzHostCalls sends the host the operands a forged prelude could send:
// any operation (log, call, timer, clear, done, the in-place forms, the
// refusal figures, unknown ones) with any operands, many times. Whatever
// arrives, the host neither panics nor calls anything beyond the calls it
// was asked to make, holds no more than the run's memory budget, and ends
// the run with an outcome.
func FuzzHostCalls(f *testing.F) {
	f.Add([]byte{2, 3, 0, 0, 14})
	f.Add([]byte{6, 3, 0, 0, 20, 7, 1, 22})
	f.Add([]byte{3, 1, 1, 3, 1, 5, 4, 1, 0})
	f.Add([]byte{5, 2, 0, 13, 1, 2, 0, 19, 8, 1, 2})
	f.Add([]byte{7, 1, 26, 5, 2, 1, 14})
	f.Add([]byte{11, 4, 1, 2, 3, 4, 0, 0})

	e := fuzzEngine(f)
	// Each input counts its own calls: a call that starts after its run
	// settled belongs to the caller (contract §3) and may still be
	// starting while the next input runs, so one shared counter would
	// charge it to the wrong input.
	bindings := []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			ctx.Value(callCounter{}).(*atomic.Int64).Add(1)
			return args, nil
		},
	}}}

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			data = data[:256]
		}
		forged := forgedCalls(data)
		calls := new(atomic.Int64)
		r := newRun(context.WithValue(context.Background(), callCounter{}, calls), e, `await new Promise(r => setTimeout(r, 1)); return await tools.echo("real")`, bindings)
		r.start()
		if r.ended {
			t.Fatalf("the run ended before the forged calls: %s", r.message)
		}
		forge, err := r.in.Eval(`(function (w) {
			let raw;
			const d = Object.getOwnPropertyDescriptor(Function.prototype, "call");
			Object.defineProperty(Function.prototype, "call", { value: function () { raw = this }, configurable: true, writable: true });
			try { w() } finally { Object.defineProperty(Function.prototype, "call", d) }
			`+forged+`
		})`, "forge.js", 0)
		if err != nil || forge.IsException() {
			t.Fatalf("the forging script does not compile: %v\n%s", err, forged)
		}
		wrapper, err := r.in.NewFunctionProxy(0)
		if err != nil {
			t.Fatal(err)
		}
		// The host may end the run from any forged call: the call then
		// unwinds with an error, which is all this test expects of it.
		r.guest(func() error {
			_, err := r.in.Call(forge, 0x300000000, wrapper)
			return err
		})
		for !r.ended {
			r.wait()
		}
		o := r.outcome()
		forgedEnd := strings.Contains(forged, "undefined, 05") || strings.Contains(forged, "undefined, 07")
		if o.Kind == "" && string(o.Value) != `"real"` && !forgedEnd {
			t.Fatalf("the run settled with %s although nothing forged its completion", o.Value)
		}
		if o.PeakMemory > e.limits.MemoryBytes {
			t.Fatalf("peak memory %d over the budget %d", o.PeakMemory, e.limits.MemoryBytes)
		}
		r.cleanup()
		// Calls made before the run settled start by now or never.
		if made := calls.Load(); made > int64(strings.Count(forged, "raw(")+1) {
			t.Fatalf("%d calls reached the binding, more than were made", made)
		}
	})
}

// callCounter is the context key under which FuzzHostCalls passes each
// input's call counter to the binding.
type callCounter struct{}

// forgedCalls turns data into JavaScript statements, each one forged host
// call: an operation, an operand count and the operands, drawn from
// forgedOperands. A call that throws (the host may end the run from any
// of them) ends the sequence.
func forgedCalls(data []byte) string {
	var b strings.Builder
	for i := 0; i+1 < len(data); {
		op, n := int(data[i]%12), int(data[i+1]%5)
		i += 2
		b.WriteString("raw(0, 0, 0, undefined, ")
		b.WriteString(string(rune('0' + op/10)))
		b.WriteString(string(rune('0' + op%10)))
		for j := 0; j < n && i < len(data); j++ {
			b.WriteString(", ")
			b.WriteString(forgedOperands[int(data[i])%len(forgedOperands)])
			i++
		}
		b.WriteString(");\n")
	}
	return b.String()
}

// fuzzEngine is an engine with small budgets, so that a forged run ends
// quickly whatever it asked for.
func fuzzEngine(f *testing.F) *Engine {
	e, err := New(context.Background(), Options{Limits: budget.Limits{
		Fuel: 1 << 32, ComputeTime: 5 * time.Second, WallTime: 5 * time.Second,
		MemoryBytes: 32 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 1 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults(), CacheDir: testCacheDir(f)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}
