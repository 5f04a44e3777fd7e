package mcp

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// gateServer has one tool, hold, that counts the calls in flight (and
// their peak) and returns only once gate is closed.
func gateServer(gate <-chan struct{}, inFlight, peak *atomicMax) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gate", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "hold"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		inFlight.enter(peak)
		defer inFlight.leave()
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "held"}}}, nil, nil
	})
	return srv
}

// newGate returns a channel and the function that closes it. A test
// should defer that function: the runtime's cleanup waits for the runs
// held at the gate.
func newGate() (<-chan struct{}, func()) {
	gate := make(chan struct{})
	var once sync.Once
	return gate, func() { once.Do(func() { close(gate) }) }
}

// waitCounts waits until the limiter has running runs going and queued
// calls waiting.
func waitCounts(t *testing.T, s *Server, running, queued int) {
	t.Helper()
	require.Eventually(t, func() bool {
		r, q := s.limiter.counts()
		return r == running && q == queued
	}, 30*time.Second, time.Millisecond)
}

// With MaxRuns 1 and a queue of 1, a third concurrent call is refused at
// once with a message saying why; the queued one runs after the first; no
// more than MaxRuns runs ever go at once.
func TestMaxRuns(t *testing.T) {
	gate, open := newGate()
	defer open()
	var inFlight, peak atomicMax
	u, _ := startUpstream(t, "g", gateServer(gate, &inFlight, &peak))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxRuns: 1, MaxQueuedRuns: 1, MaxQueueWait: time.Minute})
	require.NoError(t, err)
	cs := connectClient(t, s, nil)

	var wg sync.WaitGroup
	texts := make([]string, 2)
	for i := range texts {
		wg.Go(func() {
			text, isError := callRunCode(t, cs, `return await g.hold({})`)
			require.False(t, isError, text)
			texts[i] = text
		})
		waitCounts(t, s, 1, i) // the first runs, the second waits
	}
	text, isError := callRunCode(t, cs, `return "never runs"`)
	require.True(t, isError)
	require.Equal(t, "code run failed: server busy: 1 runs in flight (the server's --max-runs) and 1 waiting (--max-queued-runs), so the queue is full; retry later", text)
	require.Eventually(t, func() bool { return inFlight.load() == 1 }, 30*time.Second, time.Millisecond)

	open()
	wg.Wait()
	require.Equal(t, []string{"held", "held"}, texts)
	require.EqualValues(t, 1, peak.load(), "runs at once")
	waitCounts(t, s, 0, 0)
}

// Many concurrent calls: exactly MaxRuns go at once, the rest wait their
// turn, and all complete.
func TestMaxRunsQueue(t *testing.T) {
	const maxRuns, calls = 2, 7
	gate, open := newGate()
	defer open()
	var inFlight, peak atomicMax
	u, _ := startUpstream(t, "g", gateServer(gate, &inFlight, &peak))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxRuns: maxRuns, MaxQueueWait: time.Minute})
	require.NoError(t, err)
	cs := connectClient(t, s, nil)

	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			text, isError := callRunCode(t, cs, `return await g.hold({})`)
			require.False(t, isError, text)
			require.Equal(t, "held", text)
		})
	}
	waitCounts(t, s, maxRuns, calls-maxRuns)
	require.Eventually(t, func() bool { return inFlight.load() == maxRuns }, 30*time.Second, time.Millisecond)
	open()
	wg.Wait()
	require.EqualValues(t, maxRuns, peak.load(), "runs at once")
}

// A call that waits MaxQueueWait in the queue is refused with a message
// naming the wait; one whose client cancels it leaves the queue. (The run
// in flight holds its gate until the test ends: load cannot let the queued
// call in before its 20 ms are up, only make it wait longer.)
func TestMaxQueueWait(t *testing.T) {
	gate, open := newGate()
	defer open()
	var inFlight, peak atomicMax
	u, _ := startUpstream(t, "g", gateServer(gate, &inFlight, &peak))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxRuns: 1, MaxQueueWait: 20 * time.Millisecond})
	require.NoError(t, err)
	go s.RunCode(context.Background(), `return await g.hold({})`)
	waitCounts(t, s, 1, 0)

	res := s.RunCode(context.Background(), `return 1`)
	require.True(t, res.IsError)
	require.Equal(t, "code run failed: server busy: waited 20ms (the server's --max-queue-wait) for one of the 1 runs in flight (--max-runs) to finish; retry later",
		res.Content[0].(*sdk.TextContent).Text)

	s2, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxRuns: 1, MaxQueueWait: time.Hour})
	require.NoError(t, err)
	go s2.RunCode(context.Background(), `return await g.hold({})`)
	waitCounts(t, s2, 1, 0)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan *sdk.CallToolResult, 1)
	go func() { done <- s2.RunCode(ctx, `return 1`) }()
	waitCounts(t, s2, 1, 1)
	cancel(errCancelledByTest)
	res = <-done
	require.True(t, res.IsError)
	require.Equal(t, "code run failed (abort): the call was cancelled while it waited for a run to finish: cancelled by the test",
		res.Content[0].(*sdk.TextContent).Text)
	waitCounts(t, s2, 1, 0)
}

// Over HTTP, a tools/call that finds the runs and the queue full gets 503
// with Retry-After before any session reads it, and so does /readyz; other
// requests are served, and /readyz answers 200 again once a run finished.
func TestHTTPServerBusy(t *testing.T) {
	gate, open := newGate()
	defer open()
	var inFlight, peak atomicMax
	u, _ := startUpstream(t, "g", gateServer(gate, &inFlight, &peak))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxRuns: 1, MaxQueuedRuns: -1, MaxQueueWait: 3 * time.Second})
	require.NoError(t, err)
	_, url := serveHTTP(t, s, &HTTPOptions{Stateless: true})
	go func() {
		resp := rawPost(t, url, toolCallBody(1, `return await g.hold({})`), nil)
		_ = resp.Body.Close()
	}()
	waitCounts(t, s, 1, 0)

	resp := rawPost(t, url, toolCallBody(2, `return 1`), nil)
	body := readAll(t, resp)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
	require.Equal(t, "3", resp.Header.Get("Retry-After"))
	require.Contains(t, body, "server busy: 1 runs in flight (the server's --max-runs) and 0 waiting (--max-queued-runs), so the queue is full; retry later")
	resp, err = http.Get(url + "/readyz")
	require.NoError(t, err)
	body = readAll(t, resp)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "not ready while full, so that a load balancer routes away")
	require.Equal(t, "3", resp.Header.Get("Retry-After"))
	require.Contains(t, body, "busy: server busy: 1 runs in flight")

	resp = rawPost(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"})
	body = readAll(t, resp)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Contains(t, body, `"run_code"`)

	open()
	waitCounts(t, s, 0, 0)
	resp, err = http.Get(url + "/readyz")
	require.NoError(t, err)
	body = readAll(t, resp)
	require.Equal(t, http.StatusOK, resp.StatusCode, "ready again once a run finished: %s", body)
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
