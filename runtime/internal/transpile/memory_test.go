package transpile

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// memoryShapes are the programs that cost the host the most to compile, per byte or per unit of
// compile work (see memory.go), each as large as the limits of 1 MiB accept.
func memoryShapes(t *testing.T) map[string]string {
	const n = 1<<20 - 64
	shapes := map[string]string{
		"string":        `x="` + strings.Repeat("a", n) + `"`,
		"string é":      `x="` + strings.Repeat("é", n/2) + `"`,
		"template é":    "x=`" + strings.Repeat("é", n/2) + "`",
		"regex":         `x=/` + strings.Repeat("a", n) + `/`,
		"name é":        "let " + strings.Repeat("é", n/2) + "=1",
		"comment é":     "//" + strings.Repeat("é", n/2),
		"strings 1k":    strings.Repeat(`x="`+strings.Repeat("a", 1000)+"\"\n", n/1005),
		"decorators":    strings.Repeat("@d ", n/3) + "class A {}",
		"commas":        "[" + strings.Repeat("1,", n/2) + "]",
		"realistic":     realisticProgram(t, 1<<20),
		"block numbers": largestAccepted(shape{name: "block declarations", pre: "{let a=1}\n"}),
		// Names of characters Unicode 16 added, which esbuild refuses and the respelling lets
		// through (newident.go) after two more passes.
		"added name":         "let " + strings.Repeat("\u1c89", n/3) + "=1",
		"added escaped name": "let " + strings.Repeat("\\u{10D4A}", n/9) + "=1",
		"escaped name":       "let " + strings.Repeat("\\u{20000}", n/9) + "=1",
	}
	for _, s := range worstShapes {
		switch s.name {
		case "lines", "statements", "shorthand objects", "templates with a name", "block declarations":
			shapes[s.name] = largestAccepted(s)
		}
	}
	return shapes
}

// What a compilation allocates, garbage included, stays within what it reserved beforehand
// (Options.Reserve), on the programs that cost the most to compile.
func TestCompileMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	for name, src := range memoryShapes(t) {
		t.Run(name, func(t *testing.T) {
			var reserved int64
			opts := Options{Reserve: func(n int64) error { reserved += n; return nil }}
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			_, err := CompileContext(context.Background(), src, opts)
			runtime.ReadMemStats(&m1)
			allocated := int64(m1.TotalAlloc - m0.TotalAlloc)
			t.Logf("%d bytes: allocated %.1f MiB, reserved %.1f MiB (%v)", len(src), mib(allocated), mib(reserved), err)
			require.LessOrEqual(t, allocated, reserved)
		})
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// A refusal from Reserve stops the compilation before the step it was asked for, and comes back
// as it is, not as an *Error.
func TestReserveRefused(t *testing.T) {
	refused := errors.New("no memory")
	for _, allow := range []int{0, 1} {
		asked := 0
		opts := Options{Reserve: func(n int64) error {
			if asked++; asked > allow {
				return refused
			}
			return nil
		}}
		_, err := CompileContext(context.Background(), "return 1", opts)
		require.ErrorIs(t, err, refused)
		require.Equal(t, allow+1, asked)
	}
	asked := 0
	_, err := CompileContext(context.Background(), "return 1", Options{Reserve: func(int64) error { asked++; return nil }})
	require.NoError(t, err)
	require.Equal(t, 2, asked, "the scan and esbuild's passes")
}
