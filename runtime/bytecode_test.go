package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A program's first run compiles it and keeps its bytecode; later runs
// evaluate that bytecode. Every run of a program reports the same outcome,
// positions in the user's source included, and failures to compile are
// not kept.
func TestProgramBytecodeIsReused(t *testing.T) {
	e := testEngine(t)
	tools := []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"echo": func(ctx context.Context, args []byte) ([]byte, error) { return args, nil },
	}}}
	for _, tc := range []struct {
		name     string
		program  string
		bindings []Binding
		kind     string
		where    string // in the message
		cached   bool
	}{
		{"value and logs", "console.log('hi', [1, 2])\nreturn {a: 1}", nil, "", "", true},
		{"binding", "const r = await tools.echo({x: 1})\nreturn r.x", tools, "", "", true},
		{"exception position", "function f() {\n  throw new Error('x')\n}\nreturn f()", nil, KindException, "at f (program.ts:2:", true},
		{"engine syntax error", "const tools = 1\nreturn tools", tools, KindException, "SyntaxError: invalid redefinition of parameter name\n    at program.ts:1:1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, err := e.Run(context.Background(), tc.program, tc.bindings)
			require.NoError(t, err)
			require.Equal(t, tc.kind, first.Kind, first.Message)
			prog, err := e.programs.Compile(tc.program)
			require.NoError(t, err)
			params := "tools,ToolError"
			if tc.bindings == nil {
				params = ""
			}
			_, cached := prog.Compiled(params)
			require.Equal(t, tc.cached, cached)
			for range 3 {
				o, err := e.Run(context.Background(), tc.program, tc.bindings)
				require.NoError(t, err)
				require.Equal(t, first.Kind, o.Kind)
				require.Equal(t, first.Message, o.Message)
				require.Equal(t, string(first.Value), string(o.Value))
				require.Equal(t, first.Logs, o.Logs)
				require.Equal(t, first.FuelUsed, o.FuelUsed)
			}
			require.Contains(t, first.Message, tc.where)
		})
	}
}
