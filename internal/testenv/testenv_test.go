package testenv

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records how Missing ended it instead of
// ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = args[0].(string) }
func (r *recorder) Fatal(args ...any) { r.failed = args[0].(string) }

// Missing and MissingHAProxy skip, saying what provides the missing part,
// unless their own variable is 1; the other variable changes nothing.
func TestMissing(t *testing.T) {
	tests := []struct {
		name        string
		missing     func(testing.TB, string, ...any)
		env, other  string
		value       string
		wantSkip    bool
		wantContain string
	}{
		{name: "node, unset", missing: Missing, env: requireNodeEnv, other: requireHAProxyEnv, value: "", wantSkip: true,
			wantContain: "scripts/test provides it and sets CODERUN_REQUIRE_NODE=1"},
		{name: "node, 0", missing: Missing, env: requireNodeEnv, other: requireHAProxyEnv, value: "0", wantSkip: true, wantContain: "skipped"},
		{name: "node, 1", missing: Missing, env: requireNodeEnv, other: requireHAProxyEnv, value: "1",
			wantContain: "CODERUN_REQUIRE_NODE=1 makes this a failure"},
		{name: "haproxy, unset", missing: MissingHAProxy, env: requireHAProxyEnv, other: requireNodeEnv, value: "", wantSkip: true,
			wantContain: ".ci/run installs it and sets CODERUN_REQUIRE_HAPROXY=1"},
		{name: "haproxy, 1", missing: MissingHAProxy, env: requireHAProxyEnv, other: requireNodeEnv, value: "1",
			wantContain: "CODERUN_REQUIRE_HAPROXY=1 makes this a failure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			t.Setenv(tc.other, "1")
			r := &recorder{TB: t}
			tc.missing(r, "it is missing: %s", "not found")
			got := r.failed
			if tc.wantSkip {
				require.Empty(t, r.failed)
				got = r.skipped
			} else {
				require.Empty(t, r.skipped)
			}
			require.Contains(t, got, "it is missing: not found")
			require.Contains(t, got, tc.wantContain)
		})
	}
}

func TestNodeMissingFromPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(requireNodeEnv, "")
	r := &recorder{TB: t}
	Node(r)
	require.Contains(t, r.skipped, "this test needs Node.js")
	require.Empty(t, r.failed)
}

func TestHAProxyMissingFromPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	t.Setenv(requireHAProxyEnv, "")
	r := &recorder{TB: t}
	haproxy(r, filepath.Join(dir, "haproxy"))
	require.Contains(t, r.skipped, "this test needs HAProxy")
	require.Empty(t, r.failed)
}
