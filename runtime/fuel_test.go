package runtime

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// mixed exercises JS calls, loops, JSON, sort with a comparator, regex and
// BigInt, so that both charging paths (interrupt polls and C loops) count.
const mixed = `
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
const docs = []; for (let i = 0; i < 2000; i++) docs.push({ id: i, name: "n" + i, tags: ["a", "b"] })
const round = JSON.parse(JSON.stringify(docs))
const sorted = round.map(d => d.id * 7919 % 2003).sort((a, b) => a - b)
const words = "the quick brown fox jumps over the lazy dog ".repeat(200).match(/\w+/g).length
return [fib(18), sorted[1000], words, String(3n ** 500n).length]`

func TestFuelIsDeterministic(t *testing.T) {
	e := testEngine(t)
	run := func() Outcome {
		o, err := e.run(context.Background(), mixed, nil)
		require.NoError(t, err)
		require.Empty(t, o.Kind, o.Message)
		return o
	}
	first := run()
	require.NotZero(t, first.FuelUsed)
	prev := goruntime.GOMAXPROCS(0)
	defer goruntime.GOMAXPROCS(prev)
	for _, procs := range []int{1, 2} {
		goruntime.GOMAXPROCS(procs)
		for range 10 {
			require.Equal(t, first.FuelUsed, run().FuelUsed, "GOMAXPROCS=%d", procs)
		}
	}
}

// Waiting on a binding spends no fuel: the same program spends the same
// fuel whether its binding answers at once or after 200 ms.
func TestWaitingSpendsNoFuel(t *testing.T) {
	e := testEngine(t)
	fuelWith := func(delay time.Duration) uint64 {
		b := []Binding{{Global: "tools", Functions: map[string]Func{
			"get": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				time.Sleep(delay)
				return []byte(`[1,2,3]`), nil
			},
		}}}
		o, err := e.run(context.Background(), `let s = 0; for (let i = 0; i < 3; i++) { const r = await tools.get({i}); s += r.length } return s`, b)
		require.NoError(t, err)
		require.Empty(t, o.Kind, o.Message)
		require.Equal(t, "9", string(o.Value))
		return o.FuelUsed
	}
	require.Equal(t, fuelWith(0), fuelWith(200*time.Millisecond))
}

// The fuel budget is exact: a program that spends F units succeeds with a
// budget of F and fails with F-1, naming the budget.
func TestFuelBudgetIsExact(t *testing.T) {
	e := testEngine(t)
	o, err := e.run(context.Background(), mixed, nil)
	require.NoError(t, err)
	used := o.FuelUsed
	for _, tc := range []struct {
		fuel uint64
		kind string
	}{{used, ""}, {used - 1, KindTimeout}} {
		limits := e.limits
		limits.Fuel = tc.fuel
		e2, err := New(context.Background(), Options{Limits: limits, CacheDir: testCacheDir(t)})
		require.NoError(t, err)
		o, err := e2.run(context.Background(), mixed, nil)
		require.NoError(t, err)
		require.Equal(t, tc.kind, o.Kind, o.Message)
		if tc.kind != "" {
			require.Equal(t, budget.FuelMessage(tc.fuel), o.Message)
		}
		require.NoError(t, e2.Close(context.Background()))
	}
}

// The fuel that compiling a program spends is reported in its run's fuel, on the first run (which
// compiles it) and on every later one (which reuses the bytecode and is charged what the
// compilation spent): a 200,000-digit BigInt literal costs the engine millions of units to read,
// and the program's runs report them, where they used to report about 20,000.
func TestCompileFuelIsReported(t *testing.T) {
	e := testEngine(t)
	digits := strings.Repeat("7", 200_000)
	fuelOf := func(program string) uint64 {
		o := mustRun(t, e, program)
		require.Equal(t, "1", string(o.Value), o.Message)
		return o.FuelUsed
	}
	small := fuelOf("const x = 7n\nreturn 1")
	big := fuelOf("const x = " + digits + "n\nreturn 1")
	again := fuelOf("const x = " + digits + "n\nreturn 1")
	t.Logf("fuel: %d with a short literal, %d with 200,000 digits", small, big)
	require.Equal(t, big, again, "a run that reuses the bytecode is charged the compilation's fuel")
	require.Greater(t, big-small, uint64(len(digits)), "at least a unit per digit")
}
