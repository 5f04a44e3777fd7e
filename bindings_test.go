package coderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

func runWith(t *testing.T, rt *coderun.Runtime, program string, ns ...coderun.Namespace) coderun.Result {
	t.Helper()
	res, err := rt.Run(context.Background(), coderun.Request{Program: program, Bindings: ns})
	require.NoError(t, err)
	return res
}

// Calls really overlap: each of three calls waits until all three are in
// flight at once, which can only happen if they run concurrently.
func TestCallsRunConcurrently(t *testing.T) {
	rt := newRuntime(t, nil)
	var arrived sync.WaitGroup
	arrived.Add(3)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"sleep": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			arrived.Done()
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				return nil, errors.New("calls did not overlap")
			}
			time.Sleep(100 * time.Millisecond)
			return args, nil
		},
	}}
	res := runWith(t, rt, `return await Promise.all([tools.sleep(1), tools.sleep("two"), tools.sleep({n: 3})])`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `[1,"two",{"n":3}]`, string(res.Value))
}

func TestMaxConcurrentCalls(t *testing.T) {
	rt := newRuntime(t, map[string]any{"MaxConcurrentCalls": float64(16)})
	var inFlight, peak atomic.Int64
	var order []int
	var mu sync.Mutex
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"work": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			var i int
			_ = json.Unmarshal(args, &i)
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			inFlight.Add(-1)
			return args, nil
		},
	}}
	res := runWith(t, rt, `const ps = []; for (let i = 0; i < 1000; i++) ps.push(tools.work(i)); const r = await Promise.all(ps); return r.reduce((a, b) => a + b, 0)`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `499500`, string(res.Value))
	require.LessOrEqual(t, peak.Load(), int64(16))
	require.Equal(t, int64(16), peak.Load(), "the limit should be reached with 1000 calls")
	// Queued calls start in submission order: when call i runs, at most 15
	// other calls are in flight, so at least i-15 of the calls submitted
	// before it have already run.
	require.Len(t, order, 1000)
	for p, i := range order {
		earlier := 0
		for _, j := range order[:p] {
			if j < i {
				earlier++
			}
		}
		require.GreaterOrEqual(t, earlier, i-15, "call %d started before earlier calls", i)
	}
}

func TestSequentialCalls(t *testing.T) {
	rt := newRuntime(t, nil)
	var calls atomic.Int64
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			calls.Add(1)
			return args, nil
		},
	}}
	res := runWith(t, rt, `let s = 0; for (let i = 0; i < 10000; i++) { const r = await tools.echo({i}); s += r.i } return s`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `49995000`, string(res.Value))
	require.Equal(t, int64(10000), calls.Load())
}

// Every delivered result is released once the program drops it: 2,000
// results of 64 KiB each, under a 16 MiB memory cap, would end the run as
// worker-exit if the host kept a reference to any large share of them.
func TestDeliveredResultsAreFreed(t *testing.T) {
	rt := newRuntime(t, map[string]any{"MemoryBytes": float64(16 << 20)})
	big := json.RawMessage(`{"s":"` + strings.Repeat("x", 64<<10) + `"}`)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"big": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return big, nil },
	}}
	res := runWith(t, rt, `let n = 0; for (let i = 0; i < 2000; i++) { n += (await tools.big({i})).s.length } return n`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `131072000`, string(res.Value))
}

func TestBindingPanics(t *testing.T) {
	rt := newRuntime(t, nil)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"boom": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { panic("kaput") },
	}, ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}}
	res := runWith(t, rt, `try { await tools.boom({}) } catch (e) { return [e instanceof ToolCallError, e.toolName, e.message] }`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `[true,"boom","binding \"boom\" panicked: kaput"]`, string(res.Value))
}

func TestBadResolutions(t *testing.T) {
	rt := newRuntime(t, nil)
	for _, out := range []string{"", `{"id": 9007199254740993}`, `{"a":1,"a":2}`, `[1,`, `-0`, `"\ud800"`, `1e400`} {
		ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
			"get": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				if out == "" {
					return nil, nil
				}
				return json.RawMessage(out), nil
			},
		}}
		res := runWith(t, rt, `try { await tools.get({}); return "resolved" } catch (e) { return e.message }`, ns)
		require.Nil(t, res.Error)
		require.JSONEq(t, `"binding resolution must be lossless JSON"`, string(res.Value), "result %q", out)
	}
}

func TestBindingGetsRunContextAndLateResultsAreDropped(t *testing.T) {
	rt := newRuntime(t, map[string]any{"WallTime": float64(300)})
	type key struct{}
	release := make(chan struct{})
	returned := make(chan struct{})
	var sawValue atomic.Bool
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"hang": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			sawValue.Store(ctx.Value(key{}) == "mine")
			<-release // ignores ctx: returns only after the run has settled
			defer close(returned)
			return json.RawMessage(`"late"`), nil
		},
	}}
	ctx := context.WithValue(context.Background(), key{}, "mine")
	res, err := rt.Run(ctx, coderun.Request{Program: `return await tools.hang({})`, Bindings: []coderun.Namespace{ns}})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Timeout, Budget: coderun.BudgetWall, Message: "wall-clock ceiling reached (300ms)"}, res.Error)
	require.True(t, sawValue.Load(), "the host function receives the ctx passed to Run")
	close(release)
	<-returned
	res = runWith(t, rt, `return "next run works"`)
	require.JSONEq(t, `"next run works"`, string(res.Value))
}

func TestNoErrorClassGivesPlainError(t *testing.T) {
	rt := newRuntime(t, nil)
	ns := coderun.Namespace{Global: "api", Functions: map[string]coderun.Func{
		"my-tool": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("denied")
		},
	}}
	res := runWith(t, rt, `try { await api["my-tool"]({}) } catch (e) { return [Object.getPrototypeOf(e) === Error.prototype, e.name, e.message] }`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `[true,"Error","denied"]`, string(res.Value))
}

// Member names are arbitrary strings: names that are special on ordinary
// objects are plain members of a namespace.
func TestSpecialMemberNames(t *testing.T) {
	rt := newRuntime(t, nil)
	fns := map[string]coderun.Func{}
	for _, name := range []string{"__proto__", "constructor", "toString", "my-tool", "", "valueOf"} {
		fns[name] = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			b, _ := json.Marshal(name)
			return b, nil
		}
	}
	ns := coderun.Namespace{Global: "tools", Functions: fns}
	res := runWith(t, rt, `return await Promise.all([tools.__proto__({}), tools.constructor({}), tools.toString({}), tools["my-tool"]({}), tools[""]({}), tools.valueOf({}),
		typeof tools.hasOwnProperty, Object.getPrototypeOf(tools) === null, Object.isFrozen(tools)])`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `["__proto__","constructor","toString","my-tool","","valueOf","undefined",true,true]`, string(res.Value))
}

// Namespaces that point at the same *ErrorClass share one injected class;
// two distinct declarations of one name are still a duplicate.
func TestSharedErrorClass(t *testing.T) {
	rt := newRuntime(t, nil)
	fail := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("nope")
	}
	class := &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}
	a := coderun.Namespace{Global: "files", Functions: map[string]coderun.Func{"read": fail}, ErrorClass: class}
	b := coderun.Namespace{Global: "web", Functions: map[string]coderun.Func{"get": fail}, ErrorClass: class}
	res := runWith(t, rt, `const out = []; for (const f of [() => files.read({}), () => web.get({})]) { try { await f() } catch (e) { out.push([e instanceof ToolCallError, e.toolName]) } } return out`, a, b)
	require.Nil(t, res.Error)
	require.JSONEq(t, `[[true,"read"],[true,"get"]]`, string(res.Value))

	b.ErrorClass = &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}
	_, err := rt.Run(context.Background(), coderun.Request{Program: "return 1", Bindings: []coderun.Namespace{a, b}})
	require.ErrorIs(t, err, coderun.ErrInvalidBinding)
	require.ErrorContains(t, err, `duplicate injected global "ToolCallError"`)
}

// A lone call runs on the run's own goroutine (see runtime/inline.go). If it
// ignores its ctx, the caller still gets its abort or "runtime disposed" at
// once, and the goroutine leaves when the function finally returns.
func TestInlineCallThatIgnoresItsContext(t *testing.T) {
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	var entered atomic.Int64
	entry := make(chan struct{}, 2)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"hang": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			entered.Add(1)
			entry <- struct{}{}
			<-release
			return json.RawMessage(`"late"`), nil
		},
	}}
	program := `console.log("before"); return await tools.hang({})`

	rt := newRuntime(t, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-entry; cancel(errors.New("caller gave up")) }()
	res, err := rt.Run(ctx, coderun.Request{Program: program, Bindings: []coderun.Namespace{ns}})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "caller gave up"}, res.Error)
	require.Equal(t, []string{"before"}, res.Logs)

	closing, err := coderun.New(coderun.DefaultConfig())
	require.NoError(t, err)
	go func() { <-entry; require.NoError(t, closing.Close(context.Background())) }()
	res, err = closing.Run(context.Background(), coderun.Request{Program: program, Bindings: []coderun.Namespace{ns}})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "runtime disposed"}, res.Error)
	require.Equal(t, int64(2), entered.Load())

	close(release)
	// Polled here, not with require.Eventually, whose checks run on
	// goroutines of their own.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines left after the functions returned:\n%s", buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
	res = runWith(t, rt, `return await tools.hang({})`, ns)
	require.JSONEq(t, `"late"`, string(res.Value), "the next run works")
}

// A call starts while the guest keeps computing: this one cancels the run,
// which otherwise would spin until its compute budget ran out.
func TestCallStartsWhileGuestComputes(t *testing.T) {
	rt := newRuntime(t, map[string]any{"ComputeTime": float64(5000)}) // without the call, a timeout after 5 s
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"stop": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			cancel(errors.New("stopped by the binding"))
			return json.RawMessage(`null`), nil
		},
	}}
	res, err := rt.Run(ctx, coderun.Request{Program: `tools.stop({}); for (;;) {}`, Bindings: []coderun.Namespace{ns}})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "stopped by the binding"}, res.Error)
}

// A call made just before the program returns still runs, although its
// result has nowhere to go.
func TestCallMadeBeforeReturnStillRuns(t *testing.T) {
	rt := newRuntime(t, nil)
	got := make(chan string, 1)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"notify": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			got <- string(args)
			return json.RawMessage(`null`), nil
		},
	}}
	res := runWith(t, rt, `tools.notify({done: true}); return 1`, ns)
	require.JSONEq(t, `1`, string(res.Value))
	select {
	case args := <-got:
		require.JSONEq(t, `{"done": true}`, args)
	case <-time.After(10 * time.Second):
		t.Fatal("the call never ran")
	}
}

// A function that ends its goroutine with runtime.Goexit, inline or not,
// ends the run at once (see also runtime.TestGoexitEndsRunAtOnce).
func TestBindingCallsGoexit(t *testing.T) {
	rt := newRuntime(t, map[string]any{"WallTime": float64(500)})
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"exit": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			runtime.Goexit()
			return nil, nil
		},
	}}
	res := runWith(t, rt, `return await tools.exit({})`, ns)
	require.Equal(t, &coderun.Failure{Kind: coderun.WorkerExit, Budget: coderun.BudgetHost, Message: "host error: a binding called runtime.Goexit, which ended the run; this is a bug in the host, not an error in the program"}, res.Error)
	res = runWith(t, rt, `return await Promise.all([tools.exit({}), tools.exit({})])`, ns)
	require.Equal(t, &coderun.Failure{Kind: coderun.WorkerExit, Budget: coderun.BudgetHost, Message: "host error: a binding called runtime.Goexit, which ended the run; this is a bug in the host, not an error in the program"}, res.Error)
}

// Go refuses an argument with a lone surrogate (a binding could not decode
// it losslessly); the call rejects instead of never settling.
func TestLoneSurrogateArgumentRejects(t *testing.T) {
	rt := newRuntime(t, nil)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}
	res := runWith(t, rt, `const out = [];
for (const a of [{s: "\ud800"}, ["\udc00x"], {"\ud800": 1}, "ok \ud83d\ude00"]) {
  try { out.push(await tools.echo(a)) } catch (e) { out.push(e.message) }
}
return out`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `["binding arguments must be lossless JSON", "binding arguments must be lossless JSON",
		"binding arguments must be lossless JSON", "ok 😀"]`, string(res.Value))
}

// Arguments reach the function as the program's JSON.stringify prints them,
// whether the host reads them in place (plain values) or the guest prints
// them (everything else that is lossless).
func TestArgumentsAsJSONStringifyPrintsThem(t *testing.T) {
	rt := newRuntime(t, nil)
	var mu sync.Mutex
	var got []string
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"take": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, string(args))
			return json.RawMessage(`null`), nil
		},
	}}
	res := runWith(t, rt, `const values = [
  1, -2.5, 1e20 / 3e10, 1.5e-7, 1.5e-300, 2 ** 53, "", "plain", "é\n\t\"\\\u0001", "€ and 😀", true, false, null,
  {}, [], {a: 1, b: [1, "x", {c: null}]}, {__proto__: null, k: 1}, Object.freeze({f: [true]}),
  {1: "integer key", b: 2}, {b: 1, "3000000000": "large index key"}, {get g() { return "getter" }}, {"€": "wide key"}, [["deep"]],
  (() => { const o = {a: 1, b: 2}; delete o.a; return o })(), Array.from({length: 300}, (_, i) => ({i})),
];
const want = [];
for (const v of values) { await tools.take(v); want.push(JSON.stringify(v)) }
return want`, ns)
	require.Nil(t, res.Error)
	var want []string
	require.NoError(t, json.Unmarshal(res.Value, &want))
	require.Equal(t, want, got)
}
