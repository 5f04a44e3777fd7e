package transpile

import (
	"os"
	"strings"
	"testing"

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
	c := newDiagChecker(tokenize(big), len(inputHeader))
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
