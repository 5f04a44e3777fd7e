package runtime

import (
	"context"
	"strings"
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
		{"statement after", "}); console.log('escaped'); (async function () {", "closes a bracket that was never opened (the program is the body of a function and cannot close it) (line 1:1)"},
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

// TestEngineRefusesScriptBesideTheFunction: whatever the transpiler hands
// the engine, a script that would run code beside the program's function
// (here appended to the script after transpiling, as no program text makes
// it) fails with the program's escape error before any of it runs. Without
// quickjs.CheckOneFunction in the run the appended code logs.
func TestEngineRefusesScriptBesideTheFunction(t *testing.T) {
	e := testEngine(t)
	for _, extra := range []string{
		", console.log('escaped')",
		";\nconsole.log('escaped')",
		";\nvar console = 1",
	} {
		e.hooks.script = func(s string) string { return s + extra }
		o, err := e.run(context.Background(), "return 1", nil)
		require.NoError(t, err)
		require.Equal(t, KindException, o.Kind, extra)
		require.Contains(t, o.Message, "SyntaxError: the program closes the function it is the body of", extra)
		require.Empty(t, o.Logs, "code beside the function ran")
	}
	e.hooks.script = nil
	o, err := e.run(context.Background(), "return 1", nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
}

// TestDeepestFunctionsPassTheEngineCheck: quickjs.CheckOneFunction walks
// the compiled script's nested functions recursively, up to a fixed depth;
// the deepest nesting of functions the transpiler lets a program have (with
// a template object, which adds two levels, at the bottom) is well within
// it: such a program runs, it does not fail as an engine error.
func TestDeepestFunctionsPassTheEngineCheck(t *testing.T) {
	e := testEngine(t)
	program := func(n int) string {
		return "return " + strings.Repeat("(() => ", n) + "`${1}`" + strings.Repeat(")()", n)
	}
	refused := func(n int) bool {
		o, err := e.run(context.Background(), program(n), nil)
		require.NoError(t, err)
		if o.Kind == KindException && strings.Contains(o.Message, "too many functions, or functions nested too deeply") {
			return true
		}
		require.Empty(t, o.Kind, "depth %d: %s", n, o.Message)
		require.Equal(t, `"1"`, string(o.Value))
		return false
	}
	lo, hi := 1, 1000 // lo runs, hi is refused
	require.False(t, refused(lo))
	require.True(t, refused(hi))
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; refused(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	require.Greater(t, lo, 50, "the transpiler's own bound")
	t.Logf("deepest accepted nesting of functions: %d", lo)
}
