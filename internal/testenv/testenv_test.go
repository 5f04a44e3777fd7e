package testenv

import (
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

func TestMissing(t *testing.T) {
	tests := []struct {
		env         string
		wantSkip    bool
		wantContain string
	}{
		{env: "", wantSkip: true, wantContain: "scripts/test provides it and sets CODERUN_REQUIRE_NODE=1"},
		{env: "0", wantSkip: true, wantContain: "skipped"},
		{env: "1", wantSkip: false, wantContain: "CODERUN_REQUIRE_NODE=1 makes this a failure"},
	}
	for _, tc := range tests {
		t.Run("env="+tc.env, func(t *testing.T) {
			t.Setenv(requireNodeEnv, tc.env)
			r := &recorder{TB: t}
			Missing(r, "node is missing: %s", "not found")
			got := r.failed
			if tc.wantSkip {
				require.Empty(t, r.failed)
				got = r.skipped
			} else {
				require.Empty(t, r.skipped)
			}
			require.Contains(t, got, "node is missing: not found")
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
