package transpile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRespellAwaitUsing: plain JavaScript with "await using" in a for (;;) head, which esbuild
// refuses, reaches the engine as written; with type syntax, anything else esbuild refuses, or a
// spelling the respelling does not read, esbuild's error stands.
func TestRespellAwaitUsing(t *testing.T) {
	const loop = "for (await using r = null; ; ) break"
	tests := []struct {
		name string
		src  string
		// errLine is the line of the error Compile must return, 0 when it compiles verbatim.
		errLine int
		errText string
	}{
		{"for head", loop + "\nreturn 1", 0, ""},
		{"tab and nested", "for (await\tusing a = null; ; ) {\n  for (await  using b = null; ; ) break\n  break\n}", 0, ""},
		{"for-in head, for the engine to refuse", "for (await using r in {}) ;", 0, ""},
		{"in a nested async function", "async function f() { " + loop + " }\nreturn f()", 0, ""},
		{"type annotation", "const n: number = 1\n" + loop, 2, awaitUsingRefused},
		{"read differently as TypeScript", "const f = (x) => x, T = 1\n" + loop + "\nreturn f<T>(2)", 2, awaitUsingRefused},
		{"comment between", "for (await /* c */ using r = null; ; ) break", 1, awaitUsingRefused},
		{"another syntax error after", loop + "\nlet = ;", 1, awaitUsingRefused},
		{"lone CR", loop + "\rreturn 1", 1, awaitUsingRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.src)
			if tt.errLine != 0 {
				require.Error(t, err)
				var e *Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, tt.errLine, e.Line, e.Error())
				require.Contains(t, e.Message, tt.errText)
				return
			}
			require.NoError(t, err)
			require.True(t, p.verbatim)
			js := p.JS()
			require.Equal(t, outputHeader+directiveText+";\n"+tt.src+outputFooter, js)
			line, col, ok := p.Position(3+strings.Count(tt.src, "\n"), 1)
			require.True(t, ok)
			require.Equal(t, 1+strings.Count(tt.src, "\n"), line)
			require.Equal(t, 1, col)
		})
	}
}

// TestAwaitUsingAt: the respelling reads "await", spaces or tabs, "using" and a space or tab, and
// nothing else.
func TestAwaitUsingAt(t *testing.T) {
	tests := []struct {
		text string
		n    int // -1: not read
	}{
		{"await using x", len("await using")},
		{"await\t using\tx", len("await\t using")},
		{"await usingx", -1},
		{"awaitusing x", -1},
		{"await using", -1},
		{"await\nusing x", -1},
		{"await/**/using x", -1},
		{"wait using x", -1},
	}
	for _, tt := range tests {
		n, ok := awaitUsingAt(tt.text, 0)
		if tt.n < 0 {
			require.False(t, ok, tt.text)
			continue
		}
		require.True(t, ok, tt.text)
		require.Equal(t, tt.n, n, tt.text)
	}
}
