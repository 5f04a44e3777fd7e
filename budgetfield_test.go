package coderun_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

// Failure.Budget names what ended a run, one program per budget, with the
// kind that goes with it; a failure the program or the caller caused has
// none. (BudgetEngine, a fault no program can cause, and BudgetStack, which
// the account's memory cap reaches first, are checked in package runtime.)
func TestFailureBudget(t *testing.T) {
	exit := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"exit": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			runtime.Goexit()
			return nil, nil
		},
	}}
	for _, tc := range []struct {
		name    string
		config  func(*coderun.Config)
		program string
		ns      []coderun.Namespace
		kind    coderun.Kind
		budget  coderun.Budget
		message string // a prefix of the message
	}{
		{name: "fuel", config: func(c *coderun.Config) { c.Fuel = 100_000 },
			program: `for (;;) {}`, kind: coderun.Timeout, budget: coderun.BudgetFuel, message: "fuel budget exhausted (100000 units)"},
		{name: "compute", config: func(c *coderun.Config) { c.ComputeTime = 50 * time.Millisecond },
			program: `for (;;) {}`, kind: coderun.Timeout, budget: coderun.BudgetCompute, message: "compute budget exhausted (50ms busy)"},
		{name: "wall", config: func(c *coderun.Config) { c.WallTime = 100 * time.Millisecond },
			program: `await new Promise(r => setTimeout(r, 1e9))`, kind: coderun.Timeout, budget: coderun.BudgetWall, message: "wall-clock ceiling reached (100ms)"},
		{name: "memory", config: func(c *coderun.Config) { c.MemoryBytes = 32 << 20 },
			program: `const a = []; for (;;) a.push(new Array(1e6).fill(1))`, kind: coderun.WorkerExit, budget: coderun.BudgetMemory, message: "memory limit of 32 MiB exceeded (MemoryBytes)"},
		{name: "output", config: func(c *coderun.Config) { c.MaxOutputBytes = 300 },
			program: `for (let i = 0; i < 1000; i++) console.log("spam line", i)`, kind: coderun.OutputLimit, budget: coderun.BudgetOutput, message: "output exceeded 300 bytes (MaxOutputBytes)"},
		{name: "output of a failure message", config: func(c *coderun.Config) { c.MaxOutputBytes = 64 },
			program: `throw new Error("x".repeat(1e6))`, kind: coderun.OutputLimit, budget: coderun.BudgetOutput, message: "output exceeded 64 bytes (MaxOutputBytes)"},
		{name: "program", config: func(c *coderun.Config) { c.MaxProgramBytes = 100 },
			program: "return " + strings.Repeat("1+", 100) + "1", kind: coderun.Exception, budget: coderun.BudgetProgram, message: "SyntaxError: the program is 208 bytes, over the limit of 100 bytes (MaxProgramBytes)"},
		{name: "host", program: `return await tools.exit({})`, ns: []coderun.Namespace{exit},
			kind: coderun.WorkerExit, budget: coderun.BudgetHost, message: "host error: a binding called runtime.Goexit"},
		{name: "exception has none", program: `throw new TypeError("nope")`, kind: coderun.Exception, message: "TypeError: nope"},
		{name: "invalid output has none", program: `return new Map()`, kind: coderun.InvalidOutput, message: "program completion must be lossless JSON"},
		{name: "syntax error has none", program: `return (`, kind: coderun.Exception, message: "SyntaxError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := coderun.DefaultConfig()
			if tc.config != nil {
				tc.config(&cfg)
			}
			rt := newRuntimeConfig(t, cfg)
			res, err := rt.Run(context.Background(), coderun.Request{Program: tc.program, Bindings: tc.ns})
			require.NoError(t, err)
			require.NotNil(t, res.Error)
			require.Equal(t, tc.kind, res.Error.Kind, res.Error.Message)
			require.Equal(t, tc.budget, res.Error.Budget, res.Error.Message)
			require.True(t, strings.HasPrefix(res.Error.Message, tc.message), res.Error.Message)
		})
	}
	// An abort has none.
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(context.Canceled)
	res, err := rt.Run(ctx, coderun.Request{Program: `return 1`})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "context canceled"}, res.Error)
}

// A Failure's JSON has the budget when there is one, and none otherwise.
func TestFailureBudgetJSON(t *testing.T) {
	b, err := json.Marshal(coderun.Failure{Kind: coderun.Timeout, Budget: coderun.BudgetFuel, Message: "m"})
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"timeout","budget":"fuel","message":"m"}`, string(b))
	b, err = json.Marshal(coderun.Failure{Kind: coderun.Exception, Message: "m"})
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"exception","message":"m"}`, string(b))
}

// A recursion without bound meets QuickJS's own limit first, a RangeError
// the program can catch (contract §2): uncaught, it ends the run as an
// exception with no budget. What fills the native stack, and so ends a run
// as worker-exit with BudgetStack, is nesting the engine's C code goes
// through without that limit: an input nested deeper than its parser goes.
func TestUnboundedRecursion(t *testing.T) {
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	const down = "function down(n) { return down(n + 1) + 1 }\n"
	for _, tc := range []struct {
		name    string
		program string
		input   string
		kind    coderun.Kind
		budget  coderun.Budget
		message string // a prefix of the message, or the value when kind is ""
	}{
		{name: "uncaught", program: down + "return down(0)",
			kind: coderun.Exception, message: "RangeError: Maximum call stack size exceeded"},
		{name: "caught", program: down + "try { down(0) } catch (e) { return e instanceof RangeError }", message: "true"},
		{name: "input nested too deep", program: "return input", input: strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000),
			kind: coderun.WorkerExit, budget: coderun.BudgetStack, message: "the run's input (Request.Input) is nested too deeply for the engine to parse it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := rt.Run(context.Background(), coderun.Request{Program: tc.program, Input: json.RawMessage(tc.input)})
			require.NoError(t, err)
			if tc.kind == "" {
				require.NoError(t, res.Err())
				require.Equal(t, tc.message, string(res.Value))
				return
			}
			require.NotNil(t, res.Error)
			require.Equal(t, tc.kind, res.Error.Kind, res.Error.Message)
			require.Equal(t, tc.budget, res.Error.Budget, res.Error.Message)
			require.True(t, strings.HasPrefix(res.Error.Message, tc.message), res.Error.Message)
		})
	}
}
