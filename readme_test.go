package coderun_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// trailingComment is a Go line comment after code, which the README may
// word differently from the Example.
var trailingComment = regexp.MustCompile(`\s+// .*$`)

// codeLines returns text's lines that hold code, trimmed, each without its
// trailing comment.
func codeLines(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(trailingComment.ReplaceAllString(l, ""))
		if l != "" && !strings.HasPrefix(l, "//") {
			lines = append(lines, l)
		}
	}
	return lines
}

// The README's Go example is the package's Example, shortened: each of its
// lines of code is a line of Example, in the same order, and the value it
// says the first run prints is Example's first line of output.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "## Use from Go\n\n```go\n")
	require.True(t, ok, "README.md has a Go block under \"Use from Go\"")
	block, _, ok := strings.Cut(after, "\n```\n")
	require.True(t, ok)

	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	_, body, ok := strings.Cut(string(src), "\nfunc Example() {\n")
	require.True(t, ok)
	body, output, ok := strings.Cut(body, "\t// Output:\n")
	require.True(t, ok)

	example := codeLines(body)
	next := 0
	for _, line := range codeLines(block) {
		for next < len(example) && example[next] != line {
			next++
		}
		require.Less(t, next, len(example), "README.md's line %q is not in Example, in order", line)
		next++
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(output, "\t// "), "\n")
	require.Contains(t, block, "\n// "+first+"\n", "README.md shows Example's first output line")
	for _, use := range []string{"Input:", "res.Err()", "f.Budget", "coderun.BudgetFuel"} {
		require.Contains(t, block, use)
	}
}
