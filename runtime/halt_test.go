package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults()
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

// haltSignals are the stops that come from another goroutine (a cancel, a
// Close), where the race detector has something to find; haltBudgets are
// those a budget trips on the run's own goroutine, where it finds nothing
// (their tests skip under -race, and scripts/test runs them without it).
func haltSignals() []haltStop { return haltStopsWhere(true) }
func haltBudgets() []haltStop { return haltStopsWhere(false) }

func haltStopsWhere(signal bool) []haltStop {
	var stops []haltStop
	for _, s := range haltStops() {
		if (s.signal != nil) == signal {
			stops = append(stops, s)
		}
	}
	return stops
}

// errHaltCancel is the cause of the cancellations of this file's runs.
var errHaltCancel = errors.New("halt test: cancelled")

// haltStop is a way a run is stopped while its program computes: a budget
// (limits, given the ceiling of a time budget) or a signal that the binding
// tools.go sends once the program called it (go, given the run's cancel and
// engine), with the outcome it must have (message, given the ceiling).
type haltStop struct {
	name    string
	limits  func(l *budget.Limits, ceiling time.Duration)
	signal  func(cancel context.CancelCauseFunc, e *Engine)
	kind    string
	message func(ceiling time.Duration) string
}

// haltCeiling is the first ceiling of the wall and compute stops: it must
// leave the run time to compile its program and start computing, since only
// then is there a guest to stop. A run that load kept from calling tools.go
// within it is run again with twice the ceiling (see haltRun): load cannot
// fail the test, only lengthen it.
const haltCeiling = 500 * time.Millisecond

func haltStops() []haltStop {
	const fuel = 2_000_000
	fixed := func(m string) func(time.Duration) string { return func(time.Duration) string { return m } }
	return []haltStop{
		{name: "abort", signal: func(cancel context.CancelCauseFunc, _ *Engine) { cancel(errHaltCancel) },
			kind: KindAbort, message: fixed(errHaltCancel.Error())},
		{name: "close", signal: func(_ context.CancelCauseFunc, e *Engine) { go e.Close(context.Background()) },
			kind: KindAbort, message: fixed("runtime disposed")},
		{name: "wall", limits: func(l *budget.Limits, c time.Duration) { l.WallTime = c },
			kind: KindTimeout, message: budget.WallMessage},
		{name: "compute", limits: func(l *budget.Limits, c time.Duration) { l.ComputeTime = c },
			kind: KindTimeout, message: func(c time.Duration) string {
				return fmt.Sprintf("compute budget exhausted (%dms busy)", c.Milliseconds())
			}},
		{name: "fuel", limits: func(l *budget.Limits, _ time.Duration) { l.Fuel = fuel },
			kind: KindTimeout, message: fixed(budget.FuelMessage(fuel))},
	}
}

// haltOutcome is what haltRun saw of a run: its outcome, how its guest was
// stopped (see halt), the fuel left in its guest when it returned, how many
// times tools.hit was called, and the message its stop must have given.
type haltOutcome struct {
	Outcome
	halted  int
	left    int64
	hits    int64
	message string
}

// haltRun runs program, which calls tools.go(0) first, on a new engine with
// stop's limits, and returns what it saw. A run that a time budget stopped
// before the program called tools.go (load delayed its compilation) proves
// nothing: it is run again with twice the ceiling, up to a ceiling of 16 s.
func haltRun(t *testing.T, stop haltStop, program string, setup func(e *Engine)) haltOutcome {
	t.Helper()
	for ceiling := haltCeiling; ; ceiling *= 2 {
		h, called := haltRunOnce(t, stop, ceiling, program, setup)
		if called || stop.limits == nil || ceiling >= 16*time.Second {
			return h
		}
		t.Logf("stopped by a %v ceiling before the program called tools.go: again with twice that", ceiling)
	}
}

// haltRunOnce is one run of haltRun, with ceiling for a time budget; it
// also reports whether the program called tools.go. tools.go sends stop's
// signal 20 ms after the call, from the call's goroutine: the program is
// computing by then.
func haltRunOnce(t *testing.T, stop haltStop, ceiling time.Duration, program string, setup func(e *Engine)) (h haltOutcome, called bool) {
	t.Helper()
	limits := haltLimits()
	if stop.limits != nil {
		stop.limits(&limits, ceiling)
	}
	e, err := New(context.Background(), Options{Limits: limits, CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	defer e.Close(context.Background())
	if setup != nil {
		setup(e)
	}
	e.hooks.ended = func(r *run) {
		h.halted = r.halted
		if r.in != nil {
			h.left = int64(r.in.Fuel().Get())
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var goCalls, hitCount atomic.Int64
	tools := []Binding{{Global: "tools", Functions: map[string]Func{
		"go": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			goCalls.Add(1)
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
	h.Outcome, err = e.run(ctx, program, tools)
	require.NoError(t, err)
	require.NoError(t, e.Close(context.Background())) // waits for every call the run started
	h.hits, h.message = hitCount.Load(), stop.message(ceiling)
	return h, goCalls.Load() > 0
}

// A run stopped in a runaway program, whichever way, has the outcome the
// stop decides. Where the stop finds the guest at an interrupt poll (always
// in JavaScript loops and recursion) the guest unwinds itself: the call
// into the instance returns without a panic, and spends less than haltSlice
// doing so. Elsewhere (C code: a sort, a BigInt, a regular expression
// between its polls) it is ended by a panic, at once or after at most
// haltSlice units more. This test has the stops from another goroutine;
// TestHaltRunawayAtBudget the budgets'.
func TestHaltRunaway(t *testing.T) { checkHaltRunaway(t, haltSignals()) }

// TestHaltRunawayAtBudget is TestHaltRunaway with the stops a budget makes.
func TestHaltRunawayAtBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("a budget trips on the run's own goroutine: -race finds nothing there (scripts/test runs it without)")
	}
	checkHaltRunaway(t, haltBudgets())
}

func checkHaltRunaway(t *testing.T, stops []haltStop) {
	unwinds := map[string]bool{"loop": true, "try-finally": true, "exponential": true}
	for _, stop := range stops {
		for name, program := range haltPrograms() {
			t.Run(stop.name+"/"+name, func(t *testing.T) {
				o := haltRun(t, stop, "tools.go(0);\n"+program, nil)
				halted, left := o.halted, o.left
				require.Equal(t, stop.kind, o.Kind, o.Message)
				require.Equal(t, o.message, o.Message)
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
// Every way of stopping a run is checked: from another goroutine here, by
// a budget in TestHaltRunsNothingAfterwardsAtBudget.
func TestHaltRunsNothingAfterwards(t *testing.T) { checkHaltNothingAfterwards(t, haltSignals()) }

// TestHaltRunsNothingAfterwardsAtBudget is TestHaltRunsNothingAfterwards
// with the stops a budget makes.
func TestHaltRunsNothingAfterwardsAtBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("a budget trips on the run's own goroutine: -race finds nothing there (scripts/test runs it without)")
	}
	checkHaltNothingAfterwards(t, haltBudgets())
}

func checkHaltNothingAfterwards(t *testing.T, stops []haltStop) {
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
	for _, stop := range stops {
		for name, program := range programs {
			t.Run(stop.name+"/"+name, func(t *testing.T) {
				o := haltRun(t, stop, "tools.go(0);\n"+program, nil)
				require.Equal(t, stop.kind, o.Kind, o.Message)
				require.Equal(t, o.message, o.Message)
				require.Nil(t, o.Value)
				require.Empty(t, o.Logs)
				require.Equal(t, 1, o.Calls, "tools.go(0) and nothing more")
				require.Zero(t, o.hits, "tools.hit was called")
				require.NotEqual(t, haltNone, o.halted)
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
	if raceEnabled {
		t.Skip("one goroutine: a fuel budget trips on the run's own, where -race finds nothing (scripts/test runs it without)")
	}
	const fuel = 2_000_000
	stop := haltStop{limits: func(l *budget.Limits, _ time.Duration) { l.Fuel = fuel },
		message: func(time.Duration) string { return budget.FuelMessage(fuel) }}
	for name, program := range haltPrograms() {
		t.Run(name, func(t *testing.T) {
			program = "tools.go(0);\n" + program
			unwound := haltRun(t, stop, program, nil)
			panicked := haltRun(t, stop, program, func(e *Engine) { e.hooks.noInterrupt = true })
			require.Equal(t, haltForced, panicked.halted)
			t.Logf("halted %d; fuel used %d unwound, %d panicked", unwound.halted, unwound.FuelUsed, panicked.FuelUsed)
			for _, o := range []haltOutcome{unwound, panicked} {
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
