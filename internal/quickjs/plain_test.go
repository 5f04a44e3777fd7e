package quickjs

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// skipWithoutObjectLayout skips a test of reading plain values in place
// when Init did not discover the object layout (TestEvalAndLayout says
// whether it does).
func skipWithoutObjectLayout(t testing.TB, in *Instance) {
	t.Helper()
	if in.layout.AtomArray == 0 {
		t.Skip("plain in-place reading is not yet ported to QuickJS-NG 0.16's object layout (issue 29): " +
			"discoverObjects finds no AtomArray, so appendPlainJSON declines every value")
	}
}

// Without the object layout, every value is declined, and so left to the
// guest's printer: nothing is read at offsets that were not checked.
func TestAppendPlainJSONWithoutLayout(t *testing.T) {
	in := newInstance(t, &nopHost{})
	eval := evaluator(t, in)
	in.layout.AtomArray = 0
	for _, src := range []string{`1`, `true`, `null`, `"abc"`, `({a: 1})`, `[1, 2]`} {
		v := eval(src)
		got, ok := in.appendPlainJSON([]byte("prefix"), v)
		require.False(t, ok, src)
		require.Equal(t, "prefix", string(got), "%s: dst is left as it was", src)
		_, ok = in.AppendPlainJSONUpTo(nil, v, 1<<20)
		require.False(t, ok, src)
	}
}

// appendPlainJSON prints exactly what JSON.stringify prints for plain
// values, and declines everything the guest's lossless printer must judge.
func TestAppendPlainJSON(t *testing.T) {
	in := newInstance(t, &nopHost{})
	skipWithoutObjectLayout(t, in)
	eval := evaluator(t, in)
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	for _, src := range []string{
		`1`, `-5`, `2**31`, `-(2**31)`, `2**53`, `1.5`, `-0.1`, `1e21`, `1e-7`, `123456789.125`, `0`,
		`true`, `false`, `null`, `""`, `"abc"`, `"é\n\"\\\u0001\u007f\u00ff"`,
		`({})`, `[]`, `[[[]]]`, `({a: 1, b: [1, 2, {c: "x"}], d: null, e: false})`,
		`Object.assign(Object.create(null), {x: 1})`, `({__proto__: null, k: [true]})`, `Object.freeze({a: 1})`,
		`({"": 1, "a b": 2, "\"q\"": 3, "x4294967295": 4})`, `[1.5, "s", null, {}]`, `Array.from({length: 100}, (_, i) => i)`,
		`(() => { const o = {}; o.z = 1; o.a = 2; return o })()`, `(() => { const x = {v: 1}; return [x, x] })()`,
		`strings = ["x".repeat(1000)]`,
	} {
		v := eval(src)
		got, ok := in.appendPlainJSON([]byte("prefix"), v)
		require.True(t, ok, "%s is read in place", src)
		want, err := in.String(eval(`JSON.stringify(` + src + `)`))
		require.NoError(t, err)
		require.Equal(t, "prefix"+want, string(got), src)
	}
	for _, src := range []string{
		`undefined`, `NaN`, `-0`, `Infinity`, `1n`, `Symbol()`, `(() => 1)`, `new Date(0)`, `new Map()`,
		`({a: undefined})`, `[1,,3]`, `new Array(5)`, `({get a() { return 1 }})`, `({[Symbol()]: 1})`,
		`Object.defineProperty({}, "a", {value: 1, enumerable: false})`, `({1: "a", b: 2})`, `({0: 1})`,
		`(() => { const o = {a: 1, b: 2}; delete o.a; return o })()`, `new (class A {})()`, `new Proxy({}, {})`,
		`new Proxy([], {})`, `(() => { const a = [1, 2]; a.x = 1; return a })()`, `new Uint8Array(2)`, `"€"`,
		`({"€": 1})`, `["\ud800"]`, `(() => { const a = []; a.push(a); return a })()`, deep,
		`Object.setPrototypeOf({}, Array.prototype)`, `Object.setPrototypeOf([], Object.prototype)`,
		`new (class X extends Array {})()`, `(function () { return arguments })(1, 2)`, `new Number(1)`,
		`new String("a")`, `Object(Symbol())`, `[1, -0]`, `{a: [NaN]}`, `[{x: 1}, {y: () => 1}]`,
		`Array.from({length: 5000}, () => 0)`, `Object.setPrototypeOf({a: 1}, {})`,
		`({b: 1, "3000000000": 2})`, `({b: 1, "4294967294": 2})`, `({b: 1, "4294967295": 2})`,
	} {
		_, ok := in.appendPlainJSON(nil, eval(src))
		require.False(t, ok, "%s is left to the guest", src)
	}
}

// Random values, built by a seeded generator in the guest: whenever
// appendPlainJSON reads one in place, it prints exactly what JSON.stringify
// prints; values it must decline (getters, -0, NaN, deletions, symbols,
// integer keys, ...) are mixed in at every depth.
func TestAppendPlainJSONRandomValues(t *testing.T) {
	in := newInstance(t, &nopHost{})
	skipWithoutObjectLayout(t, in)
	gen, err := in.Eval(`(function () {
		let seed = 12345;
		const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
		// Each list: values read in place, then (rarely picked) values declined.
		const pick = (plain, odd) => rnd(12) === 0 ? odd[rnd(odd.length)] : plain[rnd(plain.length)];
		const key = () => pick(["a", "b", "long key", "é", "\"", "\\", "\n", "__proto__x", "-1", "x".repeat(40), ""],
			["1", "07", "4294967296", "3000000000", "4294967294", "€"]);
		const string = () => pick(["", "plain", "é\u00ff", "tab\t", "\u0000", "q\"b\\s"], ["€", "😀", "\ud800"]);
		const number = () => pick([0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1.5, -2.25e-7, 1e21, 123456.789, 5e-324],
			[-0, NaN, Infinity]);
		function value(depth) {
			switch (depth > 4 ? rnd(4) : rnd(9)) {
			case 0: return number();
			case 1: return string();
			case 2: return [true, false, null][rnd(3)];
			case 3: return rnd(40) === 0 ? undefined : rnd(100);
			case 4: case 5: {
				const o = rnd(15) === 0 ? Object.create(null) : {};
				const n = rnd(5);
				for (let i = 0; i < n; i++) o[key()] = value(depth + 1);
				if (rnd(20) === 0) delete o[Object.keys(o)[0]];
				if (rnd(30) === 0) Object.defineProperty(o, "g", { get() { return 1 }, enumerable: true });
				if (rnd(30) === 0) o[Symbol.iterator] = 1;
				return o;
			}
			case 6: case 7: {
				const n = rnd(5), a = [];
				for (let i = 0; i < n; i++) a.push(value(depth + 1));
				if (rnd(30) === 0) a.extra = 1;
				if (rnd(30) === 0) a.length += 2;
				return a;
			}
			default: return rnd(10) === 0 ? new Date(0) : value(depth + 1);
			}
		}
		return function () { return value(0) };
	})()`, "gen.js", EvalGlobal)
	require.NoError(t, err)
	stringify, err := in.Eval(`(v) => { try { return JSON.stringify(v) } catch (e) { return "threw" } }`, "s.js", EvalGlobal)
	require.NoError(t, err)
	read := 0
	for i := range 3000 {
		v, err := in.Call(gen, Undefined)
		require.NoError(t, err)
		got, ok := in.appendPlainJSON(nil, v)
		if ok {
			read++
			s, err := in.Call(stringify, Undefined, v)
			require.NoError(t, err)
			want, err := in.String(s)
			require.NoError(t, err)
			require.Equal(t, want, string(got), "value %d", i)
		}
		require.NoError(t, in.FreeValue(v))
	}
	require.Greater(t, read, 1000, "most values are plain")
	require.Less(t, read, 2900, "some values are declined")
}

// AppendPlainJSONUpTo bounds the length of dst, not the number of nodes:
// what fits is printed as JSON.stringify prints it, and what would pass the
// bound, by any value or by one long string, is declined.
func TestAppendPlainJSONUpTo(t *testing.T) {
	in := newInstance(t, &nopHost{})
	skipWithoutObjectLayout(t, in)
	eval := evaluator(t, in)
	const prefix = "prefix"
	for _, tc := range []struct {
		src    string
		maxLen int
		ok     bool
	}{
		{`Array.from({length: 5000}, () => 0)`, 20000, true}, // more nodes than appendPlainJSON takes
		{`Array.from({length: 5000}, () => 0)`, 9000, false},
		{`[{a: "x".repeat(100)}]`, len(prefix) + len(`[{"a":""}]`) + 100, true}, // exactly full
		{`[{a: "x".repeat(100)}]`, len(prefix) + len(`[{"a":""}]`) + 99, false},
		{`["x".repeat(1 << 20)]`, 1 << 10, false},            // the string alone is too long
		{`"\u0001".repeat(10)`, len(prefix) + 2 + 10, false}, // escapes count
		{`({a: 1})`, 0, false},
	} {
		v := eval(tc.src)
		got, ok := in.AppendPlainJSONUpTo([]byte(prefix), v, tc.maxLen)
		require.Equal(t, tc.ok, ok, "%s within %d bytes", tc.src, tc.maxLen)
		if ok {
			want, err := in.String(eval(`JSON.stringify(` + tc.src + `)`))
			require.NoError(t, err)
			require.Equal(t, prefix+want, string(got), tc.src)
			require.LessOrEqual(t, len(got), tc.maxLen)
		}
	}
}

// evaluator returns a function that evaluates a script in in and returns
// its value, failing the test on an exception.
func evaluator(t *testing.T, in *Instance) func(src string) Value {
	return func(src string) Value {
		t.Helper()
		v, err := in.Eval(src, "t.js", EvalGlobal)
		require.NoError(t, err)
		require.False(t, v.IsException(), src)
		return v
	}
}
