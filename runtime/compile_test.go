package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime/internal/transpile"
)

func TestProgramTooLarge(t *testing.T) {
	e := testEngine(t)
	src := strings.Repeat("x = 1;\n", 4<<20/7)
	o := mustRun(t, e, src)
	require.Equal(t, KindException, o.Kind)
	require.Equal(t, fmt.Sprintf("SyntaxError: the program is %d bytes, over the limit of 1048576 bytes "+
		"(MaxProgramBytes) (line %d:%d)", len(src), 1<<20/7+1, 1<<20-(1<<20/7)*7+1), o.Message)
	require.Equal(t, 0, e.programs.Len(), "nothing compiled nor cached")
}

func TestProgramNestedTooDeeply(t *testing.T) {
	e := testEngine(t)
	o := mustRun(t, e, "const x = 1\nreturn "+strings.Repeat("[", 1<<19))
	require.Equal(t, KindException, o.Kind)
	require.Equal(t, fmt.Sprintf("SyntaxError: the program is nested more than %d levels deep here (brackets, "+
		"blocks, operator chains, nested statements or types): split it into smaller functions or statements "+
		"(line 2:%d)", transpile.MaxNesting, len("return ")+transpile.MaxNesting), o.Message)
}

// compilingProgram is a program of about 1 MiB, within the compile-work limits, that esbuild takes
// tens of milliseconds over: statements appending a string.
var compilingProgram = strings.Repeat("s += '((((((((((((((((((((';\n", 1<<20/len("s += '((((((((((((((((((((';\n"))

// compilingEngine is testEngine with the memory compilingProgram's compilation is charged
// (about 110 MiB, see compileReservation).
func compilingEngine(t *testing.T) *Engine {
	return testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 256 << 20 })
}

// TestCompileCancelled cancels a run while its 1 MiB program compiles: the run returns at once,
// and the compilation starts no phase after the cancel. The transform phase is held until the
// run has returned, so a run that waited for the phase in flight would never return (a watchdog
// of a minute catches it): no clock decides the outcome.
func TestCompileCancelled(t *testing.T) {
	e := compilingEngine(t)
	rec := recordPhases(e)
	record, release := e.compilePhase, make(chan struct{})
	e.compilePhase = func(p transpile.Phase) {
		record(p)
		if p == transpile.PhaseTransform {
			<-release
		}
	}
	cancelAt := rec.inTransform
	src := compilingProgram
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-cancelAt
		cancel(errors.New("client went away"))
	}()
	before := runtime.NumGoroutine()
	ran := make(chan Outcome, 1)
	go func() {
		o, err := e.run(ctx, src, nil)
		require.NoError(t, err)
		ran <- o
	}()
	var o Outcome
	select {
	case o = <-ran:
	case <-time.After(time.Minute):
		close(release)
		t.Fatal("the run waited for the phase in flight")
	}
	close(release)
	require.Equal(t, KindAbort, o.Kind)
	require.Equal(t, "client went away", o.Message)

	// The abandoned compilation ends after the phase in flight, starting no other.
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= before }, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, []transpile.Phase{transpile.PhaseScan, transpile.PhaseTransform}, rec.seen())
	require.Equal(t, 0, e.programs.Len(), "a stopped compilation is not cached")
}

// TestCompileClosed: Close ends a run that is compiling, as "runtime disposed", and returns only
// once the compilation has stopped: when Close returns, no goroutine is left of the engine, the
// run or the compilation, and the compilation started no phase after the one in flight (esbuild's
// transform, which cannot be interrupted).
func TestCompileClosed(t *testing.T) {
	before, _ := goroutinesButEsbuildHash() // before the engine: Close ends its goroutines too
	e := compilingEngine(t)
	rec := recordPhases(e)
	inTransform := rec.inTransform
	done := make(chan Outcome, 1)
	go func() {
		o, _ := e.run(context.Background(), compilingProgram, nil)
		done <- o
	}()
	<-inTransform
	require.NoError(t, e.Close(context.Background()))
	o := <-done
	require.Equal(t, KindAbort, o.Kind)
	require.Equal(t, "runtime disposed", o.Message)

	require.Equal(t, []transpile.Phase{transpile.PhaseScan, transpile.PhaseTransform}, rec.seen())
	// The goroutines that have signalled the end of their work (Close waited for that) exit when
	// they are next scheduled: on a loaded machine that can take more than one Gosched, so they
	// are given a minute, a watchdog for a goroutine that never exits.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		n, stacks := goroutinesButEsbuildHash()
		if n <= before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines a minute after Close, %d before the engine:\n%s", n, before, stacks)
		}
	}
}

// phaseRecorder records the phases an engine's compilations start; inTransform is closed when
// the first transform starts.
type phaseRecorder struct {
	mu          sync.Mutex
	phases      []transpile.Phase
	inTransform chan struct{}
}

func recordPhases(e *Engine) *phaseRecorder {
	rec := &phaseRecorder{inTransform: make(chan struct{})}
	e.compilePhase = func(p transpile.Phase) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.phases = append(rec.phases, p)
		if p == transpile.PhaseTransform && len(rec.phases) == 2 {
			close(rec.inTransform)
		}
	}
	return rec
}

// seen returns the phases started so far.
func (rec *phaseRecorder) seen() []transpile.Phase {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.phases)
}

// goroutinesButEsbuildHash counts the goroutines, but for those esbuild started itself (an
// esbuild call returns once its goroutines have signalled their work done, not once they have
// exited, and it leaves one behind that hashes its output, linker.generateIsolatedHashInParallel,
// that nothing waits for) and those already exiting (in runtime.goexit1: their function has
// returned). It also returns the stacks.
func goroutinesButEsbuildHash() (int, string) {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	n := 0
	for _, g := range strings.Split(stacks, "\n\n") {
		if !strings.Contains(g, "created by github.com/evanw/esbuild/") && !strings.Contains(g, "\nruntime.goexit1(") {
			n++
		}
	}
	return n, stacks
}

// TestStoppedRunScrubsLater: every run closes its instance before it returns, with nothing
// left running. A run that is aborted or times out (its caller waits to get control back)
// leaves its memory in the pool unscrubbed, and the next run takes that memory and scrubs it
// first: none of the stopped program's bytes are in the next run's memory. A run that ends
// otherwise scrubs its memory at once.
func TestStoppedRunScrubsLater(t *testing.T) {
	// The secret exists only at run time: "QZX" is not in the program's text.
	const makeSecret = `globalThis.s = Array.from({length: 2000}, (_, i) => String.fromCharCode(81, 90, 88) + (i * 7919 + 104729)).join("|")
`
	secret := []byte("QZX104729")
	for _, tc := range []struct {
		name   string
		end    string
		cancel bool
		kind   string
	}{
		{"abort", "for(;;){}", true, KindAbort},
		{"timeout", "for(;;){}", false, KindTimeout},
		{"exception", "throw new Error('x')", false, KindException},
		{"success", "return 1", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := goroutinesButEsbuildHash()
			wall := time.Minute // only the timeout case may reach it: load cannot turn the others into timeouts
			if tc.kind == KindTimeout {
				wall = 200 * time.Millisecond
			}
			e, err := New(context.Background(), Options{Limits: budget.Limits{
				Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: wall,
				MemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
				MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
			}.WithDefaults(), CacheDir: testCacheDir(t)})
			require.NoError(t, err)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.cancel {
				time.AfterFunc(100*time.Millisecond, func() { cancel(errors.New("stop")) })
			}
			o, err := e.run(ctx, makeSecret+tc.end, nil)
			require.NoError(t, err)
			require.Equal(t, tc.kind, o.Kind, o.Message)
			st := e.qe.PoolStats()
			stopped := tc.kind == KindAbort || tc.kind == KindTimeout
			if stopped {
				require.Equal(t, 1, st.Pending, "the stopped run's memory waits in the pool unscrubbed: %+v", st)
			} else {
				require.Zero(t, st.Pending, "the run's memory was scrubbed when it ended: %+v", st)
			}

			var found bool
			e.hooks.attached = func(in *quickjs.Instance) {
				b, ok := in.Memory().Read(0, in.Memory().Size())
				require.True(t, ok)
				found = bytes.Contains(b, secret)
			}
			o, err = e.run(context.Background(), "return 2", nil)
			require.NoError(t, err)
			require.Equal(t, "2", string(o.Value), o.Message)
			require.False(t, found, "the next run's memory holds the previous program's bytes")
			after := e.qe.PoolStats()
			require.Zero(t, after.Pending, "%+v", after)
			if stopped {
				require.Equal(t, st.ScrubbedByAllocate+1, after.ScrubbedByAllocate, "the next run took the stopped run's memory and scrubbed it: %+v", after)
			}

			require.NoError(t, e.Close(context.Background()))
			n, stacks := goroutinesButEsbuildHash()
			for deadline := time.Now().Add(10 * time.Second); n > before && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
				n, stacks = goroutinesButEsbuildHash()
			}
			if n > before {
				t.Fatalf("%d goroutines after Close, %d before the engine:\n%s", n, before, stacks)
			}
		})
	}
}
