package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// loopEngine is an engine whose WallTime and ComputeTime are both 30 s, so
// that a run that settles must be seen to end long before either.
func loopEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(context.Background(), Options{Limits: budget.Limits{
		Fuel: 1 << 40, ComputeTime: 30 * time.Second, WallTime: 30 * time.Second,
		MemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults(), CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}

// settledFuel bounds the fuel of a run that ends as its program settles:
// what is left running then is dropped at the guest's next fuel yield (a
// slice, at most 4,096 units, later; these programs spend 1,000–2,000 in
// all, deterministically). A run that went on spinning until loopEngine's
// 30 s budgets would spend billions, and one that waited for them would end
// as a timeout: a count, not a clock, tells them apart.
const settledFuel = 100_000

// waitGoroutines waits until no more than n goroutines are left, and fails
// with their stacks after 10 s. It polls on the test's goroutine, not with
// require.Eventually, whose checks run on goroutines of their own.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); goruntime.NumGoroutine() > n; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, want at most %d:\n%s", goruntime.NumGoroutine(), n, buf[:goruntime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Pending timers cost no goroutine: 10,000 timers that came due while the
// guest computed (each was a goroutine blocked on the run's event channel
// when timers were time.AfterFuncs), then a binding call that counts the
// process's goroutines, then every timer fired.
func TestPendingTimersCostNoGoroutine(t *testing.T) {
	e := loopEngine(t)
	before := goruntime.NumGoroutine()
	bindings := []Binding{{Global: "tools", Functions: map[string]Func{
		"goroutines": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return []byte(fmt.Sprint(goruntime.NumGoroutine())), nil
		},
	}}}
	o, err := e.run(context.Background(), `
let fired = 0;
for (let i = 0; i < 10000; i++) setTimeout(() => fired++, 1);
const until = Date.now() + 50;
while (Date.now() < until) {}  // every timer is due now
const during = await tools.goroutines({});
await new Promise(r => setTimeout(r, 5));
return [during, fired]`, bindings)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	var got [2]int
	require.NoError(t, json.Unmarshal(o.Value, &got))
	// The run's goroutine and the call's own: a small constant.
	require.LessOrEqual(t, got[0], before+4, "goroutines while 10,000 timers were pending")
	require.Equal(t, 10000, got[1], "timers fired")
	waitGoroutines(t, before)
}

// A flood of setTimeouts stops at maxPendingTimers with a RangeError the
// program catches; clearing timers makes room again; the host never runs a
// goroutine per timer.
func TestTimerCap(t *testing.T) {
	require.Contains(t, preludeJS, fmt.Sprintf("const MAX_PENDING_TIMERS = %d;", maxPendingTimers), "the prelude names the host's cap")
	e := loopEngine(t)
	before := goruntime.NumGoroutine()
	o := mustRun(t, e, `
const ids = [];
let err;
try { for (let i = 0; i < 100000; i++) ids.push(setTimeout(() => {}, 60000)) } catch (e) { err = e }
const refused = [ids.length, err instanceof RangeError, String(err)];
for (const id of ids) clearTimeout(id);
let again = 0;
for (let i = 0; i < 10000; i++) { clearTimeout(setTimeout(() => {}, 60000)); again++ }
const more = [];
for (let i = 0; i < 10000; i++) more.push(setTimeout(() => {}, 60000));
for (const id of more) clearTimeout(id);
return [...refused, again, more.length]`)
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, `[10000, true, "RangeError: setTimeout: too many pending timers: a run may have at most 10000 timers pending at once; clear some with clearTimeout or let them fire before setting more", 10000, 10000]`, string(o.Value))
	require.LessOrEqual(t, goruntime.NumGoroutine(), before, "goroutines after the run")

	// Uncaught, it fails the run with the message and the program's line.
	o = mustRun(t, e, "for (;;) setTimeout(() => {}, 1)")
	require.Equal(t, KindException, o.Kind)
	require.Contains(t, o.Message, "RangeError: setTimeout: too many pending timers: a run may have at most 10000 timers pending at once")
	require.Contains(t, o.Message, "program.ts:1:")
}

// The host's record of a pending timer is small: 10,000 of them (the cap)
// allocate well under 2 MiB in all.
func TestTimerHostBytes(t *testing.T) {
	ts := newTimers()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	refused := 0
	for i := 0; i < maxPendingTimers; i++ {
		if ts.add(time.Minute) < 0 {
			refused++
		}
	}
	goruntime.ReadMemStats(&after)
	require.Zero(t, refused)
	require.Equal(t, int32(timerRefused), ts.add(time.Minute))
	perTimer := (after.TotalAlloc - before.TotalAlloc) / maxPendingTimers
	t.Logf("%d host bytes allocated per pending timer", perTimer)
	require.LessOrEqual(t, perTimer, uint64(200), "host bytes per pending timer")
}

// Timers fire in deadline order, equal deadlines in the order they were
// set, as in Node; a cleared timer never fires, also when an earlier
// callback of the same round clears it.
func TestTimerOrder(t *testing.T) {
	e := loopEngine(t)
	for _, tc := range []struct{ name, program, want string }{
		{"deadline then creation", `const out = [];
for (const [name, ms] of [["a", 100], ["b", 1], ["c", 100], ["d", 50], ["e", 1], ["f", 0], ["g", -5], ["h", "x"]]) setTimeout(() => out.push(name), ms);
await new Promise(r => setTimeout(r, 150));
return out`, `["b","e","f","g","h","d","a","c"]`},
		{"cleared before it fires", `const out = [];
const x = setTimeout(() => out.push("x"), 1);
setTimeout(() => out.push("y"), 1);
clearTimeout(x); clearTimeout(x); clearTimeout(123456); clearTimeout("1");
await new Promise(r => setTimeout(r, 20));
return out`, `["y"]`},
		{"cleared by an earlier callback of its round", `const out = [];
let second;
setTimeout(() => { out.push("first"); clearTimeout(second) }, 1);
second = setTimeout(() => out.push("second"), 1);
await new Promise(r => setTimeout(r, 20));
return out`, `["first"]`},
		{"ids count up", `const a = setTimeout(() => {}, 1), b = setTimeout(() => {}, 1);
clearTimeout(a); const c = setTimeout(() => {}, 1);
return [b - a, c - b]`, `[1, 1]`},
		{"arguments", `return await new Promise(r => setTimeout((x, y) => r(x + y), 1, 2, 3))`, `5`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mustRun(t, e, tc.program)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, tc.want, string(o.Value))
		})
	}
}

// quickjs-libc's modules do not exist for a program, whichever way it
// imports them; the rejection is catchable and says why.
func TestStdModulesUnreachable(t *testing.T) {
	e := loopEngine(t)
	want := "ReferenceError: " + importError
	for _, name := range []string{"qjs:os", "qjs:std", "qjs:bjson"} {
		for _, tc := range []struct{ how, expr string }{
			{"import()", `import("%s")`},
			{"eval", `eval('import("%s")')`},
			{"indirect eval", `(0, eval)('import("%s")')`},
			{"new Function", `new Function('return import("%s")')()`},
			{"Function in a callback", `await new Promise(r => setTimeout(() => r(Function('return import("%s")')()), 1))`},
		} {
			t.Run(name+" by "+tc.how, func(t *testing.T) {
				program := fmt.Sprintf(`try { const m = await %s; return ["imported", Object.keys(m)] } catch (e) { return [String(e), e instanceof ReferenceError] }`,
					fmt.Sprintf(tc.expr, name))
				o := mustRun(t, e, program)
				require.Empty(t, o.Kind, o.Message)
				b, _ := json.Marshal([]any{want, true})
				require.JSONEq(t, string(b), string(o.Value))
			})
		}
	}
	o := mustRun(t, e, `return [typeof std, typeof os, typeof bjson, typeof print, typeof scriptArgs, typeof gc, typeof navigator]`)
	require.JSONEq(t, `["undefined","undefined","undefined","undefined","undefined","undefined","undefined"]`, string(o.Value))

	// Uncaught, the rejection fails the run. QuickJS throws it from the
	// job that loads the module, where no frame of the program is on the
	// stack: the message has no position.
	o = mustRun(t, e, "const os = await import('qjs:os');\nreturn 1")
	require.Equal(t, KindException, o.Kind)
	require.Equal(t, want, o.Message)
}

// A program that settles ends the run at once: nothing it reaches keeps the
// run alive or the guest spinning until a budget trips.
func TestSettledProgramSettlesRun(t *testing.T) {
	e := loopEngine(t)
	for _, tc := range []struct{ name, program, want string }{
		// The shape that spun a core until WallTime when qjs:os was
		// reachable: an os read handler keeps js_std_loop polling.
		{"os read handler", `let os = null;
try { os = await import("qjs:os") } catch {}
if (os) { os.setReadHandler(0, () => {}); os.setTimeout(() => {}, 60000); os.signal(2, () => {}) }
return os === null ? "no os" : "os"`, `"no os"`},
		{"os read handler from eval", `let os = null;
try { os = await (0, eval)("import('qjs:os')") } catch {}
if (os) os.setReadHandler(0, () => {});
return os === null ? "no os" : "os"`, `"no os"`},
		// A job queued behind the program's completion spins forever: the
		// run settled, so it is dropped at the guest's next fuel yield.
		{"job spinning after the completion", `Promise.resolve().then(() => 0).then(() => 0).then(() => { for (;;) {} });
return 1`, `1`},
		{"pending timer", `setTimeout(() => { for (;;) {} }, 1); return 2`, `2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mustRun(t, e, tc.program)
			require.Empty(t, o.Kind, o.Message, "the run must end when the program settles, not at its 30 s budgets")
			require.JSONEq(t, tc.want, string(o.Value))
			t.Logf("fuel used %d", o.FuelUsed)
			require.Less(t, o.FuelUsed, uint64(settledFuel), "the guest went on computing after the program settled")
		})
	}
}

// A binding that calls runtime.Goexit ends the run at once as a worker
// exit, whether it ran inline, beside another call in flight, or while the
// guest computes; the other call's goroutine leaves when it returns.
func TestGoexitEndsRunAtOnce(t *testing.T) {
	e := loopEngine(t)
	for _, tc := range []struct{ name, program string }{
		{"inline", `return await tools.exit({})`},
		{"beside a call in flight", `return await Promise.all([tools.wait({}), tools.exit({})])`},
		{"before a call in flight", `return await Promise.all([tools.exit({}), tools.wait({})])`},
		{"while the guest computes", `tools.wait({}); tools.exit({}); for (;;) {}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := goruntime.NumGoroutine()
			release := make(chan struct{})
			bindings := []Binding{{Global: "tools", Functions: map[string]Func{
				"exit": func(context.Context, json.RawMessage) (json.RawMessage, error) {
					goruntime.Goexit()
					return nil, nil
				},
				"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) {
					<-release
					return []byte(`1`), nil
				},
			}}}
			o, err := e.run(context.Background(), `console.log("started");`+tc.program, bindings)
			require.NoError(t, err)
			// A run that waited for (or computed until) its 30 s budgets
			// would end as a timeout: no clock is needed to tell.
			require.Equal(t, KindWorkerExit, o.Kind, "the run must fail at once, not at its 30 s budgets: %s", o.Message)
			require.Equal(t, goexitMessage, o.Message)
			require.Equal(t, []string{"started"}, o.Logs)
			close(release)
			waitGoroutines(t, before)
		})
	}
}
