package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// sleepTools is a namespace tools whose member wait sleeps for the
// milliseconds its argument gives, then returns them.
func sleepTools() []Binding {
	return []Binding{{Global: "tools", Functions: map[string]Func{
		"wait": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var ms float64
			if err := json.Unmarshal(args, &ms); err != nil {
				return nil, err
			}
			time.Sleep(time.Duration(ms * float64(time.Millisecond)))
			return args, nil
		},
	}}}
}

// A run that waits gives back the native stack its deep calls grew: a run
// that recursed as deep as its budget allows holds tens of megabytes of
// Go heap in wazero's stack until it ends, unless the wait releases it.
// The control keeps the stack (an idle time of an hour) and shows that
// the measure sees it.
func TestWaitingRunReleasesNativeStack(t *testing.T) {
	const program = `let max = 0
function probe(n) { max = n; probe(n + 1) }
try { probe(0) } catch {}
await tools.hold(0)
return max`
	for _, tc := range []struct {
		name string
		idle time.Duration
	}{{"released", time.Millisecond}, {"kept", time.Hour}} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 256 << 20 })
			e.hooks.stackIdle = tc.idle
			base := liveHeap()
			var during uint64
			bindings := []Binding{{Global: "tools", Functions: map[string]Func{
				"hold": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
					// Long enough for the idle timer; the released stack
					// is garbage from then on. It returns as soon as the
					// heap is back (quiet, within milliseconds); the 10 s
					// is a watchdog that load cannot reach.
					for deadline := time.Now().Add(10 * time.Second); ; {
						time.Sleep(20 * time.Millisecond)
						during = liveHeap()
						if tc.idle == time.Hour || during < base+(4<<20) || time.Now().After(deadline) {
							return json.RawMessage(`0`), nil
						}
					}
				},
			}}}
			o, err := e.run(context.Background(), program, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			grew := int64(during) - int64(base)
			t.Logf("depth %s, live Go heap while waiting: %+.1f MiB", o.Value, float64(grew)/(1<<20))
			if tc.idle == time.Hour {
				require.Greater(t, grew, int64(16<<20), "the kept native stack")
			} else {
				require.Less(t, grew, int64(4<<20), "the live Go heap of a waiting run that recursed deep")
			}
		})
	}
}

// liveHeap collects garbage and returns the live Go heap in bytes.
func liveHeap() uint64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A released stack is warmed again before the run's next call into its
// instance, so deep recursion after a wait (for a binding or a timer)
// ends in the same catchable RangeError, at the same depth as after the
// same wait without the release: never in wazero's stack-overflow trap.
func TestRecursionAfterStackRelease(t *testing.T) {
	// %d is the wait in milliseconds. The idle timer fires 100 µs into it
	// on a quiet machine; on a loaded one (the race detector, two cores)
	// it can fire after the wait is over, so a run whose wait released
	// nothing is tried again with a longer one.
	waits := []struct{ name, wait string }{
		{"binding", `await tools.wait(%d)`},
		{"timer", `await new Promise(r => setTimeout(r, %d))`},
	}
	shapes := []struct{ name, body string }{
		{"direct", `function f(){ d++; return f() } f()`},
		{"async", `const f = async () => { d++; return await f() }; await f()`},
		{"JSON.parse nesting", `for (;;) { d += 2000; JSON.parse("[".repeat(d) + "]".repeat(d)) }`},
	}
	memories := []int64{32 << 20, 256 << 20}
	if raceEnabled && !longRun() {
		memories = memories[:1] // the deep one's copies cost minutes under -race, finding nothing more
	}
	for _, memoryBytes := range memories {
		e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = memoryBytes })
		var releases int32
		e.hooks.ended = func(r *run) { releases = r.releases.Load() }
		for _, w := range waits {
			for _, s := range shapes {
				name := fmt.Sprintf("%d MiB, %s, %s", memoryBytes>>20, w.name, s.name)
				depth := func(idle time.Duration, waitMS int) string {
					e.hooks.stackIdle = idle
					program := "let d = 0\n" + fmt.Sprintf(w.wait, waitMS) + "\ntry {\n" + s.body + "\n} catch (e) { return [d, String(e)] }"
					o, err := e.run(context.Background(), program, sleepTools())
					require.NoError(t, err)
					require.Empty(t, o.Kind, "%s: %s", name, o.Message)
					require.Contains(t, string(o.Value), `"RangeError: Maximum call stack size exceeded"]`, name)
					return string(o.Value)
				}
				kept := depth(time.Hour, 3)
				require.Zero(t, releases, "%s: the stack is kept for an hour", name)
				var released string
				for waitMS := 3; waitMS <= 3<<8; waitMS *= 2 {
					released = depth(100*time.Microsecond, waitMS)
					if releases > 0 {
						break
					}
					t.Logf("%s: a wait of %d ms released nothing; trying a longer one", name, waitMS)
				}
				require.Positive(t, releases, "%s: the wait released the stack", name)
				require.Equal(t, kept, released, "%s: the depth at which the recursion ends", name)
			}
		}
	}
}

// Waits on both sides of the idle time, with the idle timer firing while
// the run resumes: every result arrives in order and the program's own
// state is intact (run with -race, the handshake's test).
func TestStackReleaseRacesResume(t *testing.T) {
	e := testEngine(t)
	e.hooks.stackIdle = 50 * time.Microsecond
	var releases atomic.Int32
	e.hooks.ended = func(r *run) { releases.Add(r.releases.Load()) }
	const program = `let sum = 0
for (let i = 0; i < 150; i++) {
  const ms = waits[i]
  const got = i % 3 ? await tools.wait(ms) : await new Promise(r => setTimeout(() => r(ms), ms))
  if (got !== ms) throw new Error("call " + i + " got " + got)
  sum += i
  function f(n) { return n ? f(n - 1) + 1 : 0 }
  if (f(200) !== 200) throw new Error("recursion")
}
return sum`
	runs := 4
	if raceEnabled && !longRun() {
		runs = 1 // a run releases and rewarms the stack dozens of times (more when loaded), seconds under -race
	}
	for run := range runs {
		waits := make([]float64, 150)
		for i := range waits {
			waits[i] = float64(rand.IntN(120)) / 1000 // 0–0.12 ms
		}
		w, _ := json.Marshal(waits)
		o, err := e.run(context.Background(), "const waits = "+string(w)+"\n"+program, sleepTools())
		require.NoError(t, err)
		require.Empty(t, o.Kind, "run %d: %s", run, o.Message)
		require.Equal(t, "11175", string(o.Value))
	}
	require.Positive(t, releases.Load(), "no wait outlasted the idle time")
}

// A caller that gives up on a run stuck in an inline call (its binding
// ignores ctx) after the idle timer released the run's stack takes the run
// over from the timer's handshake: the run ends as an abort at once, and
// every goroutine leaves when the binding returns (run with -race).
func TestAbandonedRunAfterStackRelease(t *testing.T) {
	e := testEngine(t)
	e.hooks.stackIdle = 100 * time.Microsecond
	var releases int32 = -1
	e.hooks.ended = func(r *run) { releases = r.releases.Load() }
	before := goruntime.NumGoroutine()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	bindings := []Binding{{Global: "tools", Functions: map[string]Func{
		"hang": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			entered <- struct{}{}
			<-release
			return json.RawMessage(`"late"`), nil
		},
	}}}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	fired := make(chan struct{}, 1)
	e.hooks.released = func() { fired <- struct{}{} }
	go func() {
		<-entered
		<-fired // the idle timer released the stack
		cancel(errors.New("caller gave up"))
	}()
	o, err := e.run(ctx, `return await tools.hang(0)`, bindings)
	require.NoError(t, err)
	require.Equal(t, KindAbort, o.Kind)
	require.Equal(t, "caller gave up", o.Message)
	require.Positive(t, releases, "the stack was released before the caller gave up")
	close(release)
	waitGoroutines(t, before)
}

// The idle timer costs a waiting run no goroutine: 20 runs waiting long
// past the idle time (their stacks released) hold the goroutines of the
// runs themselves and nothing more, and all of them leave with the runs.
func TestReleasedStacksCostNoGoroutine(t *testing.T) {
	const runs = 20
	e := testEngine(t)
	e.hooks.stackIdle = 100 * time.Microsecond
	var released atomic.Int32
	e.hooks.ended = func(r *run) { released.Add(r.releases.Load()) }
	fired := make(chan struct{}, runs)
	e.hooks.released = func() { fired <- struct{}{} }
	before := goruntime.NumGoroutine()
	finish := startWaitingRuns(e, runs)
	for range runs { // every idle timer has fired
		select {
		case <-fired:
		case <-time.After(time.Minute):
			t.Fatal("a waiting run's idle timer did not fire in a minute")
		}
	}
	// Per run: the goroutine that called run and the run's own, which is
	// in the binding call.
	waiting := goruntime.NumGoroutine()
	for _, err := range finish() {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, waiting, before+2*runs+2, "goroutines while %d runs wait", runs)
	require.Equal(t, int32(runs), released.Load(), "every waiting run released its stack once")
	waitGoroutines(t, before)
}

// startWaitingRuns starts n runs of `return await tools.wait(0)` on e and
// returns once every one of them is blocked in that binding call. finish
// lets them return and waits for them: the error of each (for a run that
// ended with a failure kind, its message).
func startWaitingRuns(e *Engine, n int) (finish func() []error) {
	var entered sync.WaitGroup
	entered.Add(n)
	release := make(chan struct{})
	bindings := []Binding{{Global: "tools", Functions: map[string]Func{
		"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			entered.Done()
			<-release
			return json.RawMessage(`1`), nil
		},
	}}}
	done := make(chan error, n)
	for range n {
		go func() {
			o, err := e.run(context.Background(), `return await tools.wait(0)`, bindings)
			if err == nil && o.Kind != "" {
				err = errors.New(o.Message)
			}
			done <- err
		}()
	}
	entered.Wait()
	return func() []error {
		close(release)
		errs := make([]error, n)
		for i := range errs {
			errs[i] = <-done
		}
		return errs
	}
}
