package coderun_test

import (
	"context"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// Hitting the memory cap ends the run as worker-exit (the failed memory.grow
// traps, so the program cannot catch it), and the next run is unaffected.
func TestMemoryCapIsWorkerExit(t *testing.T) {
	rt := newRuntime(t, map[string]any{"MemoryBytes": float64(32 << 20)})
	programs := []string{
		`const a=[]; for(;;) a.push(new Array(1e6).fill(1))`,
		`try { const a=[]; for(;;) a.push(new Array(1e6).fill(1)) } catch (e) { return "caught " + e }`,
		`return 'x'.repeat(2**28).length`,
		`return new ArrayBuffer(1e9).byteLength`,
		`let s = 'ab'; for(;;) { s += s; s.indexOf('c') }`, // indexOf flattens the rope concatenation makes
	}
	for _, p := range programs {
		res, err := rt.Run(context.Background(), coderun.Request{Program: p})
		require.NoError(t, err)
		require.Equal(t, &coderun.Failure{Kind: coderun.WorkerExit, Budget: coderun.BudgetMemory, Message: "memory limit of 32 MiB exceeded (MemoryBytes)"}, res.Error, p)
		require.Nil(t, res.Value)
		res, err = rt.Run(context.Background(), coderun.Request{Program: `return "alive"`})
		require.NoError(t, err)
		require.JSONEq(t, `"alive"`, string(res.Value), "the run after %q", p)
	}
}
