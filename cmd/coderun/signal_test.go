package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hangGuard bounds how long the signal tests wait for the binary: only a
// hang reaches it, however loaded the machine.
const hangGuard = 2 * time.Minute

// SIGINT (Ctrl-C) and SIGTERM abort the run through its context: the
// binary prints the Result, whose error is an abort naming the signal, and
// exits 128 plus the signal's number. Each program logs a line, then goes
// on until the signal ends it (a timer of an hour, a loop with budgets of
// hours): with --stream the line arrives on the stderr pipe while the run
// is under way, which both proves that logs stream before the program ends
// and tells the test when to send the signal.
func TestRunSignals(t *testing.T) {
	bin := buildCoderun(t)
	const wait = `console.log("started"); await new Promise(r => setTimeout(r, 3600000)); return "never"`
	tests := []struct {
		name    string
		sig     os.Signal
		program string
		status  int
		message string
	}{
		{name: "SIGINT awaiting a timer", sig: os.Interrupt, program: wait, status: 130, message: "interrupted: coderun received SIGINT (Ctrl-C)"},
		{name: "SIGTERM awaiting a timer", sig: syscall.SIGTERM, program: wait, status: 143, message: "interrupted: coderun received SIGTERM"},
		{name: "SIGINT in a busy loop", sig: os.Interrupt, program: `console.log("started"); for (;;) {}`, status: 130,
			message: "interrupted: coderun received SIGINT (Ctrl-C)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "run", "-e", tc.program, "--stream", "--wall-time", "3h", "--compute-time", "3h", "--fuel", "9000000000000000000")
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderrPipe, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() }) // after a failure; harmless once it exited

			stderr := bufio.NewReader(stderrPipe)
			line := within(t, "the streamed log line", func() (string, error) { return stderr.ReadString('\n') })
			require.Equal(t, "started\n", line, "the log arrives on stderr while the program runs")

			require.NoError(t, cmd.Process.Signal(tc.sig))
			rest := within(t, "the end of stderr", func() (string, error) {
				b, err := io.ReadAll(stderr)
				return string(b), err
			})
			require.Empty(t, rest, "nothing but the log on stderr")
			werr := within(t, "the exit", func() (error, error) { return cmd.Wait(), nil })
			var exit *exec.ExitError
			require.True(t, errors.As(werr, &exit), "exit status %d wanted, got %v", tc.status, werr)
			require.Equal(t, tc.status, exit.ExitCode(), "stdout: %s", stdout.String())

			var res struct {
				Value json.RawMessage `json:"value"`
				Logs  []string        `json:"logs"`
				Error *struct{ Kind, Message string }
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), "stdout holds the Result: %s", stdout.String())
			require.NotNil(t, res.Error, stdout.String())
			require.Equal(t, "abort", res.Error.Kind)
			require.Equal(t, tc.message, res.Error.Message)
			require.Equal(t, []string{"started"}, res.Logs, "the Result has the logs too")
			require.Empty(t, res.Value)
		})
	}
}

// within returns what f returns, failing the test if f errs or has not
// returned after hangGuard.
func within[T any](t *testing.T, what string, f func() (T, error)) T {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		require.NoError(t, r.err, what)
		return r.v
	case <-time.After(hangGuard):
		t.Fatalf("%s: nothing after %s", what, hangGuard)
	}
	panic("unreachable")
}

// With --stream, each log entry goes to stderr as a line of its own (an
// entry with newlines spans lines), in order, and the Result on stdout still
// has them all.
func TestRunStream(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
		logs   []string
		code   int
	}{
		{name: "lines", args: []string{"-e", `console.log("a"); console.error("b", 2); console.log("c\nd"); return 1`},
			stderr: "a\nb 2\nc\nd\n", logs: []string{"a", "b 2", "c\nd"}},
		{name: "failure", args: []string{"-e", `console.log("before"); throw new Error("x")`}, stderr: "before\n", logs: []string{"before"}, code: 1},
		{name: "no logs", args: []string{"-e", `return 1`}, stderr: "", logs: []string{}},
		{name: "trimmed as kept", args: []string{"-e", `console.log("x".repeat(100)); console.log("dropped")`, "--max-output", "40"},
			code: 1},
		{name: "without --stream", args: []string{"-e", `console.log("quiet")`, "--stream=false"}, stderr: "", logs: []string{"quiet"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"run", "--stream"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			var res struct{ Logs []string }
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), stdout.String())
			if tc.logs == nil { // the streamed lines are the kept entries, whatever they are
				require.Equal(t, strings.Join(res.Logs, "\n")+"\n", stderr.String())
				return
			}
			require.Equal(t, tc.logs, res.Logs)
			require.Equal(t, tc.stderr, stderr.String())
		})
	}
}

// blockedWriter blocks every Write until release is closed.
type blockedWriter struct {
	release chan struct{}
	buf     bytes.Buffer
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return w.buf.Write(p)
}

// A logStream never makes the run wait for its writer: add returns while
// the writer is stuck, and close writes every entry, in order.
func TestLogStreamDoesNotBlock(t *testing.T) {
	w := &blockedWriter{release: make(chan struct{})}
	s := newLogStream(w)
	var want strings.Builder
	within(t, "adding while the writer is stuck", func() (int, error) {
		for i := range 1000 {
			entry := strings.Repeat("x", i%7) + "|" + string(rune('a'+i%26))
			s.add(entry)
			want.WriteString(entry + "\n")
		}
		return 0, nil
	})
	close(w.release)
	within(t, "close", func() (int, error) { s.close(); return 0, nil })
	require.Equal(t, want.String(), w.buf.String())
}
