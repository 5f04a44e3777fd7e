package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/coderun/coderun/internal/quickjs"

	"github.com/stretchr/testify/require"
)

// A trap that is neither the memory cap nor an exit is reported as the
// engine's fault, so that a model does not hunt for it in its program;
// other instance failures keep their own words.
func TestFailureMessage(t *testing.T) {
	for _, tc := range []struct {
		err  string
		want string
	}{
		{"wasm error: out of bounds memory access\nwasm stack trace:\n\t.JS_CallInternal(...)",
			"engine error: the JavaScript engine faulted (out of bounds memory access); this is an engine bug, not an error in the program"},
		{"wasm error: unreachable\nwasm stack trace:\n\t.free(i32)",
			"engine error: the JavaScript engine faulted (unreachable); this is an engine bug, not an error in the program"},
		{"wasm error: integer divide by zero", "engine error: the JavaScript engine faulted (integer divide by zero); this is an engine bug, not an error in the program"},
		{"quickjs: guest out of memory", "engine error: quickjs: guest out of memory; this is a failure of the engine, not an error in the program"},
	} {
		require.Equal(t, tc.want, failureMessage(errors.New(tc.err)), tc.err)
	}
}

// An instance failure ends the run with the budget that caused it: the
// memory cap's, or the engine's for a fault of the engine, as
// coderun.Failure.Budget reports it.
func TestInstanceFailureBudget(t *testing.T) {
	e := loopEngine(t)
	for _, tc := range []struct {
		err    error
		kind   string
		budget string
	}{
		{errors.New("wasm error: unreachable\nwasm stack trace:\n\t.free(i32)"), KindWorkerExit, BudgetEngine},
		{fmt.Errorf("growing: %w", errMemoryLimit), KindWorkerExit, BudgetMemory},
		{&quickjs.ExitError{Code: 3}, KindWorkerExit, BudgetEngine},
	} {
		r := newRun(context.Background(), e, "", nil)
		r.guest(func() error { return tc.err })
		o := r.outcome()
		r.calls.Close()
		require.Equal(t, tc.kind, o.Kind, tc.err)
		require.Equal(t, tc.budget, o.Budget, tc.err)
	}
	for _, b := range []string{BudgetFuel, BudgetCompute, BudgetWall} {
		require.Equal(t, KindTimeout, budgetKind(b))
	}
	require.Equal(t, KindOutputLimit, budgetKind(BudgetOutput))
	require.Equal(t, KindException, budgetKind(BudgetProgram))
	for _, b := range []string{BudgetMemory, BudgetStack, BudgetEngine, BudgetHost} {
		require.Equal(t, KindWorkerExit, budgetKind(b))
	}
}
