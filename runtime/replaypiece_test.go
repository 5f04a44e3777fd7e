package runtime

import (
	"context"
	"testing"

	"github.com/coderun/coderun/budget"

	"github.com/stretchr/testify/require"
)

// A stop that lands while the host copies a long text in pieces (a log
// entry, the program's value) is recorded at that piece, and a replay stops
// at the same piece: the same logs, kind and fuel, not one entry more.
func TestReplayStopInPiece(t *testing.T) {
	e := testEngineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 64 << 20 })
	for _, tc := range []struct{ name, program string }{
		{"log", `console.log("a"); console.log("x".repeat(3e6)); console.log("b"); return 1`},
		{"value", `console.log("a"); return "é".repeat(3e6)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e.hooks.piece = func(r *run) {
				if r.pieces == 3 {
					cancel()
				}
			}
			rec, err := e.RunWith(ctx, tc.program, nil, RunOptions{Record: true})
			e.hooks.piece = nil
			require.NoError(t, err)
			require.NoError(t, rec.TraceErr)
			require.Equal(t, KindAbort, rec.Kind, rec.Message)
			rep, err := e.Replay(context.Background(), rec.Trace, "")
			require.NoError(t, err)
			require.Equal(t, rec.Kind, rep.Kind, rep.Message)
			require.Equal(t, rec.Message, rep.Message)
			require.Equal(t, rec.Logs, rep.Logs)
			require.Equal(t, rec.FuelUsed, rep.FuelUsed)
		})
	}
}
