package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// A call that completes because the run's ctx was cancelled (here the
// binding cancels it itself, then rejects) is not delivered: the run ends
// as abort, whether the call ran inline (alone) or beside others, never as
// the rejection the program would catch or throw.
func TestCancelledCallEndsAsAbort(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct{ name, program string }{
		{"lone call", `try { await api.cancel({}) } catch (e) { return "caught " + e.message }`},
		{"lone call, uncaught", `await api.cancel({}); return "after"`},
		{"beside a timer", `setTimeout(() => {}, 60000); try { await api.cancel({}) } catch (e) { return "caught" }`},
		{"beside another call", `try { await Promise.all([api.cancel({}), api.wait({})]) } catch (e) { return "caught" }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 50; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				bindings := []Binding{{Global: "api", Functions: map[string]Func{
					"cancel": func(context.Context, json.RawMessage) (json.RawMessage, error) {
						cancel()
						return nil, errors.New("cancelled")
					},
					"wait": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
						<-ctx.Done()
						return nil, ctx.Err()
					},
				}}}
				o, err := e.run(ctx, tc.program, bindings)
				cancel()
				require.NoError(t, err)
				require.Equal(t, KindAbort, o.Kind, "run %d: %s %s", i, o.Message, o.Value)
			}
		})
	}
}
