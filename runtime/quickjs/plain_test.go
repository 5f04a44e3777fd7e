package quickjs

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// AppendPlainJSON prints exactly what JSON.stringify prints for plain
// values, and declines everything the guest's lossless printer must judge.
func TestAppendPlainJSON(t *testing.T) {
	in := newInstance(t, &nopHost{})
	eval := func(src string) Value {
		v, err := in.Eval(src, "t.js", EvalGlobal)
		require.NoError(t, err)
		require.False(t, v.IsException(), src)
		return v
	}
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	for _, src := range []string{
		`1`, `-5`, `2**31`, `-(2**31)`, `2**53`, `1.5`, `-0.1`, `1e21`, `1e-7`, `123456789.125`, `0`,
		`true`, `false`, `null`, `""`, `"abc"`, `"é\n\"\\\u0001\u007f\u00ff"`,
		`({})`, `[]`, `[[[]]]`, `({a: 1, b: [1, 2, {c: "x"}], d: null, e: false})`,
		`Object.assign(Object.create(null), {x: 1})`, `({__proto__: null, k: [true]})`, `Object.freeze({a: 1})`,
		`({"": 1, "a b": 2, "\"q\"": 3, "4294967295": 4})`, `[1.5, "s", null, {}]`, `Array.from({length: 100}, (_, i) => i)`,
		`(() => { const o = {}; o.z = 1; o.a = 2; return o })()`, `(() => { const x = {v: 1}; return [x, x] })()`,
		`strings = ["x".repeat(1000)]`,
	} {
		v := eval(src)
		got, ok := in.AppendPlainJSON([]byte("prefix"), v)
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
	} {
		_, ok := in.AppendPlainJSON(nil, eval(src))
		require.False(t, ok, "%s is left to the guest", src)
	}
}
