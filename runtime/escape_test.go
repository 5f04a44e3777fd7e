package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProgramStaysInItsFunction: a program that closes the function it is
// the body of, so that code of it would run when the script is evaluated,
// fails before any of it runs, with a SyntaxError that points at the
// bracket that closes the function: esbuild's output loses the wrapper's
// shape, or the script the engine compiles (Program.Script, without the
// wrapper's parentheses) does not compile, or it compiles to more than one
// function (quickjs.CheckOneFunction, whose own test covers every shape).
func TestProgramStaysInItsFunction(t *testing.T) {
	e := testEngine(t)
	tests := []struct{ name, program, at string }{
		{"statement after", "}); console.log('escaped'); (async function () {", "(line 1:1)"},
		{"comma", "}, console.log('escaped'), function () {", "(line 1:1)"},
		{"comma, TypeScript", "}, console.log('escaped' as string), function () {", "(line 1:1)"},
		{"call", "}(console.log('escaped')), function () {", "(line 1:1)"},
		{"after a line", "const a = 1\n  }, console.log('escaped'), function () {", "(line 2:3)"},
		{"class static block", "}, class { static { console.log('escaped') } }, function () {", "(line 1:1)"},
		{"declaration", "}; var console = 1; {", ""}, // esbuild refuses it: the wrapper is inside parentheses
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the first run compiles the program, the second finds it compiled
				o, err := e.run(context.Background(), tt.program, echoTools())
				require.NoError(t, err)
				require.Equal(t, KindException, o.Kind)
				require.Contains(t, o.Message, "SyntaxError")
				require.Contains(t, o.Message, tt.at)
				require.Empty(t, o.Logs, "code outside the function ran")
				require.Nil(t, o.Value)
			}
		})
	}
	// A program that stays inside its function still runs, with its bindings.
	o, err := e.run(context.Background(), "const r = await tools.echo({a: '}'}); return r.a", echoTools())
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, `"}"`, string(o.Value))
}
