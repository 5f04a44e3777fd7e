package coderun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// TestOnLogSeesEveryKeptEntry checks that Request.OnLog receives exactly
// Result.Logs, in order, trimmed entries trimmed and dropped ones not at
// all, with and without bindings (the run then executes on a goroutine of
// its own).
func TestOnLogSeesEveryKeptEntry(t *testing.T) {
	tools := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}
	tests := []struct {
		name     string
		cap      float64
		program  string
		bindings []coderun.Namespace
		kind     coderun.Kind
	}{
		{"plain", 0, `console.log("a", 1); console.warn({ b: [2] }); console.error(""); return 1`, nil, ""},
		{"with a binding", 0, `console.log("before"); await tools.echo(1); console.info("after"); return 1`, []coderun.Namespace{tools}, ""},
		{"flood trimmed at the cap", 300, `for (let i = 0; i < 1000; i++) console.log("spam line", i)`, nil, coderun.OutputLimit},
		{"flood with a binding", 300, `await tools.echo(1); for (let i = 0; i < 1000; i++) console.log("spam line", i)`, []coderun.Namespace{tools}, coderun.OutputLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]any
			if tc.cap != 0 {
				overrides = map[string]any{"MaxOutputBytes": tc.cap}
			}
			rt := newRuntime(t, overrides)
			var seen []string
			res, err := rt.Run(context.Background(), coderun.Request{Program: tc.program, Bindings: tc.bindings,
				OnLog: func(entry string) { seen = append(seen, entry) }})
			require.NoError(t, err)
			if tc.kind == "" {
				require.Nil(t, res.Error)
			} else {
				require.NotNil(t, res.Error)
				require.Equal(t, tc.kind, res.Error.Kind)
			}
			require.NotEmpty(t, res.Logs)
			require.Equal(t, res.Logs, seen)
		})
	}
}

// TestOnLogIsSynchronous checks that the program waits for the hook: a
// binding called right after a log finds the entry already delivered.
func TestOnLogIsSynchronous(t *testing.T) {
	rt := newRuntime(t, nil)
	var seen []string
	tools := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"count": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(fmt.Sprint(len(seen))), nil
		},
	}}
	res, err := rt.Run(context.Background(), coderun.Request{
		Program:  `const counts = []; for (let i = 0; i < 5; i++) { console.log("step", i); counts.push(await tools.count(0)) } return counts`,
		Bindings: []coderun.Namespace{tools},
		OnLog:    func(entry string) { seen = append(seen, entry) },
	})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.JSONEq(t, `[1,2,3,4,5]`, string(res.Value))
}

// TestOnLogPanic checks that a panicking hook neither crashes the host nor
// goes unnoticed: the run ends as worker-exit with a message that blames
// the host, keeps the entries logged so far, and the Runtime goes on
// working.
func TestOnLogPanic(t *testing.T) {
	rt := newRuntime(t, nil)
	tools := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}
	for _, bindings := range [][]coderun.Namespace{nil, {tools}} {
		calls := 0
		res, err := rt.Run(context.Background(), coderun.Request{
			Program:  `console.log("one"); console.log("two"); console.log("three"); return 1`,
			Bindings: bindings,
			OnLog: func(entry string) {
				calls++
				if entry == "two" {
					panic("boom")
				}
			},
		})
		require.NoError(t, err)
		require.NotNil(t, res.Error)
		require.Equal(t, coderun.WorkerExit, res.Error.Kind)
		require.Equal(t, "host error: the host's OnLog hook panicked (boom); this is a bug in the host, not an error in the program", res.Error.Message)
		require.Equal(t, []string{"one", "two"}, res.Logs)
		require.Equal(t, 2, calls, "the run ends at the panic")
		require.Nil(t, res.Value)
	}
	res, err := rt.Run(context.Background(), coderun.Request{Program: `console.log("ok"); return 2`})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.Equal(t, "2", string(res.Value))
}
