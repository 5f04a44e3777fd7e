package quickjs

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// stripSrc holds every kind of constant a script's bytecode carries:
// nested functions, a class (whose text must stay), an async arrow, a
// generator, strings (one wide), numbers, a BigInt, a regular expression, a
// tagged template and an object literal; and every kind of variable record:
// captured locals (n, whose record holds its reference's index) and closure
// variables whose flags take two LEB128 bytes (#x, a private field).
const stripSrc = `(function outer(n) {
  function inner(x) { return x * 2.5 }
  class Point { #x; constructor(x) { this.#x = x; this.x = this.#x } }
  const later = async (v) => v + n;
  function* gen() { yield 'ü€'; yield 123456789012345678901234567890n }
  const tag = (s, ...v) => s.raw.join('|') + v.join(',');
  const re = /a(b+)c/g;
  if (n < 0) throw new Error('negative');
  return [String(inner(n)), String(new Point(n).x), typeof later, [...gen()].map(String).join(';'),
    tag` + "`x${n}y\\n`" + `, 'abbbc'.replace(re, '$1'), JSON.stringify({k: 1.5, s: 'v'}),
    String(inner), String(Point).slice(0, 11), String(outer).slice(0, 30)];
})`

// StripSources drops the text of every function but the class, and nothing
// else: the stripped bytecode gives the same values and the same positions
// in stack traces as the source does, and its functions print as native.
func TestStripSources(t *testing.T) {
	compiler := newInstance(t, &nopHost{})
	bc, ok, err := compiler.Compile(stripSrc, "s.js", EvalGlobal)
	require.NoError(t, err)
	require.True(t, ok)
	stripped, st, err := StripSources(bc)
	require.NoError(t, err)
	require.Equal(t, 5, st.Functions, "outer, inner, later, gen and tag (a script has no text of its own; the constructor's is the class's)")
	require.Equal(t, 1, st.Kept, "the class")
	require.Greater(t, st.Bytes, len(stripSrc))
	require.Less(t, len(stripped), len(bc)-len(stripSrc))

	// run evaluates the script (from source, or from bytecode) in a fresh
	// instance, calls its function with n and describes what it returns or
	// throws.
	run := func(code []byte, n int) string {
		in := newInstance(t, &nopHost{})
		var fn Value
		var err error
		if code == nil {
			fn, err = in.Eval(stripSrc, "s.js", EvalGlobal)
		} else {
			fn, err = in.EvalBytecode(code, EvalGlobal)
		}
		require.NoError(t, err)
		require.False(t, fn.IsException())
		show, err := in.Eval(`(f, n) => { try { return JSON.stringify(f(n)) } catch (e) { return e.stack } }`, "t.js", EvalGlobal)
		require.NoError(t, err)
		v, err := in.Call(show, Undefined, fn, Int(int32(n)))
		require.NoError(t, err)
		s, err := in.String(v)
		require.NoError(t, err)
		return s
	}
	var fromSource, fromStripped []string
	require.NoError(t, json.Unmarshal([]byte(run(nil, 4)), &fromSource))
	require.NoError(t, json.Unmarshal([]byte(run(stripped, 4)), &fromStripped))
	require.Equal(t, run(nil, 4), run(bc, 4))
	require.Len(t, fromStripped, 10)
	require.Equal(t, "function inner(x) { return x * 2.5 }", fromSource[7])
	require.Equal(t, "function outer(n) {\n  function", fromSource[9])
	require.Equal(t, "function inner() {\n    [native code]\n}", fromStripped[7])
	require.Equal(t, "function outer() {\n    [native", fromStripped[9])
	fromSource[7], fromSource[9] = fromStripped[7], fromStripped[9]
	require.Equal(t, fromSource, fromStripped, "the values, the class's text among them")
	require.Equal(t, "class Point", fromStripped[8])
	require.Equal(t, run(nil, -1), run(stripped, -1), "the stack trace's positions")
	require.Contains(t, run(stripped, -1), "at outer (s.js:8:")
}

// withChecksum is body after the version byte and body's checksum: an
// object the reader gets past the header of.
func withChecksum(body ...byte) []byte {
	b := []byte{bcVersion, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[bcChecksumAt:], bcChecksum(body))
	return append(b, body...)
}

// Anything but the pinned build's format of a script fails with
// ErrLayoutMismatch, never a panic: another version, a wrong checksum, any
// truncation, trailing bytes, an unknown tag.
func TestStripSourcesRefuses(t *testing.T) {
	compiler := newInstance(t, &nopHost{})
	bc, ok, err := compiler.Compile(stripSrc, "s.js", EvalGlobal)
	require.NoError(t, err)
	require.True(t, ok)
	badSum := append([]byte{}, bc...)
	badSum[bcChecksumAt]++
	cases := []struct {
		name string
		b    []byte
		why  string
	}{
		{"version", append([]byte{bcVersion + 1}, bc[1:]...), "version 28"},
		{"checksum", badSum, "checksum"},
		{"trailing", append(append([]byte{}, bc...), 0), "checksum"},
		{"trailing, summed", withChecksum(append(append([]byte{}, bc[bcHeaderLen:]...), 0)...), "1 bytes after the object"},
		{"empty", nil, "truncated"},
		{"tag", withChecksum(0, 99), "tag 99"},
		{"module", withChecksum(0, 13), "tag 13"},
		{"long leb", withChecksum(0xff, 0xff, 0xff, 0xff, 0xff, 0x01), "longer than 5 bytes"},
	}
	for _, tc := range cases {
		_, _, err := StripSources(tc.b)
		require.True(t, errors.Is(err, ErrLayoutMismatch), "%s: %v", tc.name, err)
		require.ErrorContains(t, err, tc.why, tc.name)
	}
	for n := range len(bc) {
		_, _, err := StripSources(bc[:n])
		require.True(t, errors.Is(err, ErrLayoutMismatch), "truncated to %d bytes: %v", n, err)
	}
}

// bcChecksum is the engine's checksum: the one of every object Compile
// writes, and StripSources's output is read back (TestStripSources). Like
// bc_csum it leaves out the last four bytes when their number is a
// multiple of four, and no others.
func TestBCChecksum(t *testing.T) {
	compiler := newInstance(t, &nopHost{})
	for _, src := range []string{"1", "'a'", stripSrc, "(() => 2)"} {
		bc, ok, err := compiler.Compile(src, "s.js", EvalGlobal)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, binary.LittleEndian.Uint32(bc[bcChecksumAt:]), bcChecksum(bc[bcHeaderLen:]), src)
	}
	tests := []struct {
		a, b []byte
		same bool
	}{
		{[]byte{1, 2, 3, 4}, []byte{5, 6, 7, 8}, true},
		{[]byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{1, 2, 3, 4, 0, 0, 0, 0}, true},
		{[]byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{0, 2, 3, 4, 5, 6, 7, 8}, false},
		{[]byte{1, 2, 3}, []byte{1, 2, 4}, false},
		{[]byte{1, 2, 3, 4, 5}, []byte{1, 2, 3, 4, 6}, false},
		{[]byte{1, 2, 3, 4, 5}, []byte{1, 2, 3, 5, 5}, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.same, bcChecksum(tt.a) == bcChecksum(tt.b), "% x, % x", tt.a, tt.b)
	}
}
