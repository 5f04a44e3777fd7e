package mcp

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// serveLimited serves s over httptest with HTTPServer's bounds.
func serveLimited(t *testing.T, s *Server, hopts *HTTPOptions, opts *ConnOptions) (*limitListener, string) {
	t.Helper()
	h, err := s.HTTPHandler(hopts)
	require.NoError(t, err)
	ts := httptest.NewUnstartedServer(nil)
	srv, ln := h.HTTPServer(ts.Listener, opts)
	ts.Config, ts.Listener = srv, ln
	ts.Start()
	t.Cleanup(ts.Close)
	return ln.(*limitListener), ts.Listener.Addr().String()
}

// dial opens a raw connection with a generous safety deadline: a read
// that reaches it means the server held the connection.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// readToEOF reads c until the server closes it, failing if the safety
// deadline ends the read instead.
func readToEOF(t *testing.T, c net.Conn) string {
	t.Helper()
	b, err := io.ReadAll(c)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server held the connection: %v", err)
	return string(b)
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

// A client that sends a request's header and stalls its body has its
// connection closed after BodyTimeout; a body that arrived in time lifts
// the deadline, so a response that goes on longer is not cut. BodyTimeout
// is 1 s: the test's bodies are written at once over loopback, read in
// microseconds quiet, far below what load stretches that to.
func TestHTTPBodyTimeout(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	ln, addr := serveLimited(t, s, &HTTPOptions{Stateless: true}, &ConnOptions{BodyTimeout: time.Second})

	c := dial(t, addr)
	_, err = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	require.NoError(t, err)
	readToEOF(t, c)
	require.Eventually(t, func() bool { open, _ := ln.counts(); return open == 0 }, 10*time.Second, time.Millisecond)

	// A run that outlasts BodyTimeout, its body long read, answers.
	resp := rawPost(t, "http://"+addr, toolCallBody(2, `await new Promise(r => setTimeout(r, 1500)); return "late"`),
		map[string]string{"Mcp-Protocol-Version": "2025-11-25"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	msg, err := json.Marshal(sseResult(t, resp))
	require.NoError(t, err)
	require.Contains(t, string(msg), `"text":"late"`)
}

// A keep-alive connection idle for IdleTimeout is closed. (Load only
// delays the close, which the test waits for.)
func TestHTTPIdleTimeout(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	ln, addr := serveLimited(t, s, nil, &ConnOptions{IdleTimeout: 100 * time.Millisecond})
	c := dial(t, addr)
	_, err = io.WriteString(c, healthz)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	_ = readAll(t, resp)
	readToEOF(t, c) // the server closes it, idle
	require.Eventually(t, func() bool { open, _ := ln.counts(); return open == 0 }, 10*time.Second, time.Millisecond)
}

// With MaxConnections 2, a third connection is answered 503 and closed
// while two are open, and served once one of them closes.
func TestHTTPMaxConnections(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	ln, addr := serveLimited(t, s, nil, &ConnOptions{MaxConnections: 2})
	var held []net.Conn
	for range 2 {
		c := dial(t, addr)
		_, err := io.WriteString(c, healthz)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		_ = readAll(t, resp)
		held = append(held, c) // kept alive, idle
	}
	open, refused := ln.counts()
	require.Equal(t, 2, open)
	require.Zero(t, refused)

	c := dial(t, addr)
	_, _ = io.WriteString(c, healthz) // may fail: the server closes at once
	reply := readToEOF(t, c)
	require.NotContains(t, reply, "200 OK")
	if reply != "" { // else the reset beat the reply
		require.True(t, strings.HasPrefix(reply, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"), reply)
		require.Contains(t, reply, "server busy: 2 connections open, the limit (--max-connections); retry later")
	}
	open, refused = ln.counts()
	require.Equal(t, 2, open)
	require.Equal(t, 1, refused)

	require.NoError(t, held[0].Close())
	require.Eventually(t, func() bool { open, _ := ln.counts(); return open == 1 }, 10*time.Second, time.Millisecond)
	c = dial(t, addr)
	_, err = io.WriteString(c, healthz)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
