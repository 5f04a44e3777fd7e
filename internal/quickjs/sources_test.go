package quickjs

import (
	"strconv"
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

// mallocState returns the runtime's allocation counters after checking
// them against the heap and the arenas (walkArenas).
func mallocState(t *testing.T, in *Instance) (count, size uint32) {
	t.Helper()
	mem := memory(t, in)
	heap, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err)
	_, err = walkArenas(mem, heap, in.rt)
	require.NoError(t, err)
	return le32(mem[in.rt+rtMallocCount:]), le32(mem[in.rt+rtMallocSize:])
}

// DropSources frees every function's source text but a class's: the
// functions print as native code and still run; classes and functions
// compiled later keep their source; the runtime's allocation counters stay
// exact.
func TestDropSources(t *testing.T) {
	in := newStackInstance(t)
	evalText(t, in, sourcesProgram)
	require.Equal(t, "function add(a, b) { return a + b }", evalText(t, in, `String(t.add)`))
	count, _ := mallocState(t, in)

	st, err := in.DropSources(sourcesProgram)
	require.NoError(t, err)
	// add, outer, inner, arrow, bump, make, method; the class keeps its.
	require.GreaterOrEqual(t, st.Functions, 7)
	require.Greater(t, st.Bytes, len("function add(a, b) { return a + b }"))
	after, _ := mallocState(t, in)
	require.Equal(t, count-uint32(st.Functions), after)

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
	in := newStackInstance(t)
	evalText(t, in, sourcesProgram)
	before := append([]byte(nil), memory(t, in)...)
	_, err := in.DropSources(strings.Replace(sourcesProgram, "return a + b", "return a - b", 1))
	require.ErrorContains(t, err, "not a piece of the given text")
	require.Equal(t, before, memory(t, in), "memory changed")
	require.Equal(t, "function add(a, b) { return a + b }", evalText(t, in, `String(t.add)`))
}

// sizedFunction returns the text of a function whose source is n bytes.
func sizedFunction(name string, n int) string {
	head := "function " + name + "() { return '"
	tail := "' }"
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// DropSources frees a source the way js_free_rt would, whichever kind of
// block holds it: a small block goes back to its arena zeroed (and an
// arena left empty back to malloc), a large one back to malloc; the
// allocation counters and the heap check after, and the text is no longer
// in memory once ZeroUnused has cleared the free chunks.
func TestDropSourcesFreesEveryBlockKind(t *testing.T) {
	cases := []struct {
		name        string
		size        int
		emptyArenas int // arenas given back to malloc
	}{
		{"small block", 40, 0},
		{"last block of its arena", 490, 1}, // 491 bytes with the NUL: the 512-byte class, otherwise unused
		{"large block", 3000, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := newStackInstance(t)
			src := sizedFunction("f", c.size)
			evalText(t, in, src+"; globalThis.f = f")
			require.Equal(t, src, evalText(t, in, `String(f)`))
			count, size := mallocState(t, in)
			arenasBefore := len(arenasOf(t, in).arenas)

			st, err := in.DropSources(src)
			require.NoError(t, err)
			require.Equal(t, SourceStats{Functions: 1, Bytes: c.size}, st)
			after, afterSize := mallocState(t, in)
			require.Equal(t, count-1, after)
			require.Less(t, afterSize, size)
			require.Equal(t, arenasBefore-c.emptyArenas, len(arenasOf(t, in).arenas))
			_, err = in.ZeroUnused()
			require.NoError(t, err)
			require.NotContains(t, string(memory(t, in)), src, "the text is still in memory")
			require.Contains(t, evalText(t, in, `String(f)`), "[native code]")
			require.Equal(t, strconv.Itoa(c.size-len("function f() { return '' }")), evalText(t, in, `String(f().length)`))
		})
	}
}

// arenasOf walks the instance's arenas.
func arenasOf(t *testing.T, in *Instance) arenaWalk {
	t.Helper()
	mem := memory(t, in)
	heap, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err)
	w, err := walkArenas(mem, heap, in.rt)
	require.NoError(t, err)
	return w
}

// When the allocator's state does not check, DropSources changes nothing.
func TestDropSourcesRefusesABrokenAllocator(t *testing.T) {
	firstArena := func(t *testing.T, in *Instance) uint32 {
		for ar := range arenasOf(t, in).arenas {
			return ar
		}
		t.Fatal("no arena")
		return 0
	}
	cases := []struct {
		name  string
		spoil func(t *testing.T, in *Instance, mem []byte)
		want  string
	}{
		{"allocation size counter", func(t *testing.T, in *Instance, mem []byte) {
			putLeUint32(mem[in.rt+rtMallocSize:], le32(mem[in.rt+rtMallocSize:])+8)
		}, "allocation counters"},
		{"arena's use count", func(t *testing.T, in *Instance, mem []byte) {
			mem[firstArena(t, in)+arenaUsed]++
		}, "does not check"},
		{"arena's size class", func(t *testing.T, in *Instance, mem []byte) {
			mem[firstArena(t, in)+arenaClass] ^= 1
		}, "does not check"},
		{"arena list link", func(t *testing.T, in *Instance, mem []byte) {
			putLeUint32(mem[in.rt+rtArenaLists+4:], in.rt+rtFreeArenaLists)
		}, "broken"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := newStackInstance(t)
			evalText(t, in, sourcesProgram)
			c.spoil(t, in, memory(t, in))
			before := append([]byte(nil), memory(t, in)...)
			_, err := in.DropSources(sourcesProgram)
			require.ErrorIs(t, err, ErrLayoutMismatch)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, before, memory(t, in), "memory changed")
		})
	}
}
