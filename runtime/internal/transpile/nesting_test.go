package transpile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// inChild runs the test named name in a child process (env CODERUN_CHILD=name) with a watchdog,
// so that a regression that overflows the stack or hangs fails the test instead of killing the
// test binary; it reports whether the caller is the child.
func inChild(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv("CODERUN_CHILD") == name {
		return true
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), "CODERUN_CHILD="+name)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child process: %s", out)
	require.Contains(t, string(out), "--- PASS: "+name)
	return false
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

func TestNestingRejectsDeepShapes(t *testing.T) {
	if !inChild(t, "TestNestingRejectsDeepShapes") {
		return
	}
	debug.SetMaxStack(64 << 20) // a regression that lets esbuild recurse deeply crashes the child
	for _, s := range worstShapes {
		if !s.rejected {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			src := s.build(1 << 20)
			var err error
			alloc := allocated(func() { _, err = Compile(src) })
			var e *Error
			require.ErrorAs(t, err, &e)
			require.True(t, strings.Contains(e.Message, fmt.Sprintf("nested more than %d levels deep", MaxNesting)) ||
				strings.Contains(e.Message, fmt.Sprintf("more than %d tokens that could be type arguments", maxAngleTokens)) ||
				strings.Contains(e.Message, fmt.Sprintf(`more than %d nested "? (...) :"`, maxArrowSpeculation)) ||
				strings.Contains(e.Message, fmt.Sprintf("at most %d functions", maxFunctions)), e.Message)
			require.True(t, strings.HasPrefix(e.Message, "SyntaxError: "), e.Message)
			// Rejected where the limit is crossed: within the first few thousand bytes, before
			// esbuild or most of the tokenizer ran.
			require.Equal(t, 1, e.Line, e.Message)
			require.Less(t, e.Column, 16*MaxNesting, e.Message)
			require.Less(t, alloc, uint64(1<<20), "heap allocated rejecting %d bytes", len(src))
		})
	}
}

func TestNestingPositions(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
	}{
		{strings.Repeat("(", 1000), 1, MaxNesting + 1},
		{"let a = 1\n" + strings.Repeat("- ", 1000) + "a", 2, 2*MaxNesting + 1},
		{strings.Repeat("a.", 1000) + "b", 1, 2*MaxNesting + 2},
		{"x = " + strings.Repeat("[", 1000), 1, len("x = ") + MaxNesting},
		{"x=a<" + strings.Repeat("b|", 2000), 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.src[:12], func(t *testing.T) {
			_, err := Compile(tt.src)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, [2]int{tt.line, tt.col}, [2]int{e.Line, e.Column}, e.Message)
		})
	}
}

func TestNestingAcceptsPrograms(t *testing.T) {
	t.Parallel()
	srcs := []string{
		";" + strings.Repeat("(", MaxNesting-1) + "1" + strings.Repeat(")", MaxNesting-1),
		"const m = new Map<string, Map<string, number[]>>()\nreturn m.size < 1 ? [1, 2] : { a: 1 }",
		strings.Repeat("if (a) { x = -a.b.c + f(g(h(1)))\n}\n", 2000),
		"return [" + strings.Repeat("{ a: 1, b: [1, 2], c: 'x' },\n", 5000) + "]",
		"let s = ''\n" + strings.Repeat("s = 'a' + b + 'c' + d + 'e'; s += `${s}!`\n", 2000),
		"switch (x) {\n" + numbered("case %d: case 'k%d': y = -1; break\n", 2000) + "}",
		"if (a) {} else " + strings.Repeat("if (a) {} else ", 200) + "{}",
	}
	for _, src := range srcs {
		_, err := Compile("let a, b, d, x, y\nconst f = (v: any) => v, g = f, h = f\n" + src)
		require.NoError(t, err, src[:min(len(src), 60)])
	}
}

// numbered repeats format n times, with every %d replaced by the repetition's number.
func numbered(format string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.ReplaceAll(format, "%d", fmt.Sprint(i)))
	}
	return b.String()
}

func TestNestingAmbiguousSlash(t *testing.T) {
	// Where the checker cannot tell how esbuild reads a "/" (see slash.go and slash_test.go).
	for _, src := range []string{
		"type T = {a: 1}\n/re/.test('s')",
		"let t: {a: 1}\n/re/.test('s')",
		"x = y as () => {} / ((((1)))) / 1",
		"x = async () => await /re/",
		"function* g() { yield\n/re/ }",
		"for (let of / 2;;) {}",
	} {
		_, err := Compile(src)
		var e *Error
		require.ErrorAs(t, err, &e)
		require.Contains(t, e.Message, "is ambiguous (division or regular expression)")
	}
	_, err := Compile("x = (function () {}) / 2; y = (/re/).test('s')\nx = function () {} / 2\nif (a) {}\n/re/.test('s')")
	require.NoError(t, err)
}

// TestNestedBlocksAllocation: 10,000 nested {} (esbuild indented every level: 1.45 GiB) are
// refused after reading the first levels; just under the limit they compile in memory linear in
// the program.
func TestNestedBlocksAllocation(t *testing.T) {
	src := strings.Repeat("{", 10000) + strings.Repeat("}", 10000)
	var err error
	alloc := allocated(func() { _, err = Compile(src) })
	require.ErrorContains(t, err, "nested more than")
	require.Less(t, alloc, uint64(256<<10))

	n := MaxNesting - 1
	src = strings.Repeat("{", n) + strings.Repeat("}", n)
	var p *Program
	alloc = allocated(func() { p, err = Compile(src) })
	require.NoError(t, err)
	require.Less(t, len(p.JS()), 4*len(src)+200, "output linear in the input")
	require.Less(t, alloc, uint64(4<<20+2048*len(src)), "heap allocated compiling %d bytes", len(src))
}

func TestCheckSize(t *testing.T) {
	src := strings.Repeat("x = 1;\n", 4<<20/7) // 4 MB
	var err error
	alloc := allocated(func() { err = CheckSize(src, 1<<20) })
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Less(t, alloc, uint64(4<<10), "nothing but the message is allocated")
	line := 1<<20/7 + 1
	require.Equal(t, fmt.Sprintf("SyntaxError: the program is %d bytes, over the limit of 1048576 bytes "+
		"(MaxProgramBytes) (line %d:%d)", len(src), line, 1<<20-(line-1)*7+1), e.Error())

	require.NoError(t, CheckSize(src, int64(len(src))))
	_, err = Compile(src[:1<<20]) // not refused by Compile itself
	require.NotErrorIs(t, err, errNotChecked)

	// A multi-byte character that straddles the limit is where the limit is crossed.
	err = CheckSize("ab\né😀", 5)
	require.ErrorAs(t, err, &e)
	require.Equal(t, [2]int{2, 2}, [2]int{e.Line, e.Column})
}

var errNotChecked = errors.New("unused")

func TestCompileStopsBetweenPhases(t *testing.T) {
	src := strings.Repeat("x = -a.b.c;\n", 1<<20/12)
	// A cancel is seen before the next phase at the latest: no phase starts after it.
	for _, stopAt := range []Phase{PhaseScan, PhaseTransform, PhaseVerify} {
		t.Run(fmt.Sprint(stopAt), func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			cause := errors.New("stop")
			var phases []Phase
			c := NewCache(4, 1<<30)
			// Over the compile work allowed at 1 MiB (so that each phase takes long): allowed
			// for a larger program size.
			p, err := c.Compile(ctx, src, Options{MaxProgramBytes: 1 << 30, OnPhase: func(p Phase) {
				phases = append(phases, p)
				if p == stopAt {
					cancel(cause)
				}
			}})
			require.Nil(t, p, "compiled")
			require.ErrorIs(t, err, cause)
			var e *Error
			require.False(t, errors.As(err, &e), "a stopped compilation is not a compile error")
			require.Equal(t, stopAt, phases[len(phases)-1], "no phase starts after the cancel")
			require.Len(t, phases, int(stopAt)+1)
			require.Equal(t, 0, c.Len(), "a stopped compilation is not cached")
		})
	}
}
