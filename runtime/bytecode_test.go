package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/runtime/internal/transpile"

	"github.com/stretchr/testify/require"
)

// A program's first run compiles it and keeps its bytecode; later runs
// evaluate that bytecode. Every run of a program reports the same outcome,
// positions in the user's source included, and failures to compile are
// not kept.
func TestProgramBytecodeIsReused(t *testing.T) {
	e := testEngine(t)
	tools := echoTools()
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
		// A program of 10,000 strings, its bytecode over 64 KiB, is kept too.
		{"large bytecode", bigProgram(), nil, KindException, "Error: 9999\n    at <program> (program.ts:10003:", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, err := e.run(context.Background(), tc.program, tc.bindings)
			require.NoError(t, err)
			require.Equal(t, tc.kind, first.Kind, first.Message)
			prog, err := e.programs.Compile(t.Context(), tc.program, transpile.Options{})
			require.NoError(t, err)
			params := "tools,ToolError"
			if tc.bindings == nil {
				params = ""
			}
			_, cached := prog.Compiled(params)
			require.Equal(t, tc.cached, cached)
			for range 3 {
				o, err := e.run(context.Background(), tc.program, tc.bindings)
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

// TestProgramBytecodeTooLargeToKeep: bytecode over 4 MiB (here a program of
// 3 MiB, over the default MaxProgramBytes) is not kept: every run compiles
// it, with the same outcome and fuel. (Compiling it takes about 100 MiB of
// the run's memory, see compileReservation.)
func TestProgramBytecodeTooLargeToKeep(t *testing.T) {
	if raceEnabled {
		t.Skip("compiling and running on one goroutine: -race finds nothing there (scripts/test runs it without)")
	}
	e := testEngineWith(t, func(l *budget.Limits) { l.MaxProgramBytes = 4 << 20; l.MemoryBytes = 256 << 20 })
	program := "const s = \"" + strings.Repeat("x", 3<<20) + "\"\nthrow new Error(String(s.length))"
	first, err := e.run(context.Background(), program, nil)
	require.NoError(t, err)
	require.Equal(t, KindException, first.Kind)
	require.Contains(t, first.Message, "Error: 3145728\n    at <program> (program.ts:2:")
	prog, err := e.programs.Compile(t.Context(), program, transpile.Options{MaxProgramBytes: 4 << 20})
	require.NoError(t, err)
	_, cached := prog.Compiled("")
	require.False(t, cached)
	o, err := e.run(context.Background(), program, nil)
	require.NoError(t, err)
	require.Equal(t, first.Message, o.Message)
	require.Equal(t, first.FuelUsed, o.FuelUsed)
}

// bigProgram returns a program whose bytecode is larger than 64 KiB: an
// array literal of 10,000 distinct strings. It throws, so that its message
// carries a position mapped back through the program's source map.
func bigProgram() string {
	var b strings.Builder
	b.WriteString("const a = [\n")
	for i := range 10000 {
		fmt.Fprintf(&b, "  \"s%d\",\n", i)
	}
	b.WriteString("]\nthrow new Error(String(a.length - 1))")
	return b.String()
}
