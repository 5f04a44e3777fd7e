package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
)

// Engines of one process share the compiled engine (engineFor), whatever
// their budgets: a second New compiles nothing, each Engine's instances
// still get its own memory cap, and closing one Engine leaves the others
// running.
func TestEnginesShareTheCompiledEngine(t *testing.T) {
	small := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 16 << 20 })
	large := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 128 << 20 })
	require.Same(t, small.qe, large.qe, "a second New compiled the engine again")

	// About 48 MiB of live strings: over the small cap, under the large one.
	const program = `const a = []; for (let i = 0; i < 48; i++) a.push("x".repeat(1 << 20) + i); return a.length`
	o, err := small.run(context.Background(), program, nil)
	require.NoError(t, err)
	require.Equal(t, "worker-exit", o.Kind, "the 16 MiB engine's run was not capped: %s", o.Value)
	require.Contains(t, o.Message, "memory limit of 16 MiB exceeded")
	o, err = large.run(context.Background(), program, nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, "48", string(o.Value))

	// Closing one Engine does not close what the other uses.
	other, err := New(context.Background(), Options{Limits: testLimits(), CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	require.Same(t, large.qe, other.qe)
	require.NoError(t, other.Close(context.Background()))
	o, err = large.run(context.Background(), `return 6 * 7`, nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, "42", string(o.Value))
}
