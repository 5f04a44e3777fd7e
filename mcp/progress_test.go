package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// progressServer is testServer plus "steps", which reports three steps of
// progress when its caller asked for progress.
func progressServer() *sdk.Server {
	s := testServer(nil)
	sdk.AddTool(s, &sdk.Tool{Name: "steps"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3,
					Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, nil, err
				}
			}
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "stepped"}}}, nil, nil
	})
	return s
}

// With a progressToken, run_code reports each completed upstream call and
// each of the upstreams' own progress notifications, strictly increasing,
// all before its response; without one, nothing.
func TestRunCodeProgress(t *testing.T) {
	u, _ := startUpstream(t, "local", progressServer())
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	var (
		mu       sync.Mutex
		received []*sdk.ProgressNotificationParams
	)
	cs := connectClient(t, s, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		received = append(received, req.Params)
	}})
	const program = `await local.echo({text: "a"});
try { await local.fail({text: "no"}) } catch {}
await local.steps({});
return await local.echo({text: "b"})`

	params := &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": program}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError)
	// 4 calls done + 3 upstream steps = 7 events, one notification each
	// (TestRunCodeProgressPerCall). go-sdk hands a client its
	// notifications in order, but maybe after the response they preceded;
	// it may also hand coderun an upstream's notification after the call's
	// response, when it is no longer counted: at least the 4 calls are.
	var got []*sdk.ProgressNotificationParams
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		got = slices.Clone(received)
		return len(got) > 0 && got[len(got)-1].Progress >= 4
	}, 10*time.Second, 5*time.Millisecond)
	last := 0.0
	for _, p := range got {
		require.Equal(t, "tok-1", p.ProgressToken)
		require.Greater(t, p.Progress, last, "progress is strictly increasing")
		last = p.Progress
	}
	require.GreaterOrEqual(t, last, 4.0)
	require.LessOrEqual(t, last, 7.0)

	// Without a token, no notification.
	var others atomic.Int64
	cs2 := connectClient(t, s, &sdk.ClientOptions{ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
		others.Add(1)
	}})
	res, err = cs2.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": program}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.NoError(t, cs2.Ping(context.Background(), nil)) // a round trip for stragglers
	require.Zero(t, others.Load())
}

// A progressToken is repeated in every notification, so one over
// maxProgressToken bytes of JSON gets none: the response cannot be the
// token times the program's log entries.
func TestProgressTokenBounded(t *testing.T) {
	notify := func(context.Context, *sdk.ProgressNotificationParams) error { return nil }
	for _, tc := range []struct {
		name  string
		token any
		want  bool
	}{
		{"short string", "tok-1", true},
		{"number", float64(7), true},
		{"string at the limit", strings.Repeat("t", maxProgressToken-2), true},
		{"string over the limit", strings.Repeat("t", maxProgressToken-1), false},
		{"600 KiB string", strings.Repeat("t", 600<<10), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProgress(context.Background(), tc.token, notify)
			require.Equal(t, tc.want, p != nil)
			p.finish()
		})
	}
}

// Every event is reported with its message when the client keeps up.
func TestProgressMessages(t *testing.T) {
	var got []string
	p := startProgress(context.Background(), "t", func(_ context.Context, params *sdk.ProgressNotificationParams) error {
		got = append(got, fmt.Sprintf("%g %s", params.Progress, params.Message))
		return nil
	})
	p.callDone("files", "read_file", nil)
	p.finish()
	p2 := startProgress(context.Background(), "t", func(_ context.Context, params *sdk.ProgressNotificationParams) error {
		got = append(got, fmt.Sprintf("%g %s", params.Progress, params.Message))
		return nil
	})
	p2.upstreamProgress("everything", "get-sum", &sdk.ProgressNotificationParams{Progress: 2, Total: 5})
	p2.upstreamProgress("everything", "get-sum", &sdk.ProgressNotificationParams{Progress: 3, Message: "almost"})
	p2.callDone("everything", "get-sum", fmt.Errorf("boom"))
	p2.finish()
	require.Equal(t, "1 files.read_file done", got[0])
	require.Equal(t, `3 everything["get-sum"] failed`, got[len(got)-1])
	var nilReporter *progressReporter
	nilReporter.callDone("a", "b", nil) // no-op
	nilReporter.finish()
	require.Nil(t, startProgress(context.Background(), nil, nil))
}

// Each log entry the program writes is a step of progress, sent while the
// run goes on: the program logs, then waits on an upstream tool that
// returns only once the client has received that entry's notification.
func TestRunCodeProgressPerLogEntry(t *testing.T) {
	heard := make(chan struct{})
	var once sync.Once
	srv := testServer(nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "gate"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		select {
		case <-heard:
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "open"}}}, nil, nil
		case <-time.After(10 * time.Second):
			return nil, nil, fmt.Errorf("no progress notification for the log entry within 10 s")
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	u, _ := startUpstream(t, "local", srv)
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	var (
		mu       sync.Mutex
		received []*sdk.ProgressNotificationParams
	)
	cs := connectClient(t, s, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		received = append(received, req.Params)
		mu.Unlock()
		if req.Params.Message == "log: waiting at the gate" {
			once.Do(func() { close(heard) })
		}
	}})
	const program = `console.log("waiting at the gate");
const r = await local.gate({});
for (let i = 0; i < 5; i++) console.log("after", i);
console.log("multi\nline");
return r`
	params := &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": program}}
	params.SetProgressToken(7)
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)

	// 7 log entries and 1 call: the last notification counts all 8 events.
	var got []*sdk.ProgressNotificationParams
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		got = slices.Clone(received)
		return len(got) > 0 && got[len(got)-1].Progress == 8
	}, 10*time.Second, 5*time.Millisecond)
	last := 0.0
	for _, p := range got {
		require.EqualValues(t, 7, p.ProgressToken)
		require.Greater(t, p.Progress, last, "progress is strictly increasing")
		last = p.Progress
	}
	require.Equal(t, "log: multi…", got[len(got)-1].Message)
}

// A log entry's progress message quotes its first line, at most
// logMessageMax bytes of it, cut at a code point.
func TestProgressLogMessages(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	p := startProgress(context.Background(), "t", func(_ context.Context, params *sdk.ProgressNotificationParams) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, params.Message)
		return nil
	})
	long := strings.Repeat("é", logMessageMax) // 2 bytes each
	entries := []string{"plain", "first\nsecond", "", long}
	for i, entry := range entries {
		p.onLog()(entry)
		// Wait for each to be sent, so that none is coalesced.
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(got) == i+1
		}, 5*time.Second, time.Millisecond)
	}
	p.finish()
	require.Equal(t, []string{"log: plain", "log: first…", "log: ", "log: " + strings.Repeat("é", logMessageMax/2) + "…"}, got)
	var nilReporter *progressReporter
	require.Nil(t, nilReporter.onLog(), "no hook, so no per-log cost, without a progressToken")
}

// Each completed call is one notification, even when calls complete while
// the client is not reading: events are queued, not merged, up to
// maxQueuedProgress. The client stops reading after the first
// notification until the program's last call, so that the server's
// writes block while the calls before it complete.
func TestRunCodeProgressPerCall(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	srv := testServer(nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "release"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		once.Do(func() { close(release) })
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "released"}}}, nil, nil
	})
	u, _ := startUpstream(t, "local", srv)
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)

	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(context.Background(), st, nil)
	require.NoError(t, err)
	var (
		mu       sync.Mutex
		received []float64
	)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			received = append(received, req.Params.Progress)
		}}).Connect(context.Background(), &stallAfterProgress{Transport: ct, until: release}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })

	const calls = 8
	params := &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": fmt.Sprintf(
		`for (let i = 0; i < %d; i++) await local.echo({text: "x"}); return await local.release({})`, calls)}}
	params.SetProgressToken("calls")
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(received) >= calls+1
	}, 10*time.Second, time.Millisecond)
	require.NoError(t, cs.Ping(context.Background(), nil)) // a round trip for stragglers
	mu.Lock()
	defer mu.Unlock()
	want := make([]float64, calls+1)
	for i := range want {
		want[i] = float64(i + 1)
	}
	require.Equal(t, want, received, "one notification per completed call")
}

// stallAfterProgress is a client transport that stops reading after the
// first progress notification until until is closed.
type stallAfterProgress struct {
	sdk.Transport
	until chan struct{}
}

func (s *stallAfterProgress) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	return &stallConn{Connection: c, until: s.until}, err
}

type stallConn struct {
	sdk.Connection
	until   chan struct{}
	stalled bool
}

func (c *stallConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "notifications/progress" && !c.stalled {
		c.stalled = true
		select {
		case <-c.until:
		case <-ctx.Done():
		}
	}
	return msg, err
}

// Events that arrive while a notification is being sent are each sent
// after it, in order; past maxQueuedProgress waiting, they merge into the
// last one, so notifications never outnumber events and memory stays
// bounded.
func TestProgressQueue(t *testing.T) {
	for _, events := range []int{3, maxQueuedProgress + 10} {
		t.Run(fmt.Sprint(events), func(t *testing.T) {
			release := make(chan struct{})
			var got []float64
			p := startProgress(context.Background(), "t", func(_ context.Context, params *sdk.ProgressNotificationParams) error {
				if params.Progress == 1 {
					<-release // the client is slow with the first
				}
				got = append(got, params.Progress)
				return nil
			})
			p.callDone("a", "first", nil)
			require.Eventually(t, func() bool { // the first is being sent
				p.mu.Lock()
				defer p.mu.Unlock()
				return len(p.queue) == 0
			}, 5*time.Second, time.Millisecond)
			for i := 1; i < events; i++ {
				p.callDone("a", "next", nil)
			}
			close(release)
			p.finish()
			want := min(events, 1+maxQueuedProgress)
			require.Len(t, got, want)
			require.Equal(t, float64(events), got[len(got)-1])
			for i := 1; i < len(got); i++ {
				require.Greater(t, got[i], got[i-1])
			}
		})
	}
}
