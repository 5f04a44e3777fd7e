package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// testCacheDir is shared by this package's tests, so that the engine is
// compiled once, not per test (as a process using the CLI's cache directory
// would).
func testCacheDir(t testing.TB) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return t.TempDir()
	}
	return filepath.Join(dir, "coderun")
}

func testEngine(t testing.TB) *Engine {
	t.Helper()
	return testEngineWith(t, func(*budget.Limits) {})
}

// testLimits are the limits of testEngine; a budget they do not name (one
// just added to budget.Fields) takes its default.
func testLimits() budget.Limits {
	return budget.Limits{
		Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: time.Minute,
		MemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults()
}

// testEngineWith is testEngine with its limits changed by change.
func testEngineWith(t testing.TB, change func(*budget.Limits)) *Engine {
	t.Helper()
	limits := testLimits()
	change(&limits)
	e, err := New(context.Background(), Options{Limits: limits, CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}

// echoTools is a namespace tools, error class ToolError (property tool),
// whose one member, echo, returns its argument.
func echoTools() []Binding {
	return []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}}
}

// mustRun runs program without bindings; Run must not fail as misuse.
func mustRun(t *testing.T, e *Engine, program string) Outcome {
	t.Helper()
	o, err := e.run(context.Background(), program, nil)
	require.NoError(t, err)
	return o
}

// A program that reached the raw host function could send any operands.
// Go validates every one: nothing undeclared is called, nothing crashes,
// and the run goes on normally.
func TestForgedHostCalls(t *testing.T) {
	e := testEngine(t)
	var calls atomic.Int64
	bindings := []Binding{{Global: "tools", Functions: map[string]Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			calls.Add(1)
			return args, nil
		},
	}}}
	r := newRun(context.Background(), e, `await new Promise(r => setTimeout(r, 20)); return await tools.echo("real")`, bindings)
	defer r.cleanup()
	r.start()
	require.False(t, r.ended)

	// The function NewFunctionProxy makes is the raw host function itself
	// (a C function calling env.jsFunctionProxy with its arguments as they
	// are, the first four skipped): the forger calls it directly.
	forge, err := r.in.Eval(`(function (raw) {
		const out = [];
		out.push(raw(0, 0, 0, undefined, 2, 99, 0, "{}"));               // no such namespace
		out.push(raw(0, 0, 0, undefined, 2, -1, 0, "{}"));
		out.push(raw(0, 0, 0, undefined, 2, 0, 1, "{}"));                // undeclared member
		out.push(raw(0, 0, 0, undefined, 2, 0, "echo", "{}"));           // a member name, not its index
		out.push(raw(0, 0, 0, undefined, 2, 0, 0, "{bad json"));         // not JSON
		out.push(raw(0, 0, 0, undefined, 2, 0, 0, "[1e400]"));           // not lossless
		out.push(raw(0, 0, 0, undefined, 2, 0, 0, "\"\\ud800\""));      // lone surrogate
		out.push(raw(0, 0, 0, undefined, 2, 0.5, {}, 5));                // wrong types
		out.push(raw(0, 0, 0, undefined, 2, 0, 0));                      // too few operands
		out.push(raw(0, 0, 0, undefined, 42, 1, 2, 3));                  // unknown op
		out.push(raw(0, 0, 0, undefined, "2", 0, 0, "1"));               // op not a number
		out.push(raw(0, 0, 0, undefined));                               // no op at all
		out.push(raw(0, 0, 0, undefined, 4, 123456));                    // clear an unknown timer
		out.push(raw(0, 0, 0, undefined, 5, 77, "x"));                   // done with an unknown kind
		out.push(raw(0, 0, 0, undefined, 1, 0, 12345));                  // log a non-string
		out.push(raw(0, 0, 0, undefined, 6, 99, 0, {}));                 // a value for no such namespace
		out.push(raw(0, 0, 0, undefined, 6, 0, 0, new Date()));          // a value not read in place: text needed
		out.push(raw(0, 0, 0, undefined, 6, 0, 0, [2**60]));             // read in place, not lossless for Go
		out.push(raw(0, 0, 0, undefined, 6, 0, 0));                      // too few operands
		out.push(raw(0, 0, 0, undefined, 7, new Date()));                // a completion value not read in place
		out.push(raw(0, 0, 0, undefined, 7, [2**60]));                   // read in place, not lossless for Go
		out.push(raw(0, 0, 0, undefined, 7, {a: -0}));                   // -0: the guest decides
		out.push(raw(0, 0, 0, undefined, 7));                            // too few operands
		out.push(raw(0, 0, 0, undefined, 8, 1));                         // the figures of no refusal
		out.push(raw(0, 0, 0, undefined, 8, {}));                        // figure of a wrong type
		out.push(raw(0, 0, 0, undefined, 9, 1, 1));                      // a position in the wrapper's header
		out.push(raw(0, 0, 0, undefined, 9, 1e6, 1));                    // a line past the program
		out.push(raw(0, 0, 0, undefined, 9, 2, -5));                     // a negative column
		out.push(raw(0, 0, 0, undefined, 9, 2.5, {}));                   // operands of wrong types
		out.push(raw(0, 0, 0, undefined, 9, 2));                         // too few operands
		out.push(raw(0, 0, 0, undefined, 9, 3, 1) === 2 ** 26 + 1);      // the start of the program (run as written): line 1, column 1
		return JSON.stringify(out);
	})`, "forge.js", 0)
	require.NoError(t, err)
	wrapper, err := r.in.NewFunctionProxy(0)
	require.NoError(t, err)
	v, err := r.in.Call(forge, 0x300000000, wrapper)
	require.NoError(t, err)
	s, err := r.in.String(v)
	require.NoError(t, err)
	require.Equal(t, `[-1,-1,-1,-1,-1,-1,-1,-1,0,0,-1,-1,0,0,0,-1,-2,-1,0,-2,-2,-2,-2,0,0,-1,-1,-1,-1,-1,true]`, s)
	require.Zero(t, calls.Load(), "no forged call may reach a host function")
	require.False(t, r.ended)

	for !r.ended {
		r.wait()
	}
	o := r.outcome()
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, `"real"`, string(o.Value))
	require.Equal(t, int64(1), calls.Load())
	require.Empty(t, o.Logs)
}

// A panic on a detached run's goroutine (a bug, not a binding's panic,
// which rejects its call) is raised again on the caller's goroutine, as it
// would be if the run had executed there.
func TestDetachedRunPanicReachesCaller(t *testing.T) {
	e := testEngine(t)
	r := newRun(context.Background(), e, `return 1`, []Binding{{Global: "tools", Functions: map[string]Func{}}})
	r.e = &Engine{closing: make(chan struct{})} // no program cache: start dereferences nil
	require.Panics(t, func() { r.executeDetached() })
}

// testPrivateEngine is testEngine with a compiled engine, and so a memory
// pool, of its own (Options.private): for tests that measure memories no
// other test's runs have used.
func testPrivateEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(context.Background(), Options{Limits: testLimits(), CacheDir: testCacheDir(t), private: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}
