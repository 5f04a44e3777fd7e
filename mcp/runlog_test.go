package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/internal/testenv"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// logBuffer is a logger's output that a test reads while it is written.
type logBuffer struct{ testenv.Buffer }

// entries decodes the JSON log lines written to b.
func (b *logBuffer) entries(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		out = append(out, e)
	}
	return out
}

// find returns the entries whose msg is msg.
func find(entries []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, e := range entries {
		if e["msg"] == msg {
			out = append(out, e)
		}
	}
	return out
}

// jsonLogger logs JSON lines at level and above to a new buffer.
func jsonLogger(level slog.Level) (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level})), buf
}

// A run_code result's _meta holds the run's id, the one of its log line,
// and its usage, on success and failure alike; every run has its own id.
func TestMetaRunIDAndUsage(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	logger, logs := jsonLogger(slog.LevelInfo)
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{Logger: logger})
	require.NoError(t, err)
	cs := connectClient(t, s, nil)

	tests := []struct {
		code    string
		isError bool
		calls   int
	}{
		{code: `console.log("hi"); return (await local.add({a: 1, b: 2})).sum`, calls: 1},
		{code: `await local.echo({text: "a"}); await local.echo({text: "b"}); throw new Error("no")`, isError: true, calls: 2},
	}
	ids := map[string]bool{}
	for _, tc := range tests {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": tc.code}})
		require.NoError(t, err)
		require.Equal(t, tc.isError, res.IsError)
		id, ok := res.Meta[MetaRunID].(string)
		require.True(t, ok, "meta %v", res.Meta)
		require.Regexp(t, `^[0-9a-f]{16}$`, id)
		require.False(t, ids[id], "run ids are unique")
		ids[id] = true
		usage := usageOf(t, res)
		require.Equal(t, tc.calls, usage.Calls)
		require.NotZero(t, usage.Fuel)
		require.Positive(t, usage.WallTime)
		require.Positive(t, usage.PeakMemoryBytes)

		var line map[string]any
		for _, e := range find(logs.entries(t), "run_code finished") {
			if e["run_id"] == id {
				line = e
			}
		}
		require.NotNil(t, line, "the log line of run %s: %s", id, logs.String())
		require.Equal(t, float64(usage.Fuel), line["fuel"])
		require.Equal(t, float64(tc.calls), line["calls"])
	}
	for _, e := range logs.entries(t) {
		require.Equal(t, "run_code finished", e["msg"], "at Info, one line per run: go-sdk's are at Debug")
	}
	// RunCode's results carry them too.
	res := s.RunCode(context.Background(), `return 1`)
	require.Regexp(t, `^[0-9a-f]{16}$`, res.Meta[MetaRunID])
	require.Contains(t, res.Meta, MetaUsage)
}

// Without LogPrograms no program text, argument value, or message a
// program or a tool wrote reaches the log, even at level Debug; with it,
// each does.
func TestLogPrograms(t *testing.T) {
	const code = `// PROGRAM-TEXT-MARKER
await local.echo({text: "ARGUMENT-MARKER"});
try { await local.fail({text: "TOOL-ERROR-MARKER"}) } catch (e) {}
throw new Error("THROWN-MARKER")`
	markers := []string{"PROGRAM-TEXT-MARKER", "ARGUMENT-MARKER", "TOOL-ERROR-MARKER", "THROWN-MARKER"}
	for _, logPrograms := range []bool{false, true} {
		t.Run(map[bool]string{false: "without", true: "with"}[logPrograms], func(t *testing.T) {
			logger, logs := jsonLogger(slog.LevelDebug)
			p := &inProcess{server: testServer(nil)}
			u := NewUpstream("local", p.dial, logger)
			require.NoError(t, u.Start(context.Background()))
			t.Cleanup(func() { require.NoError(t, u.Close()) })
			s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{Logger: logger, LogPrograms: logPrograms})
			require.NoError(t, err)
			cs := connectClient(t, s, nil)
			text, isError := callRunCode(t, cs, code)
			require.True(t, isError)
			require.Contains(t, text, "THROWN-MARKER", "the client sees it either way")

			entries := logs.entries(t)
			runs := find(entries, "run_code finished")
			require.Len(t, runs, 1, logs.String())
			require.Equal(t, "exception", runs[0]["outcome"])
			require.Equal(t, "none", runs[0]["budget"])
			calls := find(entries, "binding call")
			require.Len(t, calls, 2, logs.String())
			require.Equal(t, "echo", calls[0]["tool"])
			require.Equal(t, "ok", calls[0]["outcome"])
			require.Equal(t, "error", calls[1]["outcome"])
			require.Equal(t, runs[0]["run_id"], calls[1]["run_id"])
			for _, m := range markers {
				if logPrograms {
					require.Contains(t, logs.String(), m)
				} else {
					require.NotContains(t, logs.String(), m)
				}
			}
			sdkLines := find(entries, "server session connected")
			require.NotEmpty(t, sdkLines, "go-sdk's Info lines, at Debug: %s", logs.String())
			require.Equal(t, "DEBUG", sdkLines[0]["level"])
			if logPrograms {
				require.Equal(t, code, runs[0]["program"])
				require.Equal(t, `{"text":"ARGUMENT-MARKER"}`, calls[0]["args"])
			}
		})
	}
}

// An upstream logs its start, its death, its restart and its close; and
// go-sdk's Info lines are logged at Debug.
func TestLogUpstreamLifecycle(t *testing.T) {
	logger, logs := jsonLogger(slog.LevelInfo)
	p := &inProcess{server: testServer(nil)}
	u := NewUpstream("local", p.dial, logger)
	require.NoError(t, u.Start(context.Background()))
	p.kill()
	require.Eventually(t, func() bool { return len(find(logs.entries(t), "upstream ended; the next run restarts it")) == 1 },
		10*time.Second, time.Millisecond, logs.String())
	require.NoError(t, u.Start(context.Background()))
	require.NoError(t, u.Close())
	require.Eventually(t, func() bool { return len(find(logs.entries(t), "upstream closed")) == 1 },
		10*time.Second, time.Millisecond, logs.String())

	var msgs []string
	for _, e := range logs.entries(t) {
		require.Equal(t, "local", e["upstream"], "only the upstream's own lines: %v", e)
		msgs = append(msgs, e["msg"].(string))
	}
	require.Equal(t, []string{"upstream started", "upstream ended; the next run restarts it", "upstream restarted", "upstream closed"}, msgs)
	started := find(logs.entries(t), "upstream started")[0]
	require.Equal(t, "INFO", started["level"])
	require.Equal(t, 5.0, started["tools"])
	require.Equal(t, "WARN", find(logs.entries(t), "upstream ended; the next run restarts it")[0]["level"])
}

// A failed start is logged at Warn with its error.
func TestLogUpstreamStartFailure(t *testing.T) {
	logger, logs := jsonLogger(slog.LevelInfo)
	p := &inProcess{server: testServer(nil)}
	p.setFail(errDialBroken)
	u := NewUpstream("local", p.dial, logger)
	require.ErrorIs(t, u.Start(context.Background()), errDialBroken)
	failed := find(logs.entries(t), "upstream failed to start")
	require.Len(t, failed, 1, logs.String())
	require.Equal(t, "WARN", failed[0]["level"])
	require.Equal(t, "dial broken", failed[0]["error"])
}
