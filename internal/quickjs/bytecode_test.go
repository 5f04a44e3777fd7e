package quickjs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A script compiled in one instance evaluates in another as its source
// would: same completion value, same positions in stack traces, and
// nothing of it runs while it is compiled.
func TestCompileThenEvalBytecode(t *testing.T) {
	const src = "globalThis.ran = (globalThis.ran || 0) + 1;\n" +
		"(function f(a) {\n  if (a) throw new Error('at line 3');\n  return [ran, typeof f];\n})"
	compiler := newInstance(t, &nopHost{})
	bc, ok, err := compiler.Compile(src, "p.js", EvalGlobal)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEmpty(t, bc)
	v, err := compiler.Eval("String(globalThis.ran)", "t.js", EvalGlobal)
	require.NoError(t, err)
	s, err := compiler.String(v)
	require.NoError(t, err)
	require.Equal(t, "undefined", s, "compiling ran the script")

	// run evaluates the function (from bytecode or from source) in a fresh
	// instance and describes what it returns or throws.
	run := func(fromBytecode bool, arg bool) string {
		in := newInstance(t, &nopHost{})
		var fn Value
		var err error
		if fromBytecode {
			fn, err = in.EvalBytecode(bc, EvalGlobal)
		} else {
			fn, err = in.Eval(src, "p.js", EvalGlobal)
		}
		require.NoError(t, err)
		require.False(t, fn.IsException())
		show, err := in.Eval(`(g, a) => { try { return JSON.stringify(g(a)) } catch (e) { return e.stack.split('\n')[0].trim() } }`, "t.js", EvalGlobal)
		require.NoError(t, err)
		v, err := in.Call(show, Undefined, fn, Bool(arg))
		require.NoError(t, err)
		s, err := in.String(v)
		require.NoError(t, err)
		return s
	}
	require.Equal(t, `[1,"function"]`, run(true, false))
	require.Equal(t, "at f (p.js:3:20)", run(true, true))
	require.Equal(t, run(false, true), run(true, true))
}

// A script that does not compile leaves its SyntaxError pending, and no
// bytecode.
func TestCompileSyntaxError(t *testing.T) {
	in := newInstance(t, &nopHost{})
	bc, ok, err := in.Compile("let x = ;", "p.js", EvalGlobal)
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, bc)
	exc, err := in.TakeException()
	require.NoError(t, err)
	s, err := in.String(exc)
	require.NoError(t, err)
	require.Contains(t, s, "SyntaxError")
}
