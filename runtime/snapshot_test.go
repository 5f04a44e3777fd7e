package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
	"github.com/stretchr/testify/require"
)

// fullPrelude is the prelude evaluated into the snapshot.
func fullPrelude() string { return preludeSource() }

// The snapshot's image carries neither the prelude's source text nor the
// bytes nobody reads: both trim steps pass their checks, the image keeps
// well under half of its non-zero bytes, and its data segments stay within
// a bound that keeps instantiation cheap (measured: 119 sources, 69 KB;
// 625,892 non-zero bytes before, 198 KB after; 39 segments, 360 KB). The
// build is deterministic, as snapshotKey and wazero's compilation cache
// require.
func TestSnapshotImageTrimmed(t *testing.T) {
	ctx := context.Background()
	hardened, err := wasm.Harden(upstream.Module(), fuelConfig)
	require.NoError(t, err)
	s, err := buildSnapshot(ctx, hardened, fullPrelude())
	require.NoError(t, err)
	tr := s.trim
	require.NoError(t, tr.SourcesErr)
	require.NoError(t, tr.ZeroErr)
	require.Greater(t, tr.Sources.Functions, 50)
	require.Greater(t, tr.Sources.Bytes, 30_000)
	require.Positive(t, tr.Zeroed)
	require.LessOrEqual(t, 2*tr.NonZeroAfter, tr.NonZeroBefore, "non-zero bytes before and after the trim")

	m, err := wasm.Decode(s.module)
	require.NoError(t, err)
	data := 0
	for _, d := range m.Data {
		data += len(d.Init)
	}
	t.Logf("trim %+v; %d data segments, %d bytes", tr, len(m.Data), data)
	require.LessOrEqual(t, data, 450_000, "bytes of data segments")
	require.LessOrEqual(t, len(m.Data), 64, "data segments")

	if testing.Short() {
		return
	}
	again, err := buildSnapshot(ctx, hardened, fullPrelude())
	require.NoError(t, err)
	require.True(t, bytes.Equal(s.module, again.module), "two builds differ")
	require.Equal(t, s.state, again.state)
}

// The prelude's functions print as native code, as builtins do, while the
// program's own functions keep their source, and the binding error
// classes the prelude makes still print as classes.
func TestPreludeFunctionsPrintAsNative(t *testing.T) {
	e := testEngine(t)
	o, err := e.run(context.Background(), `function mine(x) { return x + 1 }
console.log(ToolError);
return [String(console.log), String(setTimeout), String(JSON.stringify), String(mine), mine(1)]`, echoTools())
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, []string{"[class ToolError extends Error]"}, o.Logs)
	var got []any
	require.NoError(t, json.Unmarshal(o.Value, &got))
	require.Len(t, got, 5)
	for i := range 3 {
		require.Contains(t, got[i], "[native code]", "item %d", i)
	}
	mine, _ := got[3].(string)
	require.True(t, strings.HasPrefix(mine, "function mine(x)"), mine)
	require.Contains(t, mine, "return x")
	require.NotContains(t, mine, "[native code]")
	require.Equal(t, float64(2), got[4])
}
