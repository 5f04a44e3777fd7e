package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// run --record writes a trace that replay turns into the same Result, and
// replay --program runs a fix on the recorded data.
func TestRecordAndReplayCommands(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.json")
	fixed := filepath.Join(dir, "fixed.ts")
	require.NoError(t, os.WriteFile(fixed, []byte(`return {n: input.orders.length, r: Math.random() < 1, t: Date.now() > 0}`), 0o600))
	program := `console.log(Math.random()); const t = Date.now(); return input.orders.map(o => o.amount.toFixed(1))`
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // the Result's value, logs or error, as JSON, compared to the recording's when "same"
		stderr string
	}{
		{name: "record", args: []string{"run", "--record", trace, "--fuel", "50000000", "--input", "testdata/orders.json", "-e", program}, code: 0},
		{name: "replay", args: []string{"replay", trace}, code: 0, stdout: "same"},
		{name: "replay a fix", args: []string{"replay", "--program", fixed, trace}, code: 0, stdout: `{"n":3,"r":true,"t":true}`},
		{name: "replay a divergent program", args: []string{"replay", "--program", "-", trace}, stdin: "await new Promise(r => setTimeout(r, 1))", code: 1,
			stdout: `"worker-exit"`},
		{name: "no trace", args: []string{"replay"}, code: 2, stderr: "coderun replay: want one TRACE, got 0 arguments"},
		{name: "missing trace", args: []string{"replay", filepath.Join(dir, "none.json")}, code: 2, stderr: "no such file"},
		{name: "not a trace", args: []string{"replay", "testdata/orders.json"}, code: 2, stderr: "coderun: invalid trace"},
		{name: "trace over --max-trace", args: []string{"replay", "--max-trace", "100", trace}, code: 2, stderr: "over 100 bytes"},
		{name: "record over --max-trace", args: []string{"run", "--record", filepath.Join(dir, "big.json"), "--max-trace", "1KiB", "-e",
			"let n = 0; for (let i = 0; i < 100; i++) n += Date.now() > 0; return n"}, code: 2, stderr: "passed 1024 bytes (MaxTraceBytes)"},
	}
	var recorded []byte
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			require.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			if tc.stderr != "" {
				require.Contains(t, stderr.String(), tc.stderr)
			}
			if tc.name == "record" {
				recorded = withoutTimes(t, stdout.Bytes())
				return
			}
			switch tc.stdout {
			case "same":
				require.JSONEq(t, string(recorded), string(withoutTimes(t, stdout.Bytes())))
			case "":
			default:
				require.Contains(t, string(compact(t, stdout.Bytes())), tc.stdout)
			}
		})
	}
	_, err := os.Stat(filepath.Join(dir, "big.json"))
	require.True(t, os.IsNotExist(err), "no trace is written over --max-trace")
}

// withoutTimes is a printed Result without what differs between runs of
// the same program: times and peak memory.
func withoutTimes(t *testing.T, b []byte) []byte {
	t.Helper()
	var res map[string]any
	require.NoError(t, json.Unmarshal(b, &res), string(b))
	if u, ok := res["usage"].(map[string]any); ok {
		delete(u, "computeTimeMs")
		delete(u, "wallTimeMs")
		delete(u, "peakMemoryBytes")
	}
	out, err := json.Marshal(res)
	require.NoError(t, err)
	return out
}

// compact is b compacted.
func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, b))
	return buf.Bytes()
}
