package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/runaway"
	"github.com/stretchr/testify/require"
)

// haltLimits are the limits of the engines of this file: budgets that a
// run must be stopped by never trip, and memory enough for the runaway
// programs' big arrays.
func haltLimits() budget.Limits {
	return budget.Limits{
		Fuel: 1 << 50, ComputeTime: 10 * time.Second, WallTime: 10 * time.Second,
		MemoryBytes: 512 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20,
	}
}

// haltPrograms are the runaway programs the halt tests stop: all of them,
// but under -race (unless CODERUN_LONG=1) those that build no array of
// millions (sort, sort-cmp, stringify: minutes of instrumented copies there,
// for nothing -race could find) and try-finally (loop's twin).
func haltPrograms() map[string]string {
	programs := runaway.Programs()
	if raceEnabled && !longRun() {
		for _, name := range []string{"sort", "sort-cmp", "stringify", "try-finally"} {
			delete(programs, name)
		}
	}
	return programs
}

// errHaltCancel is the cause of the cancellations of this file's runs.
var errHaltCancel = errors.New("halt test: cancelled")

// haltStop is a way a run is stopped while its program computes: a budget
// (limits) or a signal that the binding tools.go sends once the program
// called it (go, given the run's cancel and engine), with the outcome it
// must have.
type haltStop struct {
	name          string
	limits        func(*budget.Limits)
	signal        func(cancel context.CancelCauseFunc, e *Engine)
	kind, message string
}

func haltStops() []haltStop {
	// The ceilings leave the run time to compile its program and start
	// computing: only then is there a guest to stop.
	const ceiling = 500 * time.Millisecond
	const fuel = 2_000_000
	return []haltStop{
		{name: "abort", signal: func(cancel context.CancelCauseFunc, _ *Engine) { cancel(errHaltCancel) },
			kind: KindAbort, message: errHaltCancel.Error()},
		{name: "close", signal: func(_ context.CancelCauseFunc, e *Engine) { go e.Close(context.Background()) },
			kind: KindAbort, message: "runtime disposed"},
		{name: "wall", limits: func(l *budget.Limits) { l.WallTime = ceiling },
			kind: KindTimeout, message: budget.WallMessage(ceiling)},
		{name: "compute", limits: func(l *budget.Limits) { l.ComputeTime = ceiling },
			kind: KindTimeout, message: "compute budget exhausted (500ms busy)"},
		{name: "fuel", limits: func(l *budget.Limits) { l.Fuel = fuel },
			kind: KindTimeout, message: budget.FuelMessage(fuel)},
	}
}

// haltRun runs program, which calls tools.go(0) first, on a new engine with
// stop's limits, and returns its outcome, how its guest was stopped (see
// halt), the fuel left in its guest when it returned, and how many times
// tools.hit was called. tools.go sends stop's signal 20 ms after the call,
// from the call's goroutine: the program is computing by then.
func haltRun(t *testing.T, stop haltStop, program string, setup func(e *Engine)) (o Outcome, halted int, left int64, hits int64) {
	t.Helper()
	limits := haltLimits()
	if stop.limits != nil {
		stop.limits(&limits)
	}
	e, err := New(context.Background(), Options{Limits: limits, CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	defer e.Close(context.Background())
	if setup != nil {
		setup(e)
	}
	e.hooks.ended = func(r *run) {
		halted = r.halted
		if r.in != nil {
			left = int64(r.in.Fuel().Get())
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var hitCount atomic.Int64
	tools := []Binding{{Global: "tools", Functions: map[string]Func{
		"go": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			if stop.signal != nil {
				time.AfterFunc(20*time.Millisecond, func() { stop.signal(cancel, e) })
			}
			return []byte("null"), nil
		},
		"hit": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			hitCount.Add(1)
			return []byte("null"), nil
		},
	}}}
	o, err = e.run(ctx, program, tools)
	require.NoError(t, err)
	require.NoError(t, e.Close(context.Background())) // waits for every call the run started
	return o, halted, left, hitCount.Load()
}

// A run stopped in a runaway program, whichever way, has the outcome the
// stop decides. Where the stop finds the guest at an interrupt poll (always
// in JavaScript loops and recursion) the guest unwinds itself: the call
// into the instance returns without a panic, and spends less than haltSlice
// doing so. Elsewhere (C code: a sort, a BigInt, a regular expression
// between its polls) it is ended by a panic, at once or after at most
// haltSlice units more.
func TestHaltRunaway(t *testing.T) {
	unwinds := map[string]bool{"loop": true, "try-finally": true, "exponential": true}
	for _, stop := range haltStops() {
		for name, program := range haltPrograms() {
			t.Run(stop.name+"/"+name, func(t *testing.T) {
				o, halted, left, _ := haltRun(t, stop, "tools.go(0);\n"+program, nil)
				require.Equal(t, stop.kind, o.Kind, o.Message)
				require.Equal(t, stop.message, o.Message)
				require.Equal(t, 1, o.Calls, "the program called tools.go(0), then computed")
				require.NotEqual(t, haltNone, halted, "the guest was stopped")
				if unwinds[name] {
					require.Equal(t, haltAsked, halted, "the guest unwound itself")
					require.GreaterOrEqual(t, left, int64(0), "the unwinding spent less than haltSlice")
				}
				if halted == haltAskedForced {
					// The panic came at the first yield past haltSlice: at
					// most one charge (an interrupt poll's) overdrew it.
					require.GreaterOrEqual(t, left, int64(-budget.InterruptCost))
				}
				t.Logf("halted %d, fuel left %d", halted, left)
			})
		}
	}
}

// Nothing the program would do after the stop happens: catch and finally
// blocks do not run (the interrupt is uncatchable), and what QuickJS lets
// run on (a promise executor's caller, the rejection of a thenable's job)
// gets no binding call, log or value out: the first one ends the guest.
// Every way of stopping a run is checked.
func TestHaltRunsNothingAfterwards(t *testing.T) {
	programs := map[string]string{
		"catch and finally": `try { for(;;){} } catch (e) { tools.hit("catch") } finally { tools.hit("finally") }`,
		"finally logs":      `try { for(;;){} } finally { console.log("finally") }`,
		"finally returns":   `try { for(;;){} } finally { return 1 }`,
		"nested finally": `function f() { try { for(;;){} } finally { tools.hit("inner") } }
try { f() } catch (e) { tools.hit("outer") }`,
		"awaited function": `async function f() { await null; for(;;){} }
try { await f() } catch (e) { await tools.hit("catch") }`,
		"regex": `try { for(;;) /^(a+)+$/.test('a'.repeat(40) + '!') } finally { tools.hit("finally") }`,
		"recursion": `function t(n){ return n ? t(n-1)+t(n-1) : 0 }
try { t(60) } finally { tools.hit("finally") }`,
		"promise executor": `const p = new Promise(() => { for(;;){} });
tools.hit("after"); console.log("after"); return 2`,
		"thenable job": `await Promise.resolve({ then() { for(;;){} } }).catch(() => tools.hit("catch"));
return 3`,
		"microtask catch": `const f = () => Promise.resolve().then(f).catch(() => tools.hit("catch")); f();
await new Promise(() => {})`,
		"prepareStackTrace": `Error.prepareStackTrace = () => { tools.hit("prepare"); return "" };
for(;;){}`,
		"stackTraceLimit": `Error.stackTraceLimit = { valueOf() { tools.hit("limit"); return 10 } };
for(;;){}`,
	}
	for _, stop := range haltStops() {
		for name, program := range programs {
			t.Run(stop.name+"/"+name, func(t *testing.T) {
				o, halted, _, hits := haltRun(t, stop, "tools.go(0);\n"+program, nil)
				require.Equal(t, stop.kind, o.Kind, o.Message)
				require.Equal(t, stop.message, o.Message)
				require.Nil(t, o.Value)
				require.Empty(t, o.Logs)
				require.Equal(t, 1, o.Calls, "tools.go(0) and nothing more")
				require.Zero(t, hits, "tools.hit was called")
				require.NotEqual(t, haltNone, halted)
			})
		}
	}
}

// The guest's unwinding changes no outcome: for every runaway program, the
// run that its fuel budget stops has the same outcome whether its guest
// unwinds itself or is ended by a panic. (The fuel used is decided before
// either: the budget plus the overdraft of the charge that tripped it, at most
// one interrupt poll's.)
func TestHaltSameOutcome(t *testing.T) {
	const fuel = 2_000_000
	stop := haltStop{limits: func(l *budget.Limits) { l.Fuel = fuel }}
	for name, program := range haltPrograms() {
		t.Run(name, func(t *testing.T) {
			program = "tools.go(0);\n" + program
			unwound, halted, _, _ := haltRun(t, stop, program, nil)
			panicked, forced, _, _ := haltRun(t, stop, program, func(e *Engine) { e.hooks.noInterrupt = true })
			require.Equal(t, haltForced, forced)
			t.Logf("halted %d; fuel used %d unwound, %d panicked", halted, unwound.FuelUsed, panicked.FuelUsed)
			for _, o := range []Outcome{unwound, panicked} {
				require.Equal(t, KindTimeout, o.Kind)
				require.Equal(t, budget.FuelMessage(fuel), o.Message)
				require.Equal(t, 1, o.Calls)
				require.Empty(t, o.Logs)
				require.GreaterOrEqual(t, o.FuelUsed, uint64(fuel))
				require.LessOrEqual(t, o.FuelUsed, uint64(fuel+budget.InterruptCost))
			}
		})
	}
}
