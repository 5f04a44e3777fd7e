package transpile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestVerbatim: plain JavaScript reaches the engine as the user wrote it (so that
// Function.prototype.toString, names and positions are the user's); TypeScript, and JavaScript
// that TypeScript reads differently, still goes through esbuild's output.
func TestVerbatim(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		verbatim bool
	}{
		{"comments and spacing", "function f ( a , b ) { /* keep */ return a }\nreturn f.toString()", true},
		{"shadowing names", "const load = 1\n{ const load = () => 2; return load.name }", true},
		{"CRLF", "const a = 1\r\nreturn a", true},
		{"non-ASCII", "const s = 'é😀'\nreturn s", true},
		{"template with line breaks", "return `a\nb`", true},
		{"type annotation", "const a: number = 1\nreturn a", false},
		{"interface", "interface I { a: number }\nreturn 1", false},
		{"generic call read differently", "const f = (x) => x, T = 1\nreturn f<T>(2)", false},
		{"as expression", "return (1 as any)", false},
		{"lone CR", "const a = 1\rreturn a", false},
		{"line separator", "const a = 1\u2028return a", false},
		{"paragraph separator in a string", "return '\u2029'", false},
		{"import type blanked", "import type { X } from 'y'\nreturn 1", true},
	}
	// Past concurrentReadBytes the input is read as JavaScript after the TypeScript pass, not
	// beside it: both ways must decide alike.
	pad := "\n// " + strings.Repeat("x", concurrentReadBytes) + "\n"
	for _, tt := range slices.Clone(tests) {
		if !strings.Contains(tt.src, "\r") && !strings.HasPrefix(tt.src, "import type") {
			tests = append(tests, struct {
				name     string
				src      string
				verbatim bool
			}{tt.name + ", large", tt.src + pad, tt.verbatim})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.src)
			require.NoError(t, err)
			require.Equal(t, tt.verbatim, p.verbatim)
			js := p.JS()
			require.True(t, strings.HasPrefix(js, outputHeader+directiveText), js)
			require.True(t, strings.HasSuffix(js, outputFooter), js)
			if !tt.verbatim {
				require.NotNil(t, p.smap)
				return
			}
			body := js[len(outputHeader+directiveText+";\n") : len(js)-len(outputFooter)]
			if strings.HasPrefix(tt.src, "import type") {
				require.Equal(t, ";"+strings.Repeat(" ", len("import type { X } from 'y'")-1)+"\nreturn 1", body)
				return
			}
			require.Equal(t, tt.src, body)
		})
	}
}

// TestVerbatimRuns: a verbatim program means what the user wrote, in node as in the engine.
func TestVerbatimRuns(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"function f ( a , b ) { /* keep */ return a }\nreturn f.toString()", `"function f ( a , b ) { /* keep */ return a }"`},
		{"const load = 1\n{ const load = () => 2; return [load.name, load()] }", `["load",2]`},
		{"class C { #f = 4; m ( ) { return this.#f } }\nreturn C.prototype.m.toString()", `"m ( ) { return this.#f }"`},
	}
	for _, tt := range tests {
		p, err := Compile(tt.src)
		require.NoError(t, err)
		require.True(t, p.verbatim)
		require.Equal(t, tt.want, nodeRun(t, p, nil, nil))
	}
}

// TestVerbatimPosition: positions in a verbatim program map one to one, columns in UTF-16.
func TestVerbatimPosition(t *testing.T) {
	src := "const s = 'é😀'\r\n  throw new Error(s)\nreturn 1"
	p, err := Compile(src)
	require.NoError(t, err)
	require.True(t, p.verbatim)
	js := p.Wrap([]string{"tools"})
	tests := []struct {
		needle    string
		line, col int
	}{
		{"const s", 1, 1},
		{"'é", 1, 11},
		{"throw", 2, 3},
		{"Error(s)", 2, 13},
		{"return", 3, 1},
	}
	for _, tt := range tests {
		line, col := genPos(t, js, tt.needle)
		ul, uc, ok := p.Position(line, col)
		require.True(t, ok, tt.needle)
		require.Equal(t, [2]int{tt.line, tt.col}, [2]int{ul, uc}, tt.needle)
	}
	// A byte column after the non-ASCII characters counts UTF-16 units.
	line, col := genPos(t, js, "'\r")
	ul, uc, ok := p.Position(line, col)
	require.True(t, ok)
	require.Equal(t, [2]int{1, 15}, [2]int{ul, uc}) // é is one unit, 😀 two
	for _, at := range [][2]int{{1, 1}, {2, 1}, {len(strings.Split(js, "\n")), 1}} {
		_, _, ok := p.Position(at[0], at[1])
		require.False(t, ok, "wrapper line %d", at[0])
	}
}

// TestCompileJoinsItsReading: the reading of a small program as JavaScript runs beside the
// TypeScript pass on a goroutine of its own; every way out of a compilation waits for it, so that
// nothing of a compilation outlives the call, whatever its outcome.
func TestCompileJoinsItsReading(t *testing.T) {
	for _, src := range []string{
		"return 1",                           // verbatim
		"const a: number = 1\nreturn a",      // TypeScript
		"return (",                           // a syntax error in both readings
		"}); globalThis.x = 1; (function(){", // breaks out of the function
	} {
		release := make(chan struct{})
		started := make(chan struct{})
		returned := make(chan error, 1)
		go func() {
			_, err := CompileContext(t.Context(), src, Options{onReadAsJS: func() {
				close(started)
				<-release
			}})
			returned <- err
		}()
		<-started
		select {
		case <-returned:
			t.Fatalf("compiling %q returned while its reading as JavaScript was still running", src)
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		<-returned
	}
}
