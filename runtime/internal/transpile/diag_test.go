package transpile

import (
	"os"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

func TestDiagnosticsRealisticProgram(t *testing.T) {
	src, err := os.ReadFile("testdata/realistic.ts")
	require.NoError(t, err)
	one := string(src)
	_, err = Compile(one)
	require.NoError(t, err)
	// Repeated to about MaxProgramBytes, each copy in a block of its own.
	big := strings.Repeat("{\n"+one+"}\n", (1<<20)/(len(one)+4))
	c := newDiagChecker(tokenize(big), nil, len(inputHeader))
	ok := c.run()
	for k, d := range c.costs {
		if d.count > 0 {
			t.Logf("%-60.60s %6d %10d", diagKind(k).describe(d.name), d.count, d.work)
		}
	}
	t.Logf("total %d of %d", c.total, maxDiagnosticWork)
	require.True(t, ok)
}

func TestIdentName(t *testing.T) {
	for in, want := range map[string]string{
		"a": "a", `\u0061`: "a", `\u{61}`: "a", `\u{0000061}`: "a", `b\u{63}d`: "bcd", `\u00e9t\u00E9`: "été",
		`\u{1F600}`: "\U0001F600", `\x`: `\x`, `\u12`: `\u12`, `\u{zz}`: `\u{zz}`,
	} {
		require.Equal(t, want, identName(in), in)
	}
}

// esbuildNoteWalk returns the bytes esbuild's line and column tracker walks to locate the
// notes of the messages it reports about src (warnings not silenced), and the number of
// messages: for each note with a location, twice its distance from its message.
func esbuildNoteWalk(t *testing.T, src string) (walk int64, messages int) {
	input := inputHeader + src + inputFooter
	lines := newLineIndex(input)
	offset := func(l *api.Location) int {
		// Columns count bytes; lines are 1-based.
		return lines.starts[l.Line-1] + l.Column
	}
	res := api.Transform(input, api.TransformOptions{
		Loader: api.LoaderTS, Target: api.ESNext, MinifyWhitespace: true, Sourcefile: sourceFile,
	})
	for _, m := range append(res.Errors, res.Warnings...) {
		messages++
		for _, n := range m.Notes {
			if n.Location != nil && m.Location != nil {
				d := offset(n.Location) - offset(m.Location)
				walk += 2 * int64(max(d, -d))
			}
		}
	}
	return walk, messages
}

// TestDiagnosticsBoundEsbuild checks, for every shape, that what checkDiagnostics counts bounds
// what esbuild does: at least as much walking to notes, and at least one construct per message.
func TestDiagnosticsBoundEsbuild(t *testing.T) {
	t.Parallel()
	for _, d := range diagShapes {
		t.Run(d.name, func(t *testing.T) {
			src := d.build(4 << 10)
			walk, messages := esbuildNoteWalk(t, src)
			require.Positive(t, messages, "esbuild reports nothing")
			c := newDiagChecker(tokenize(src), nil, len(inputHeader))
			c.run()
			counted := 0
			for _, k := range c.costs {
				counted += k.count
			}
			require.GreaterOrEqual(t, c.walk, walk, "walking to notes")
			require.GreaterOrEqual(t, counted, messages-2, "messages")
		})
	}
}

// TestDiagnosticsRejectShapes: at MaxProgramBytes every shape is rejected before esbuild runs,
// by this check or another one, with little memory.
func TestDiagnosticsRejectShapes(t *testing.T) {
	for _, d := range diagShapes {
		if d.linear {
			continue
		}
		t.Run(d.name, func(t *testing.T) {
			src := d.build(1 << 20)
			var err error
			var prog *Program
			alloc := allocated(func() {
				prog, err = CompileContext(t.Context(), src, Options{OnPhase: func(p Phase) {
					require.Equal(t, PhaseScan, p, "esbuild ran")
				}})
			})
			require.Nil(t, prog)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.True(t, strings.HasPrefix(e.Message, "SyntaxError: "), e.Message)
			// The tokens (tens of bytes per token, doubled as they grow) and the checker's maps.
			require.Less(t, alloc, uint64(200<<20), "heap allocated rejecting %d bytes", len(src))
		})
	}
}
