package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/testenv"
	"github.com/coderun/coderun/mcp"
)

// serveStdio runs `coderun mcp args...` in this process over pipes and
// connects a client to it; the returned function disconnects and returns
// the exit status.
func serveStdio(t *testing.T, stderr io.Writer, args ...string) (*sdk.ClientSession, func() int) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run(append([]string{"mcp"}, args...), stdinR, stdoutW, stderr)
		_ = stdoutW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: stdoutR, Writer: stdinW}, nil)
	require.NoError(t, err)
	return cs, func() int {
		require.NoError(t, cs.Close())
		select {
		case c := <-code:
			return c
		case <-time.After(30 * time.Second):
			t.Fatal("coderun mcp did not exit after its client disconnected")
			return -1
		}
	}
}

// coderun mcp --log-format json writes one JSON line per run, with the run
// id the client sees in _meta and no program text; --metrics-addr serves
// the metrics in stdio mode.
func TestMCPLogFormatJSONAndMetricsAddr(t *testing.T) {
	var stderr testenv.Buffer
	cs, stop := serveStdio(t, &stderr, "--log-format", "json", "--metrics-addr", "127.0.0.1:0", "--compute-time", "2s")
	const code = `return "PROGRAM-MARKER".length`
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	id, _ := res.Meta[mcp.MetaRunID].(string)
	require.Regexp(t, `^[0-9a-f]{16}$`, id)

	m := regexp.MustCompile(`serving metrics at (http://\S+)`).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, stderr.String())
	resp, err := http.Get(m[1])
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "\ncoderun_runs_total{budget=\"none\",kind=\"ok\"} 1\n")
	require.Contains(t, string(body), "\ncoderun_sessions 1\n")

	require.Equal(t, 0, stop())
	var line map[string]any
	for l := range strings.SplitSeq(stderr.String(), "\n") {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &e), l)
		if e["msg"] == "run_code finished" {
			line = e
		}
	}
	require.NotNil(t, line, stderr.String())
	require.Equal(t, id, line["run_id"])
	require.Equal(t, "ok", line["outcome"])
	require.Equal(t, "INFO", line["level"])
	require.NotContains(t, stderr.String(), "PROGRAM-MARKER")
}

// --log-programs logs the program; --log-level warn drops the run lines,
// which --log-usage brings back.
func TestMCPLogLevels(t *testing.T) {
	tests := []struct {
		args              []string
		runLine, programs bool
	}{
		{args: nil, runLine: true},
		{args: []string{"--log-programs"}, runLine: true, programs: true},
		{args: []string{"--log-level", "warn"}},
		{args: []string{"--log-level", "warn", "--log-usage"}, runLine: true},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr testenv.Buffer
			cs, stop := serveStdio(t, &stderr, append([]string{"--compute-time", "2s"}, tc.args...)...)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": `return "PROGRAM-MARKER"`}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			require.Equal(t, 0, stop())
			require.Equal(t, tc.runLine, strings.Contains(stderr.String(), `msg="run_code finished"`), stderr.String())
			require.Equal(t, tc.programs, strings.Contains(stderr.String(), "PROGRAM-MARKER"), stderr.String())
		})
	}
}
