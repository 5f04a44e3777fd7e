package wasm

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// skipParensCode is the m.Code position of js_parse_skip_parens_token in the
// pinned build.
const skipParensCode = 776

func TestDivideAfterPrivateName(t *testing.T) {
	orig := decodeQuickJS(t)
	m := decodeQuickJS(t)
	require.NoError(t, divideAfterPrivateName(m))
	require.Equal(t, []int{skipParensCode}, changedBodies(orig, m), "only js_parse_skip_parens_token changes")

	before, after := orig.Code[skipParensCode].Body, m.Code[skipParensCode].Body
	require.Len(t, after, len(before))
	var changed []int
	for k := range before {
		if !slices.Equal(before[k].Vec, after[k].Vec) {
			changed = append(changed, k)
		}
	}
	require.Len(t, changed, 1, "one br_table changes")
	in, out := before[changed[0]], after[changed[0]]
	require.Equal(t, opBrTable, in.Op)
	require.Equal(t, in.A, out.A, "the default target (regexp allowed) stays")
	private := tokPrivateName - tokFirst
	require.Equal(t, in.A, in.Vec[private], "without the fix a private name allows a regexp")
	require.Equal(t, out.Vec[tokIdent-tokFirst], out.Vec[private], "with it, a private name is like an identifier")
	for i := range in.Vec {
		if i != private {
			require.Equal(t, in.Vec[i], out.Vec[i], "entry %d (token %d)", i, i+tokFirst)
		}
	}

	require.ErrorContains(t, divideAfterPrivateName(m), "already in the module", "a second application finds no unfixed table")
	_, err := m.Encode()
	require.NoError(t, err)
}

// TestDivideAfterPrivateNameRefusesChangedModule checks that the pass fails
// loudly, changing nothing, when the regexp parser or the table it expects
// is not there.
func TestDivideAfterPrivateNameRefusesChangedModule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(m *Module)
		err    string
	}{
		{"table reordered", func(m *Module) {
			body := m.Code[skipParensCode].Body
			for k := range body {
				if body[k].Op == opBrTable && len(body[k].Vec) == tokThis-tokFirst+1 {
					body[k].Vec = append([]uint32(nil), body[k].Vec...)
					body[k].Vec[0], body[k].Vec[2] = body[k].Vec[2], body[k].Vec[0] // TOK_NUMBER <-> TOK_TEMPLATE
				}
			}
		}, "the is_regexp_allowed table was not found"},
		{"regexp parser not called", func(m *Module) {
			for k, in := range m.Code[skipParensCode].Body {
				if in.Op == opCall {
					m.Code[skipParensCode].Body[k].A = 0
				}
			}
		}, "js_parse_skip_parens_token not found"},
		{"message gone", func(m *Module) {
			for i := range m.Data {
				m.Data[i].Init = slices.Clone(m.Data[i].Init)
				if k := indexOf(m.Data[i].Init, regexpLineTerminatorMessage); k >= 0 {
					m.Data[i].Init[k] = 'U'
				}
			}
		}, "occurs 0 times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decodeQuickJS(t)
			tc.change(m)
			changed := decodeQuickJS(t)
			tc.change(changed)
			require.ErrorContains(t, divideAfterPrivateName(m), tc.err)
			require.Empty(t, changedBodies(changed, m), "a refused module is left as it was")
		})
	}
}

// indexOf returns the index of s in b, or -1.
func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

// privateNamePrograms are global code that divides after a private name
// inside a parenthesized, bracketed or braced lookahead of the parser (an
// arrow-function or destructuring check), with what QuickJS-NG with fix
// 7532965 gives; the unfixed engine fails each with a SyntaxError
// ("unexpected line terminator in regexp" or "unexpected end of regexp").
var privateNamePrograms = []struct{ name, code, want string }{
	{"parenthesized", "class C { #f = 4; m() { return (this.#f / 2) } }\nString(new C().m())", "2"},
	{"divide-assign", "class C { #f = 4; m() { (this.#f /= 2); return this.#f } }\nString(new C().m())", "2"},
	{"two private names", "class C { #f = 4; #g = 2; m(b) { return (this.#f / b.#g) } }\nString(new C().m(new C()))", "2"},
	{"in a function expression", "(function () { class C { #f = 9; m() { return this.#f / 3 } }\nreturn String(new C().m()) })()", "3"},
	{"in brackets", "class C { #f = 4; m() { return [this.#f / 2] } }\nString(new C().m())", "2"},
	{"in braces", "class C { #f = 4; m() { return {a: this.#f / 2}.a } }\nString(new C().m())", "2"},
	{"destructuring default", "class C { #f = 4; m() { const {a = this.#f / 2} = {}; return a } }\nString(new C().m())", "2"},
	{"regexp after a paren still", "class C { #f = 'ab'; m() { return (/b/.test(this.#f)) } }\nString(new C().m())", "true"},
}

// TestDivideAfterPrivateNameEngine runs privateNamePrograms on the original
// module, where each fails with a SyntaxError, and on the module with only
// this pass, where each gives its value.
func TestDivideAfterPrivateNameEngine(t *testing.T) {
	m := decodeQuickJS(t)
	require.NoError(t, divideAfterPrivateName(m))
	fixed, err := m.Encode()
	require.NoError(t, err)
	rt := newTestRuntime(t, wazero.NewRuntimeConfigInterpreter())
	origCM, fixedCM := compile(t, rt, QuickJS()), compile(t, rt, fixed)
	for _, p := range privateNamePrograms {
		t.Run(p.name, func(t *testing.T) {
			got, err := newVM(t, rt, fixedCM, nil, false).evalString(p.code)
			require.NoError(t, err)
			require.Equal(t, p.want, got)
			if p.name == "regexp after a paren still" {
				return
			}
			_, err = newVM(t, rt, origCM, nil, false).evalString(p.code)
			require.ErrorContains(t, err, "SyntaxError", "the unfixed engine fails (else this case does not test the fix)")
		})
	}
}
