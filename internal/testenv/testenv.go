// Package testenv decides what a test does when something it needs from
// outside Go, such as Node.js or an npm package, is missing: it skips, saying
// what is missing and how to provide it, unless CODERUN_REQUIRE_NODE=1, which
// scripts/test (and so CI) sets: then it fails.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// requireNodeEnv is the environment variable that turns the skips of this
// package into failures when it is "1".
const requireNodeEnv = "CODERUN_REQUIRE_NODE"

// Missing ends t because something it needs is missing. The message is
// format and args (what is missing and why it is needed) followed by how to
// enable the test. It skips t, or fails it when $CODERUN_REQUIRE_NODE is 1.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(requireNodeEnv) == "1" {
		t.Fatal(msg + " (" + requireNodeEnv + "=1 makes this a failure rather than a skip)")
		return
	}
	t.Skip(msg + " (skipped: scripts/test provides it and sets " + requireNodeEnv + "=1, which makes this a failure)")
}

// Node returns the path of the node command, or ends t as Missing does when
// there is none on PATH.
func Node(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "this test needs Node.js (node on PATH): %v; install Node.js 20 or later", err)
	}
	return path
}
