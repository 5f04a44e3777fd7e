package transpile

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// realisticProgram returns a program of about size bytes such as a model writes to process data
// it embeds: half of it copies of testdata/model.ts (types, functions, classes, loops, blocks
// nested up to six deep, template literals, comments), each in a block of its own, the other half
// an array of records.
func realisticProgram(t testing.TB, size int) string {
	t.Helper()
	code, err := os.ReadFile("testdata/model.ts")
	require.NoError(t, err)
	unit := "{\n" + string(code) + "}\n"
	var b strings.Builder
	b.WriteString("const results: any[] = [];\n")
	for b.Len()+len(unit) < size/2 {
		b.WriteString(unit)
	}
	b.WriteString("const customers = [\n")
	const tail = "];\nreturn { results, customers: customers.length };\n"
	for k := 0; ; k++ {
		n := strconv.Itoa(k)
		row := `  { id: ` + n + `, name: "Customer ` + n + `", email: "customer` + n + `@example.com", plan: "pro", ` +
			`active: true, seats: 12, tags: ["beta", "eu-west"], note: "Renewed in March after a trial of the ` +
			`analytics add-on; prefers e-mail." },` + "\n"
		if b.Len()+len(row)+len(tail) > size {
			break
		}
		b.WriteString(row)
	}
	b.WriteString(tail)
	return b.String()
}

// TestRealisticProgramCompiles: a realistic program of MaxProgramBytes (1 MiB) is within the
// compile-work limits, and compiles.
func TestRealisticProgramCompiles(t *testing.T) {
	src := realisticProgram(t, 1<<20)
	require.Greater(t, len(src), 1<<20-200)
	_, sc := tokenizeBounded(src, nil, defaultWorkLimits)
	require.Nil(t, sc.err)
	t.Logf("%d bytes: compile work %d of %d, scope work %d of %d", len(src), sc.work, defaultWorkLimits.work,
		sc.scopeWork, defaultWorkLimits.scope)
	_, err := Compile(src)
	require.NoError(t, err)
}

// TestWorkLimits: each account of compile work accepts a program at its limit and refuses one a
// token over it, at that token, saying which limit applies and how it derives from MaxProgramBytes.
func TestWorkLimits(t *testing.T) {
	const work = "too much work to compile here: it exceeds %d units of compile work"
	const scope = "too much code inside nested blocks, functions and expressions to compile here: " +
		"it exceeds %d units of scope work"
	nested := func(levels int, unit string, n int) string {
		return strings.Repeat("[", levels) + strings.Repeat(unit, n) + strings.Repeat("]", levels)
	}
	for _, tc := range []struct {
		name    string
		bytes   int64 // MaxProgramBytes
		limit   int64 // the limit that applies at bytes
		message string
		// program returns the program with n repetitions; at most accepted of them are
		// accepted, and the next one is refused at line, column.
		program      func(n int) string
		accepted     int
		line, column int
	}{
		// 4096 / 4 = 1024 units: "1;" is 2 units.
		{"tokens", 4096, 1024, work, func(n int) string { return strings.Repeat("1;", n) }, 512, 1, 1025},
		// A statement on a new line is 2 units, but for the first.
		{"lines", 4096, 1024, work, func(n int) string { return strings.Repeat("1\n", n) }, 512, 513, 1},
		// A block's "{" 6, "}" and ";" 1 each.
		{"blocks", 4096, 1024, work, func(n int) string { return strings.Repeat("{};", n) }, 128, 1, 3*128 + 1},
		// A new name 17, ";" 1: 1024 / 18 = 56.9.
		{"new names", 4096, 1024, work, newNames, 56, 1, 1 + len(newNames(56))},
		// "=>" starts a function: 17, and 4 other tokens: 1024 / 21 = 48.8; the limit is
		// crossed at the "=>" of the 49th.
		{"functions", 4096, 1024, work, func(n int) string { return strings.Repeat("()=>0;", n) }, 48, 1, 6*48 + 3},
		// An object literal's "{" 4, "," between properties 2, "(" ")" "a" "}" ";" 1 each:
		// ({a,a,a,a}); is 18 units, and the name's first occurrence 16 more: 16 + 56 × 18 = 1024.
		{"objects", 4096, 1024, work, func(n int) string { return strings.Repeat("({a,a,a,a});", n) }, 56, 1, 12*56 + 1},
		// 8192 × 2 = 16384 units of scope work: 32 levels of "[", each name counts 32.
		{"names in depth", 8192, 16384, scope, func(n int) string { return nested(32, "x,", n) }, 512, 1, 32 + 2*512 + 1},
		// Each "{" counts three times its depth, 96: 12288 × 2 = 24576 = 256 × 96.
		{"braces in depth", 12288, 24576, scope, func(n int) string { return nested(32, "{},", n) }, 256, 1, 32 + 3*256 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{MaxProgramBytes: tc.bytes}
			_, err := CompileContext(context.Background(), tc.program(tc.accepted), opts)
			require.NoError(t, err, "at the limit")
			_, err = CompileContext(context.Background(), tc.program(tc.accepted+1), opts)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.True(t, strings.HasPrefix(e.Message, "SyntaxError: the program "), e.Message)
			require.Contains(t, e.Message, fmt.Sprintf(tc.message, tc.limit))
			require.True(t, strings.Contains(e.Message, fmt.Sprintf("MaxProgramBytes / 4 = %d / 4)", tc.bytes)) ||
				strings.Contains(e.Message, fmt.Sprintf("MaxProgramBytes × 2 = %d × 2)", tc.bytes)), e.Message)
			require.Contains(t, e.Message, "split")
			require.Equal(t, [2]int{tc.line, tc.column}, [2]int{e.Line, e.Column}, e.Message)
		})
	}
}

// newNames returns "a0;a1;...", n names.
func newNames(n int) string {
	var b strings.Builder
	for k := range n {
		b.WriteString("a" + strconv.Itoa(k) + ";")
	}
	return b.String()
}

// TestWorkLimitsScale: the limits are proportional to MaxProgramBytes, 1 MiB when it is not set.
func TestWorkLimitsScale(t *testing.T) {
	require.Equal(t, workLimits{programBytes: 1 << 20, work: 1 << 18, scope: 2 << 20}, workLimitsFor(0))
	require.Equal(t, workLimitsFor(0), defaultWorkLimits)
	require.Equal(t, workLimits{programBytes: 4 << 20, work: 1 << 20, scope: 8 << 20}, workLimitsFor(4<<20))
	huge := workLimitsFor(1 << 62)
	require.Positive(t, huge.work)
	require.Positive(t, huge.scope)
}

// TestWorkRejectsShapes: at 1 MiB, the shapes over the compile-work limits are refused by the
// scan, before esbuild runs, having tokenized no more than the limit allows.
func TestWorkRejectsShapes(t *testing.T) {
	for _, s := range worstShapes {
		if !s.overWork {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			src := s.build(1 << 20)
			var phases []Phase
			var err error
			alloc := allocated(func() {
				_, err = CompileContext(t.Context(), src, Options{OnPhase: func(p Phase) { phases = append(phases, p) }})
			})
			var e *Error
			require.ErrorAs(t, err, &e)
			require.True(t, strings.Contains(e.Message, "units of compile work") ||
				strings.Contains(e.Message, "units of scope work"), e.Message)
			require.Equal(t, []Phase{PhaseScan}, phases, "esbuild never ran")
			// The tokens read (32 bytes each, in a slice that doubles) and the names seen.
			require.Less(t, alloc, uint64(40<<20), "heap allocated rejecting %d bytes", len(src))
		})
	}
}

// TestCacheKeepsLimitsApart: a program refused under one MaxProgramBytes and compiled under a larger
// one is not served from the cache under the other.
func TestCacheKeepsLimitsApart(t *testing.T) {
	src := strings.Repeat("1;", 1000) // 2000 units: over the limit at 4 KiB, within it at 8 KiB (2048)
	c := NewCache(8, 1<<30)
	small, large := Options{MaxProgramBytes: 4096}, Options{MaxProgramBytes: 8192}
	_, err := c.Compile(t.Context(), src, small)
	require.ErrorContains(t, err, "units of compile work")
	_, _, ok := c.Lookup(src, large)
	require.False(t, ok, "cached under the other limits")
	p, err := c.Compile(t.Context(), src, large)
	require.NoError(t, err)
	require.NotNil(t, p)
	_, err, ok = c.Lookup(src, small)
	require.True(t, ok)
	require.ErrorContains(t, err, "units of compile work")
	got, err, ok := c.Lookup(src, large)
	require.True(t, ok)
	require.NoError(t, err)
	require.Same(t, p, got)
	require.Equal(t, 2, c.Len())
}
