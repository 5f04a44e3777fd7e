package coderun_test

import (
	"context"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// TestDivisionAfterPrivateName checks that a `/` after a private name is
// division wherever it stands (issue #14): QuickJS-NG 0.10.1's parser
// lookahead read it as the start of a regexp, and since coderun wraps every
// program in `(async function … {…})`, every such division was inside that
// lookahead and the program failed with a SyntaxError (the wasm pass
// DivideAfterPrivateName backports the fix). The cases that already
// worked, and real regexps after `(`, must keep working.
func TestDivisionAfterPrivateName(t *testing.T) {
	rt := newRuntime(t, nil)
	for _, tc := range []struct{ name, program, want string }{
		{"issue example", `class C { #f = 4; m() { return this.#f / 2 } }; return new C().m()`, `2`},
		{"nested paren", `class C { #f = 4; m() { const r = (this.#f / 2); return r } }; return new C().m()`, `2`},
		{"brackets", `class C { #f = 4; m() { return [this.#f / 2] } }; return new C().m()`, `[2]`},
		{"braces", `class C { #f = 4; m() { return { half: this.#f / 2 } } }; return new C().m()`, `{"half":2}`},
		{"divide-assign", `class C { #f = 4; m() { this.#f /= 2; return this.#f } }; return new C().m()`, `2`},
		{"two divisions", `class C { #f = 4; m() { return this.#f/2/1 } }; return new C().m()`, `2`},
		{"two private names", `class C { #f = 4; #g = 2; m(b) { return this.#f / b.#g } }; return new C().m(new C())`, `2`},
		{"static", `class C { static #n = 10; static half() { return C.#n / 2 } }; return C.half()`, `5`},
		{"template", "class C { #f = 4; m() { return `${this.#f / 2}` } }; return new C().m()", `"2"`},
		{"arrow parameter default", `class C { #f = 4; m() { const g = (d = this.#f / 2) => d; return g() } }; return new C().m()`, `2`},
		{"typescript", `class C { #f: number = 4; m(): number { return this.#f / 2 } }; const c: C = new C(); return c.m()`, `2`},
		{"multi-line", "class C {\n  #f = 4\n  m() {\n    return this.#f\n      / 2\n  }\n}\nreturn new C().m()", `2`},
		{"brand check", `class C { #f = 4; static has(o) { return #f in o } }; return [C.has(new C()), C.has({})]`, `[true,false]`},
		{"regexp after paren", `const s = "a/b"; return [(/\//).test(s), s.split(/\//), ("x" + /y/.source)]`, `[true,["a","b"],"xy"]`},
		{"regexp after private method call", `class C { #s = "a2"; m() { return (this.#s.match(/\d/)[0] / 2) } }; return new C().m()`, `1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := rt.Run(context.Background(), coderun.Request{Program: tc.program})
			require.NoError(t, err)
			require.Nil(t, res.Error)
			require.JSONEq(t, tc.want, string(res.Value))
		})
	}
}

// TestDivisionAfterPrivateNamePositions checks that an error after such a
// division still names the user's line:column.
func TestDivisionAfterPrivateNamePositions(t *testing.T) {
	rt := newRuntime(t, nil)
	res, err := rt.Run(context.Background(), coderun.Request{Program: "class C {\n  #f = 4\n  m() { return (this.#f / 2).toFixed(500) }\n}\nreturn new C().m()"})
	require.NoError(t, err)
	require.NotNil(t, res.Error)
	require.Equal(t, coderun.Exception, res.Error.Kind)
	require.Contains(t, res.Error.Message, "RangeError")
	require.Contains(t, res.Error.Message, "program.ts:3:")
}
