package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// serveHTTP serves s over httptest with opts, closed when the test ends.
func serveHTTP(t *testing.T, s *Server, opts *HTTPOptions) (*HTTPHandler, string) {
	t.Helper()
	h, err := s.HTTPHandler(opts)
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return h, ts.URL
}

// rawPost POSTs a JSON-RPC message to url, as an MCP client does, with
// extra headers.
func rawPost(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rawSession initialises a session and returns its id.
func rawSession(t *testing.T, url string, header map[string]string) string {
	t.Helper()
	resp := rawPost(t, url, initializeBody, header)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	h := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	for k, v := range header {
		h[k] = v
	}
	resp = rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	return id
}

// sseResult reads the first JSON-RPC response from an SSE or JSON body.
func sseResult(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer func() { _ = resp.Body.Close() }()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		var msg map[string]any
		if json.Unmarshal([]byte(line), &msg) == nil && msg["id"] != nil {
			return msg
		}
	}
	t.Fatalf("no response in the body (status %d)", resp.StatusCode)
	return nil
}

func toolCallBody(id int, code string) string {
	params, _ := json.Marshal(map[string]any{"name": ToolName, "arguments": map[string]any{"code": code}})
	// The TypeScript SDK's order: the id last.
	return fmt.Sprintf(`{"method":"tools/call","params":%s,"jsonrpc":"2.0","id":%d}`, params, id)
}

// Every request is checked for its Origin (403) and, with a token, for the
// token (401); the health checks need no token.
func TestHTTPOriginAndToken(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	_, url := serveHTTP(t, s, &HTTPOptions{AllowedOrigins: []string{"https://App.Example.com"}, Token: "s3cret"})
	const wrongToken = `Bearer realm="coderun", error="invalid_token", error_description="the bearer token is wrong"`

	tests := []struct {
		name      string
		path      string
		origin    string
		auth      string
		want      int
		challenge string // WWW-Authenticate
	}{
		{name: "no origin, token", path: "/", auth: "Bearer s3cret", want: http.StatusOK},
		{name: "token on /mcp", path: "/mcp", auth: "Bearer s3cret", want: http.StatusOK},
		{name: "evil origin", path: "/", origin: "http://evil.example", auth: "Bearer s3cret", want: http.StatusForbidden},
		{name: "evil origin on the health check", path: "/healthz", origin: "http://evil.example", want: http.StatusForbidden},
		{name: "origin null", path: "/", origin: "null", auth: "Bearer s3cret", want: http.StatusForbidden},
		{name: "localhost origin", path: "/", origin: "http://localhost:3000", auth: "Bearer s3cret", want: http.StatusOK},
		{name: "127.0.0.1 origin", path: "/", origin: "http://127.0.0.1:6274", auth: "Bearer s3cret", want: http.StatusOK},
		{name: "[::1] origin", path: "/", origin: "http://[::1]", auth: "Bearer s3cret", want: http.StatusOK},
		{name: "allowed origin", path: "/", origin: "https://app.example.com", auth: "Bearer s3cret", want: http.StatusOK},
		{name: "allowed host, other port", path: "/", origin: "https://app.example.com:8443", auth: "Bearer s3cret", want: http.StatusForbidden},
		{name: "allowed host, other scheme", path: "/", origin: "http://app.example.com", auth: "Bearer s3cret", want: http.StatusForbidden},
		{name: "lookalike of localhost", path: "/", origin: "http://localhost.evil.example", auth: "Bearer s3cret", want: http.StatusForbidden},
		{name: "missing token", path: "/", want: http.StatusUnauthorized, challenge: `Bearer realm="coderun"`},
		{name: "empty token", path: "/", auth: "Bearer ", want: http.StatusUnauthorized, challenge: `Bearer realm="coderun"`},
		{name: "wrong token", path: "/", auth: "Bearer s3cret2", want: http.StatusUnauthorized, challenge: wrongToken},
		{name: "token prefix", path: "/", auth: "Bearer s3cre", want: http.StatusUnauthorized, challenge: wrongToken},
		{name: "not bearer", path: "/", auth: "Basic s3cret", want: http.StatusUnauthorized, challenge: `Bearer realm="coderun"`},
		{name: "scheme in lower case", path: "/", auth: "bearer s3cret", want: http.StatusOK},
		{name: "health without token", path: "/healthz", want: http.StatusOK},
		{name: "readiness without token", path: "/readyz", want: http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.origin != "" {
				h["Origin"] = tc.origin
			}
			if tc.auth != "" {
				h["Authorization"] = tc.auth
			}
			var resp *http.Response
			if strings.HasSuffix(tc.path, "z") {
				req, err := http.NewRequest(http.MethodGet, url+tc.path, nil)
				require.NoError(t, err)
				for k, v := range h {
					req.Header.Set(k, v)
				}
				resp, err = http.DefaultClient.Do(req)
				require.NoError(t, err)
			} else {
				resp = rawPost(t, url+tc.path, initializeBody, h)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			require.Equal(t, tc.want, resp.StatusCode, "body: %s", body)
			require.Equal(t, tc.challenge, resp.Header.Get("WWW-Authenticate"))
			if tc.want == http.StatusOK && tc.path != "/healthz" && tc.path != "/readyz" {
				require.Contains(t, string(body), `"serverInfo"`)
			}
		})
	}

	_, err = s.HTTPHandler(&HTTPOptions{AllowedOrigins: []string{"app.example.com"}})
	require.EqualError(t, err, `origin "app.example.com" is not of the form scheme://host[:port]`)
}

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"localhost:8080": true, "127.0.0.1:0": true, "[::1]:80": true, "127.1.2.3:9": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "192.168.1.2:80": false, "example.com:80": false,
	} {
		require.Equal(t, want, IsLoopbackAddr(addr), addr)
	}
}

// A DELETE of a session answers at once and cancels its run.
func TestHTTPDeleteCancelsRuns(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()

	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName,
			Arguments: map[string]any{"code": `await new Promise(r => setTimeout(r, 50000)); return "finished"`}})
		called <- err
	}()
	require.Eventually(t, func() bool { return s.runs.count() == 1 }, 10*time.Second, 5*time.Millisecond)

	req, err := http.NewRequest(http.MethodDelete, url, nil)
	require.NoError(t, err)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	took := time.Since(start)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	// The session's Close waits for its handlers: the run has ended when
	// DELETE answers. (It would otherwise take the run's 50 s.)
	require.Equal(t, 0, s.runs.count(), "runs still going after DELETE")
	t.Logf("DELETE answered in %v", took)
	select {
	case <-called:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end")
	}
}

// A session idle for SessionIdleTimeout is closed and its runs cancelled,
// even when its client dropped the connection of a run; a request in
// flight keeps it alive.
func TestHTTPSessionIdleTimeout(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	// 2 s: between two requests of the test a session idles for
	// microseconds, quiet; 2 s is far above what load stretches that to.
	// A run longer than it (3 s) must not be cut.
	const idle = 2 * time.Second
	h, url := serveHTTP(t, s, &HTTPOptions{SessionIdleTimeout: idle})

	t.Run("a run longer than the timeout, its client waiting", func(t *testing.T) {
		id := rawSession(t, url, nil)
		resp := rawPost(t, url, toolCallBody(2, `await new Promise(r => setTimeout(r, 3000)); return "done"`),
			map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
		msg := sseResult(t, resp)
		require.NotEqual(t, true, msg["result"].(map[string]any)["isError"], msg)
	})

	t.Run("a dropped connection", func(t *testing.T) {
		id := rawSession(t, url, nil)
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(toolCallBody(2, `await new Promise(r => setTimeout(r, 50000))`)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		}()
		require.Eventually(t, func() bool { return s.runs.count() == 1 }, 10*time.Second, 5*time.Millisecond)
		cancel() // the client goes away; a disconnect is not a cancel
		require.Eventually(t, func() bool { return s.runs.count() == 0 }, 10*time.Second, 10*time.Millisecond,
			"the run of an expired session is cancelled")
		resp := rawPost(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
		_ = resp.Body.Close()
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "the session is gone")
		require.Eventually(t, func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return len(h.sessions) == 0
		}, 10*time.Second, 10*time.Millisecond, "no state is left for expired sessions")
	})
}

// A body over RequestLimit is not read into memory by go-sdk: a tools/call
// gets a tool error with its id, anything else 413; a program between
// MaxProgramBytes and the limit gets run_code's own tool error.
func TestHTTPBodyLimit(t *testing.T) {
	const maxProgram = 1000
	s, err := NewServer(newRuntime(t, nil), nil, &ServerOptions{MaxProgramBytes: maxProgram})
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	id := rawSession(t, url, nil)
	hdr := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	limit := RequestLimit(maxProgram, 0)

	toolText := func(t *testing.T, msg map[string]any) string {
		res := msg["result"].(map[string]any)
		require.Equal(t, true, res["isError"])
		return res["content"].([]any)[0].(map[string]any)["text"].(string)
	}

	t.Run("over MaxProgramBytes", func(t *testing.T) {
		msg := sseResult(t, rawPost(t, url, toolCallBody(5, "return '"+strings.Repeat("x", 2*maxProgram)+"'"), hdr))
		require.EqualValues(t, 5, msg["id"])
		require.Contains(t, toolText(t, msg), "over the limit of Config.MaxProgramBytes = 1000 bytes")
	})
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("over the request limit, chunked %v", chunked), func(t *testing.T) {
			body := toolCallBody(6, "return '"+strings.Repeat("x", int(2*limit))+"'")
			var r io.Reader = strings.NewReader(body)
			if chunked {
				r = io.MultiReader(r) // hides the length: chunked encoding
			}
			req, err := http.NewRequest(http.MethodPost, url, r)
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			msg := sseResult(t, resp)
			require.EqualValues(t, 6, msg["id"])
			require.Contains(t, toolText(t, msg), fmt.Sprintf("the request is over %d bytes", limit))
		})
	}
	t.Run("declared far over the limit: not read", func(t *testing.T) {
		resp := rawPost(t, url, toolCallBody(9, "return '"+strings.Repeat("x", int(5*limit))+"'"), hdr)
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		var msg map[string]any
		require.NoError(t, json.Unmarshal(body, &msg), string(body))
		require.Contains(t, msg, "id")
		require.Nil(t, msg["id"], "the id, at the end, was not read")
		require.EqualValues(t, codeInvalidRequest, msg["error"].(map[string]any)["code"])
	})
	t.Run("not a call", func(t *testing.T) {
		resp := rawPost(t, url, `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"`+strings.Repeat("p", int(limit))+`"}}`, hdr)
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		msg := sseResult(t, resp)
		require.EqualValues(t, 7, msg["id"])
	})
	t.Run("still serving", func(t *testing.T) {
		msg := sseResult(t, rawPost(t, url, toolCallBody(8, "return 'ok'"), hdr))
		require.NotEqual(t, true, msg["result"].(map[string]any)["isError"], msg)
	})
}

// Shutdown stops accepting requests, lets the runs in flight finish until
// its ctx is done, then cancels the others. The grace period ends when the
// test cancels ctx, once the short run has answered: no clock decides
// which run finishes within it, so load cannot change the outcome.
func TestHTTPShutdown(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	h, url := serveHTTP(t, s, nil)
	hdr := map[string]string{"Mcp-Session-Id": rawSession(t, url, nil), "Mcp-Protocol-Version": "2025-11-25"}

	results := make(chan map[string]any, 2)
	for i, code := range []string{`await new Promise(r => setTimeout(r, 500)); return "short"`, `await new Promise(r => setTimeout(r, 50000)); return "long"`} {
		go func() { results <- sseResult(t, rawPost(t, url, toolCallBody(10+i, code), hdr)) }()
	}
	require.Eventually(t, func() bool { return s.runs.count() == 2 }, 10*time.Second, 5*time.Millisecond)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(ctx) }()
	require.Eventually(t, func() bool { return !h.Ready() }, 10*time.Second, time.Millisecond)

	resp, err := http.Get(url + "/readyz")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	resp = rawPost(t, url, initializeBody, nil)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "no new requests while draining")
	resp, err = http.Get(url + "/healthz")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "still alive")

	texts := map[float64]string{}
	for i := range 2 {
		msg := <-results
		texts[msg["id"].(float64)] = msg["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
		if i == 0 {
			require.Equal(t, "short", texts[10], "a run within the grace period finishes, first")
			cancel() // the grace period ends
		}
	}
	require.Equal(t, "code run failed (abort): the server is shutting down", texts[11])
	require.ErrorIs(t, <-shut, context.Canceled)
	require.Zero(t, s.runs.count())
	for range s.MCPServer().Sessions() {
		t.Fatal("a session is left open")
	}
}

// In stateless mode any replica answers any request: a client works
// through a load balancer that alternates between two servers.
func TestHTTPStatelessReplicas(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	rt := newRuntime(t, nil)
	var backends []string
	hits := make([]int, 2)
	for range 2 {
		s, err := NewServer(rt, []*Upstream{u}, nil)
		require.NoError(t, err)
		_, url := serveHTTP(t, s, &HTTPOptions{Stateless: true})
		backends = append(backends, url)
	}
	var mu sync.Mutex
	next := 0
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := next
		next = (next + 1) % 2
		hits[i]++
		mu.Unlock()
		target, _ := neturl.Parse(backends[i])
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	defer lb.Close()

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: lb.URL}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()
	require.Empty(t, cs.ID(), "no session")
	for i := range 4 {
		text, isError := callRunCode(t, cs, fmt.Sprintf(`return (await local.add({a: %d, b: 1})).sum`, i))
		require.False(t, isError, text)
		require.Equal(t, fmt.Sprint(i+1), text)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Positive(t, hits[0])
	require.Positive(t, hits[1])

	resp := rawPost(t, backends[0], `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	msg := sseResult(t, resp)
	require.NotNil(t, msg["result"], "a request without initialize is served: %v", msg)
}

// At most MaxSessions sessions are open: one more initialize gets 503 with
// Retry-After and opens nothing, and deleting a session makes room.
func TestHTTPMaxSessions(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	h, url := serveHTTP(t, s, &HTTPOptions{MaxSessions: 2})
	first := rawSession(t, url, nil)
	rawSession(t, url, nil)
	resp := rawPost(t, url, initializeBody, nil)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.Contains(t, string(body), "--max-sessions")
	require.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	h.mu.Lock()
	open := len(h.sessions)
	h.mu.Unlock()
	require.Equal(t, 2, open)

	req, err := http.NewRequest(http.MethodDelete, url, nil)
	require.NoError(t, err)
	req.Header.Set("Mcp-Session-Id", first)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	del, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = del.Body.Close()
	require.Eventually(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.sessions) == 1
	}, 10*time.Second, 10*time.Millisecond)
	rawSession(t, url, nil)
}
