package runtime

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime/internal/transpile"
)

// runInput runs program with input on e.
func runInput(t *testing.T, e *Engine, program, input string) Outcome {
	t.Helper()
	o, err := e.RunWith(context.Background(), program, nil, RunOptions{Input: []byte(input)})
	require.NoError(t, err)
	return o
}

// One program run with different inputs is compiled once, by the
// transpiler and by the engine: the input is not part of its text. Every
// run of it with one input spends the same fuel.
func TestInputSharesCompiledProgram(t *testing.T) {
	e := testEngine(t)
	var phases, scripts atomic.Int32
	e.compilePhase = func(transpile.Phase) { phases.Add(1) }
	e.hooks.script = func(s string) string { scripts.Add(1); return s }
	const program = "const xs: number[] = input.xs\nreturn xs.reduce((a, b) => a + b, 0)"
	fuel := map[string]uint64{}
	for range 2 {
		for _, tc := range []struct{ input, value string }{
			{`{"xs":[1,2,3]}`, "6"},
			{`{"xs":[10,20]}`, "30"},
			{`{"xs":[]}`, "0"},
		} {
			o := runInput(t, e, program, tc.input)
			require.Empty(t, o.Kind, o.Message)
			require.Equal(t, tc.value, string(o.Value))
			if f, ok := fuel[tc.input]; ok {
				require.Equal(t, f, o.FuelUsed, "the same program and input spend the same fuel")
			}
			fuel[tc.input] = o.FuelUsed
		}
	}
	require.Equal(t, int32(1), scripts.Load(), "the engine compiled the program once")
	require.NotZero(t, phases.Load())
	before := phases.Load()
	o := runInput(t, e, program, `{"xs":[5]}`)
	require.Equal(t, "5", string(o.Value))
	require.Equal(t, before, phases.Load(), "a new input does not recompile the program")
}

// A run without an input evaluates none of the installer, and spends the
// fuel it spent before inputs existed: the prelude's undefined `input` is
// all it has of them.
func TestNoInputCostsNothing(t *testing.T) {
	e := testEngine(t)
	for _, program := range []string{"return typeof input", "input = 1", "return Object.isFrozen(globalThis)"} {
		mustRun(t, e, program)
	}
	require.Nil(t, e.input.code, "no run had an input")
	o := runInput(t, e, "return input", "[1]")
	require.Equal(t, "[1]", string(o.Value))
	require.NotNil(t, e.input.code)
}

// RunWith refuses an input over MaxInputBytes or not lossless JSON before
// anything runs, with an error wrapping ErrInvalidInput that says why.
func TestInputRefused(t *testing.T) {
	e := testEngineWith(t, func(l *budget.Limits) { l.MaxInputBytes = 64 })
	for _, tc := range []struct{ input, want string }{
		{strings.Repeat(" ", 60) + "12345", "coderun: invalid Request.Input: it is 65 bytes, over the limit of 64 bytes (Config.MaxInputBytes)"},
		{`{"a":`, "coderun: invalid Request.Input: it must be lossless JSON, as a binding's result must: invalid JSON: unexpected end of input at offset 5"},
		{`[9007199254740993]`, "integer beyond ±2^53: 9007199254740993 at offset 1"},
		{`{"a":1,"a":2}`, `duplicate key "a" at offset 7`},
		{`"\ud800"`, `lone surrogate escape: \ud800 at offset 1`},
		{`-0`, "negative zero: -0 at offset 0"},
		{`1e400`, "number overflows float64"},
		{"  ", "invalid JSON"},
		{"[1] [2]", "invalid JSON"},
		{"\"\xff\"", "invalid UTF-8"},
	} {
		t.Run(tc.input, func(t *testing.T) {
			_, err := e.RunWith(context.Background(), "return 1", nil, RunOptions{Input: []byte(tc.input)})
			require.ErrorIs(t, err, ErrInvalidInput)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	o := runInput(t, e, "return input", strings.Repeat(" ", 61)+"123")
	require.Equal(t, "123", string(o.Value), "64 bytes, whitespace included, is within the limit")
}

// An input whose value does not fit in MemoryBytes ends the run as
// worker-exit, with a message that names the input and the limit; the
// next run works.
func TestInputOverMemory(t *testing.T) {
	e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 8 << 20; l.MaxInputBytes = 4 << 20 })
	input := "[" + strings.Repeat("{},", 300_000) + "{}]"
	o := runInput(t, e, "return input.length", input)
	require.Equal(t, KindWorkerExit, o.Kind)
	require.Equal(t, BudgetMemory, o.Budget)
	require.Equal(t, "memory limit of 8 MiB exceeded (MemoryBytes): the run's input (Request.Input, 900004 bytes of JSON) does not fit in MemoryBytes as a value beside the program; pass a smaller input, or raise MemoryBytes", o.Message)
	require.LessOrEqual(t, o.PeakMemory, int64(8<<20))
	o = runInput(t, e, "return input.length", "[1,2]")
	require.Equal(t, "2", string(o.Value))
}

// An input nested as deep as the contract's 5,000 levels (here 10,000:
// an object and an array a level) is frozen all the way down.
func TestInputDeep(t *testing.T) {
	e := testEngine(t)
	const depth = 5_000
	input := strings.Repeat(`{"a":[`, depth) + strings.Repeat("]}", depth)
	o := runInput(t, e, `let d = 0, x = input
while (x !== undefined) {
  if (!Object.isFrozen(x) || !Object.isFrozen(x.a)) throw new Error("not frozen at " + d)
  d++; x = x.a[0]
}
return d`, input)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, "5000", string(o.Value))

	// Far deeper than the engine's parser goes: the run ends, saying why,
	// before the program starts; the host survives it.
	deeper := strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)
	o = runInput(t, e, `console.log("never runs")`, deeper)
	require.Equal(t, KindWorkerExit, o.Kind)
	require.Equal(t, BudgetStack, o.Budget)
	require.Equal(t, "the run's input (Request.Input) is nested too deeply for the engine to parse it (RangeError: Maximum call stack size exceeded); pass a flatter input", o.Message)
	require.Empty(t, o.Logs)
}

// A run whose ctx is cancelled while its big input is parsed ends as an
// abort before it parsed all of it: the parse is the guest's, and yields
// for fuel as the program does.
func TestInputParseCancelled(t *testing.T) {
	e := testEngineWith(t, func(l *budget.Limits) { l.MaxInputBytes = 32 << 20; l.MemoryBytes = 512 << 20 })
	input := "[" + strings.Repeat(`"abcdefgh",`, 1<<18) + "0]"
	whole := runInput(t, e, "return input.length", input)
	require.Equal(t, "262145", string(whole.Value))
	ctx, cancel := context.WithCancelCause(context.Background())
	e.hooks.attached = func(*quickjs.Instance) { cancel(errors.New("caller gave up")) }
	o, err := e.RunWith(ctx, "return input.length", nil, RunOptions{Input: []byte(input)})
	require.NoError(t, err)
	require.Equal(t, KindAbort, o.Kind)
	require.Equal(t, "caller gave up", o.Message)
	require.Less(t, o.FuelUsed, whole.FuelUsed/2, "the parse stopped early")
}
