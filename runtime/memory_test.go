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

func memoryLimits(memoryBytes int64) budget.Limits {
	return budget.Limits{
		Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: time.Minute,
		MemoryBytes: memoryBytes, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults()
}

func memoryEngine(t *testing.T, memoryBytes int64) *Engine {
	t.Helper()
	e, err := New(context.Background(), Options{Limits: memoryLimits(memoryBytes), CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}

// recursionProgram recurses until QuickJS throws and returns the depth
// reached and the error.
const recursionProgram = `let d = 0
function f() { d++; return f() }
try { f() } catch (e) { return [d, String(e)] }`

// Deep recursion reaches the contract's 5,000 frames at the default
// MemoryBytes and stops earlier with a smaller one, always as a catchable
// RangeError, and the run's account never holds more than MemoryBytes.
func TestRecursionDepthFollowsMemoryBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine recursing alone: -race finds nothing (scripts/test runs it without)")
	}
	cases := []struct {
		memoryBytes        int64
		minDepth, maxDepth int
	}{
		{32 << 20, 400, 2000},
		{64 << 20, 1000, 4000},
		{256 << 20, 5000, 10000},
	}
	var prev int
	for _, c := range cases {
		e := memoryEngine(t, c.memoryBytes)
		for run := range 2 { // the first run compiles, the second reads bytecode
			o, err := e.run(context.Background(), recursionProgram, nil)
			require.NoError(t, err)
			require.Empty(t, o.Kind, "%d MiB: %s", c.memoryBytes>>20, o.Message)
			var got []any
			require.NoError(t, json.Unmarshal(o.Value, &got))
			depth := int(got[0].(float64))
			require.Equal(t, "RangeError: Maximum call stack size exceeded", got[1])
			require.GreaterOrEqual(t, depth, c.minDepth, "%d MiB", c.memoryBytes>>20)
			require.LessOrEqual(t, depth, c.maxDepth, "%d MiB", c.memoryBytes>>20)
			require.Greater(t, depth, prev, "more memory, deeper recursion")
			require.LessOrEqual(t, o.PeakMemory, c.memoryBytes)
			// The native stack is part of the peak: at least what the
			// frames reached take at the measured 7 KB each.
			require.Greater(t, o.PeakMemory, int64(depth)*7000, "%d MiB, run %d", c.memoryBytes>>20, run)
			t.Logf("%d MiB: depth %d, peak %.1f MiB", c.memoryBytes>>20, depth, float64(o.PeakMemory)/(1<<20))
		}
		o, err := e.run(context.Background(), recursionProgram, nil)
		require.NoError(t, err)
		var got []any
		require.NoError(t, json.Unmarshal(o.Value, &got))
		prev = int(got[0].(float64))
	}
}

// budget.NativeBase, what every run is charged for its instance's native stacks
// before any deep call, covers what they hold: wazero's initial stack, the
// stack Warm grows it to (deep for runs with bindings), and as much again
// for a nested call. Warm's allocation is measured in Go heap bytes; the
// minimum of a few tries leaves out what other goroutines allocate meanwhile.
func TestNativeBaseCoversWarm(t *testing.T) {
	const initialStack = 10 << 10 // wazero's; quickjs.TestWarmStackSize pins it
	e := memoryEngine(t, 64<<20)
	for _, deep := range []bool{false, true} {
		t.Run(fmt.Sprintf("deep=%v", deep), func(t *testing.T) {
			least := uint64(1 << 62)
			for range 5 {
				in, err := e.qe.Instantiate(context.Background(), templateHost{})
				require.NoError(t, err)
				var before, after goruntime.MemStats
				goruntime.ReadMemStats(&before)
				require.NoError(t, in.Warm(deep))
				goruntime.ReadMemStats(&after)
				require.NoError(t, in.Close(context.Background()))
				least = min(least, after.TotalAlloc-before.TotalAlloc)
			}
			require.Greater(t, least, uint64(initialStack), "Warm grows the stack")
			require.LessOrEqual(t, 2*(initialStack+least), uint64(budget.NativeBase),
				"Warm allocated %d bytes", least)
		})
	}
}

// A trivial run's peak is its instance and the first steps of its stack,
// far below MemoryBytes.
func TestTrivialRunPeak(t *testing.T) {
	e := memoryEngine(t, 256<<20)
	o, err := e.run(context.Background(), "return 1", nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind)
	require.Greater(t, o.PeakMemory, int64(2<<20), "the guest's linear memory")
	require.Less(t, o.PeakMemory, int64(16<<20))
}

// A small MemoryBytes leaves a run's first stack less, not the heap and
// the host nothing: a trivial program logs and returns at the smallest
// budgets, and a deep recursion there still ends in a catchable
// RangeError. (The first stack used to take all the account had left, up
// to its 64 KiB: below 9.75 MiB the first log line or heap growth ended
// the run as worker-exit, and so did the recursion's end at 5 to 8 MiB.)
func TestSmallBudgetLeavesRoomBesideTheStack(t *testing.T) {
	cases := []struct {
		memoryBytes int64
		objects     int // that the program makes (about 50 bytes of heap each)
	}{{5 << 20, 2000}, {6 << 20, 5000}, {9 << 20, 10000}}
	for _, c := range cases {
		memoryBytes := c.memoryBytes
		e := memoryEngine(t, memoryBytes)
		program := fmt.Sprintf(`console.log('hi'); const a = []; for (let i = 0; i < %d; i++) a.push({i}); return a.length`, c.objects)
		o, err := e.run(context.Background(), program, nil)
		require.NoError(t, err)
		require.Empty(t, o.Kind, "%d MiB: %s", memoryBytes>>20, o.Message)
		require.Equal(t, []string{"hi"}, o.Logs)
		require.JSONEq(t, fmt.Sprint(c.objects), string(o.Value))
		require.LessOrEqual(t, o.PeakMemory, memoryBytes)

		o, err = e.run(context.Background(), recursionProgram, nil)
		require.NoError(t, err)
		require.Empty(t, o.Kind, "%d MiB: %s", memoryBytes>>20, o.Message)
		var got []any
		require.NoError(t, json.Unmarshal(o.Value, &got))
		require.Equal(t, "RangeError: Maximum call stack size exceeded", got[1], "%d MiB", memoryBytes>>20)
		require.LessOrEqual(t, o.PeakMemory, memoryBytes)
	}
}

// The guest's linear memory grows only while it fits beside what the host
// holds for the run: with host bytes charged, a guest that allocates until
// it fails fails with the memory message sooner.
func TestGuestSharesTheAccountWithTheHost(t *testing.T) {
	const memoryBytes = 64 << 20
	program := `const a = []
for (let i = 0; ; i++) { a.push(new Array(1e5).fill(i)); console.log(i) }`
	e := memoryEngine(t, memoryBytes)
	reached := func(hostBytes int64) (int, int64) {
		r := newRun(context.Background(), e, program, nil)
		require.True(t, r.mem.Charge(hostBytes))
		o := r.execute()
		require.Equal(t, KindWorkerExit, o.Kind)
		require.Equal(t, budget.MemoryMessage(memoryBytes), o.Message)
		require.LessOrEqual(t, o.PeakMemory, int64(memoryBytes))
		return len(o.Logs), o.PeakMemory
	}
	alone, peakAlone := reached(0)
	shared, peakShared := reached(24 << 20)
	t.Logf("arrays allocated: %d alone (peak %d), %d beside 24 MiB of host bytes (peak %d)", alone, peakAlone, shared, peakShared)
	require.Greater(t, alone, 20)
	// Each array is 1e5 values (at least 800 KB): 24 MiB is at least 20 of
	// them, give or take the heap's growth steps.
	require.Less(t, shared, alone-15)
	require.Greater(t, peakShared, int64(memoryBytes-8<<20), "the failure came at the cap")
}

// Stack charges are released when the instance is closed: a run's account
// is empty after the run, and the compiling instance of a program's first
// run is released before its successor is charged.
func TestAccountEmptyAfterRun(t *testing.T) {
	e := memoryEngine(t, 64<<20)
	for _, program := range []string{recursionProgram, "return 1", "const a = new Array(1e6).fill(1); return a.length"} {
		for range 2 {
			r := newRun(context.Background(), e, program, nil)
			o := r.execute()
			require.Empty(t, o.Kind, o.Message)
			require.Zero(t, r.mem.Used(), program)
			require.LessOrEqual(t, r.mem.Peak(), int64(64<<20))
		}
	}
}

// Ordinary runs never make the engine return memory to the OS (a
// collection); runs that recursed deep do.
func TestOnlyDeepRunsGiveBack(t *testing.T) {
	e := memoryEngine(t, 64<<20)
	returns := func() int {
		e.giveBack.wait()
		e.giveBack.mu.Lock()
		defer e.giveBack.mu.Unlock()
		return e.giveBack.returns
	}
	for range 50 {
		o, err := e.run(context.Background(), `const a = []; for (let i = 0; i < 1e4; i++) a.push({i}); return a.length`, nil)
		require.NoError(t, err)
		require.Empty(t, o.Kind)
	}
	require.Zero(t, returns())
	o, err := e.run(context.Background(), recursionProgram, nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind)
	require.Equal(t, 1, returns())
}
