package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// echoFailTools is a namespace tools with an error class ToolError whose
// echo resolves to its argument and whose fail rejects with "it failed".
func echoFailTools() []Binding {
	return []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
		"fail": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("it failed")
		},
	}}}
}

// requireOutcome runs program on e and checks that it fails as an
// exception with message, or, when message is empty, that it returns the
// JSON value.
func requireOutcome(t *testing.T, e *Engine, program string, bindings []Binding, message, value string) {
	t.Helper()
	o, err := e.run(context.Background(), program, bindings)
	require.NoError(t, err)
	if message != "" {
		require.Equal(t, KindException, o.Kind)
		require.Equal(t, message, o.Message)
		return
	}
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, value, string(o.Value))
}
