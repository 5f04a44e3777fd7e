// Package testenv decides what a test does when something it needs from
// outside Go, such as Node.js, an npm package or HAProxy, is missing: it
// skips, saying what is missing and how to provide it, unless
// CODERUN_REQUIRE_NODE=1 (for Node.js and npm packages, which scripts/test,
// and so CI, sets) or CODERUN_REQUIRE_HAPROXY=1 (for HAProxy, which .ci/run
// sets once haproxy is installed): then it fails.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// The environment variables that turn the skips of this package into
// failures when they are "1".
const (
	requireNodeEnv    = "CODERUN_REQUIRE_NODE"
	requireHAProxyEnv = "CODERUN_REQUIRE_HAPROXY"
)

// Missing ends t because something it needs from Node.js's world is
// missing. The message is format and args (what is missing and why it is
// needed) followed by how to enable the test. It skips t, or fails it when
// $CODERUN_REQUIRE_NODE is 1.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	missing(t, requireNodeEnv, "scripts/test provides it", fmt.Sprintf(format, args...))
}

// MissingHAProxy ends t, as Missing does, because HAProxy is missing: it
// skips t, or fails it when $CODERUN_REQUIRE_HAPROXY is 1.
func MissingHAProxy(t testing.TB, format string, args ...any) {
	t.Helper()
	missing(t, requireHAProxyEnv, ".ci/run installs it", fmt.Sprintf(format, args...))
}

// missing skips t with msg, or fails it when the variable env is "1";
// provider says what provides the missing part.
func missing(t testing.TB, env, provider, msg string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatal(msg + " (" + env + "=1 makes this a failure rather than a skip)")
		return
	}
	t.Skip(msg + " (skipped: " + provider + " and sets " + env + "=1, which makes this a failure)")
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

// HAProxy returns the path of the haproxy command (on PATH, or Debian's
// /usr/sbin/haproxy when /usr/sbin is not on PATH), or ends t as
// MissingHAProxy does when there is none.
func HAProxy(t testing.TB) string {
	t.Helper()
	return haproxy(t, debianHAProxy)
}

// haproxy is HAProxy with fallback in place of Debian's path.
func haproxy(t testing.TB, fallback string) string {
	t.Helper()
	path, err := exec.LookPath("haproxy")
	if err == nil {
		return path
	}
	if _, serr := os.Stat(fallback); serr == nil {
		return fallback
	}
	MissingHAProxy(t, "this test needs HAProxy (haproxy on PATH): %v; install it with `apt-get install haproxy`", err)
	return ""
}

// debianHAProxy is where Debian's haproxy package installs the command.
const debianHAProxy = "/usr/sbin/haproxy"
