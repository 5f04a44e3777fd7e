package quickjs

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sourcesProgram defines functions of every shape that keeps a source:
// declarations, nested closures, arrows, methods, classes.
const sourcesProgram = `
function add(a, b) { return a + b }
function outer() { const k = 3; return function inner(x) { return x * k } }
const arrow = (x) => x - 1;
class Counter { constructor() { this.n = 0 } bump() { return ++this.n } static make() { return new Counter() } }
const obj = { method(y) { return y + '!' } };
globalThis.t = { add, inner: outer(), arrow, Counter, obj };
`

// evalString evaluates src and returns its value as a string.
func evalText(t *testing.T, in *Instance, src string) string {
	t.Helper()
	v, err := in.Eval(src, "t.js", EvalGlobal)
	require.NoError(t, err)
	require.False(t, v.IsException(), "evaluating %s", src)
	defer in.FreeValue(v)
	s, err := in.String(v)
	require.NoError(t, err)
	return s
}

// sourcesNotPorted is why the tests of DropSources that need it to work
// are skipped.
const sourcesNotPorted = "DropSources is not yet ported to QuickJS-NG 0.16's struct layout (issue 29): " +
	"it checks the fields it uses at QuickJS-NG 0.10.1's offsets, from JSRuntime's allocation counters on, " +
	"and refuses this build (TestDropSourcesRefusesThisBuild)"

// On this build DropSources finds the runtime's allocation counters not
// where 0.10.1 kept them: it fails with ErrLayoutMismatch and changes
// nothing, so the runtime keeps every source. When DropSources is ported,
// this test fails: remove it and the skips of sourcesNotPorted.
func TestDropSourcesRefusesThisBuild(t *testing.T) {
	in := newStackInstance(t)
	evalText(t, in, sourcesProgram)
	before := append([]byte(nil), memory(t, in)...)
	_, err := in.DropSources(sourcesProgram)
	require.ErrorIs(t, err, ErrLayoutMismatch)
	require.Equal(t, before, memory(t, in), "memory changed")
	require.Equal(t, "function add(a, b) { return a + b }", evalText(t, in, `String(t.add)`))
}

// DropSources frees every function's source text but a class's: the
// functions print as native code and still run; classes and functions
// compiled later keep their source; the runtime's allocation counters stay
// exact.
func TestDropSources(t *testing.T) {
	t.Skip(sourcesNotPorted)
	in := newStackInstance(t)
	evalText(t, in, sourcesProgram)
	require.Equal(t, "function add(a, b) { return a + b }", evalText(t, in, `String(t.add)`))
	mem := memory(t, in)
	count := le32(mem[in.rt+rtMallocCount:])

	st, err := in.DropSources(sourcesProgram)
	require.NoError(t, err)
	// add, outer, inner, arrow, bump, make, method; the class keeps its.
	require.GreaterOrEqual(t, st.Functions, 7)
	require.Greater(t, st.Bytes, len("function add(a, b) { return a + b }"))
	mem = memory(t, in)
	require.NoError(t, in.checkMallocState(mem))
	require.Equal(t, count-uint32(st.Functions), le32(mem[in.rt+rtMallocCount:]))

	require.True(t, strings.HasPrefix(evalText(t, in, `String(t.Counter)`), "class Counter {"), "a class keeps its source")
	for _, f := range []string{"t.add", "t.inner", "t.arrow", "t.Counter.prototype.bump", "t.Counter.make", "t.obj.method"} {
		require.Contains(t, evalText(t, in, `String(`+f+`)`), "[native code]", f)
	}
	require.Equal(t, "5,6,1,1,hi!", evalText(t, in,
		`[t.add(2, 3), t.inner(2), t.arrow(2), t.Counter.make().bump(), t.obj.method('hi')].join()`))
	require.Equal(t, "function later() { return 7 }", evalText(t, in, `function later() { return 7 }; String(later)`))

	again, err := in.DropSources(sourcesProgram + "function later() { return 7 }")
	require.NoError(t, err)
	require.Equal(t, 1, again.Functions, "only the function compiled since")
	_, err = in.ZeroUnused()
	require.NoError(t, err, "the heap walks after the sources were freed")
}

// A source that is not a piece of the given text means the layout is not
// what DropSources assumes (or the text is not the one compiled): it
// changes nothing.
func TestDropSourcesRefusesUnknownText(t *testing.T) {
	t.Skip(sourcesNotPorted)
	in := newStackInstance(t)
	evalText(t, in, sourcesProgram)
	before := append([]byte(nil), memory(t, in)...)
	_, err := in.DropSources(strings.Replace(sourcesProgram, "return a + b", "return a - b", 1))
	require.ErrorContains(t, err, "not a piece of the given text")
	require.Equal(t, before, memory(t, in), "memory changed")
	require.Equal(t, "function add(a, b) { return a + b }", evalText(t, in, `String(t.add)`))
}
