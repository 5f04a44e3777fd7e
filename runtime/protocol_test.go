package runtime

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/hostcalls"
)

// The prelude takes the protocol's numbers from hostcalls.Protocol: it
// declares none of them itself, every protocol name it uses is in the
// table, and the source the snapshot evaluates declares them.
func TestPreludeUsesProtocolTable(t *testing.T) {
	table := map[string]bool{}
	for _, c := range hostcalls.Protocol() {
		table[c.Name] = true
		require.NotRegexp(t, `(const|let|var)\s+([A-Z_]+\s*=[^;]*,\s*)*`+c.Name+`\s*=`, preludeJS, "the prelude declares %s itself", c.Name)
	}
	used := regexp.MustCompile(`\b(?:OP|DONE|CALL|EV)_[A-Z_]+\b|\b(?:START|DELIVER|RENDER)\b`).FindAllString(stripComments(preludeJS), -1)
	require.NotEmpty(t, used)
	for _, name := range used {
		require.True(t, table[name], "the prelude uses %s, which hostcalls.Protocol lacks", name)
	}
	require.Contains(t, preludeSource(), hostcalls.PreludeConstants())
}

// stripComments drops the // comments of the prelude's lines.
func stripComments(src string) string {
	return regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAllString(src, "")
}
