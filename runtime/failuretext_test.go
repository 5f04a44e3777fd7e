package runtime

import (
	"testing"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/serialize"
	"github.com/stretchr/testify/require"
)

// A failure's text of 8 MB under MaxOutputBytes 1 MiB, whatever made it (a thrown object's
// toString, an Error's message or stack, a rejection), ends the run as output-limit without
// crossing into the host: the run allocates a few MiB at most, not the text.
func TestLongFailureTextStaysInTheGuest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 1 << 20; l.MemoryBytes = 128 << 20 })
	tests := []struct{ name, program string }{
		{"toString", `throw { toString() { return "x".repeat(8e6) } }`},
		{"message", `throw new Error("x".repeat(8e6))`},
		{"stack", `const e = new Error("m"); e.stack = "x".repeat(8e6); throw e`},
		{"rejection", `return Promise.reject("x".repeat(8e6))`},
		{"async throw", `await null; throw "x".repeat(8e6)`},
		{"wide message", `throw new Error("é".repeat(4e6))`},
		{"lines past the room", `throw "x".repeat(2e6) + "\n".repeat(8e6)`},
		{"rendered in the host", `throw { toString() { return "é".repeat(4e6) } }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustRun(t, e, tc.program) // compiled and cached: the second run measures the run alone
			before := totalAlloc()
			o := mustRun(t, e, tc.program)
			allocated := totalAlloc() - before
			require.Equal(t, KindOutputLimit, o.Kind)
			require.Equal(t, serialize.OutputLimitMessage(1<<20), o.Message)
			t.Logf("allocated %.2f MiB", mib(allocated))
			require.LessOrEqual(t, allocated, int64(2<<20))
		})
	}
}

// Only a stack's trailing line breaks are dropped from a failure's text: a long text that fits
// once they are dropped is reported, one that does not is output-limit, and texts that fit are
// reported as before.
func TestFailureTextTrailingLineBreaks(t *testing.T) {
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 1 << 20 })
	tests := []struct{ name, program, kind, message string }{
		{"stack line, breaks past the room", `throw "    at f (x)" + "\n".repeat(3e6)`, KindException, "    at f (x)"},
		{"no stack line, breaks past the room", `throw "x" + "\n".repeat(3e6)`, KindOutputLimit, serialize.OutputLimitMessage(1 << 20)},
		{"stack line, short", `throw "    at f (x)\n\n"`, KindException, "    at f (x)"},
		{"no stack line, short", `throw "x\n\n"`, KindException, "x\n\n"},
		{"stack line, text past the room", `throw "    at f (x)" + "y".repeat(2e6) + "\n".repeat(10)`, KindOutputLimit, serialize.OutputLimitMessage(1 << 20)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := mustRun(t, e, tc.program)
			require.Equal(t, tc.kind, o.Kind)
			require.Equal(t, tc.message, o.Message)
		})
	}
}
