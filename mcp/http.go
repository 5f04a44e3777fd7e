package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures Server.HTTPHandler. The zero value serves
// sessions that never expire, without authentication, to loopback origins
// only.
type HTTPOptions struct {
	// AllowedOrigins are the browser origins ("https://app.example.com",
	// scheme://host[:port]) whose requests are served besides loopback ones
	// (http://localhost:3000, http://127.0.0.1, http://[::1]). A request
	// with any other Origin header gets 403, as the MCP transport
	// specification requires; a request without one (not from a browser)
	// is served.
	AllowedOrigins []string
	// Token, when not empty, is the bearer token every request but the
	// health checks must carry ("Authorization: Bearer TOKEN"); a missing
	// or wrong token gets 401 with a WWW-Authenticate challenge
	// (`Bearer realm="coderun"`, with error="invalid_token" for a wrong
	// one). It is compared in constant time.
	Token string
	// Stateless serves streamable HTTP without sessions: every request
	// stands alone, so any replica behind a load balancer can answer it.
	// Server-to-client requests are impossible, and notifications
	// (progress) reach the client only on the response to its request.
	Stateless bool
	// SessionIdleTimeout closes a session that received no request for
	// this long (a request in flight keeps it alive), cancelling its runs;
	// 0 keeps idle sessions forever.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds the sessions open at once: a request that would
	// open one more gets 503 with Retry-After. Each session holds about
	// 16 KiB until it is deleted or idles out, so without a bound a client
	// sending only initialize requests grew the server by 469 MiB in
	// 30,000 requests. 0 means no bound.
	MaxSessions int
}

// HTTPHandler serves a Server over MCP's streamable HTTP transport, at any
// path but /healthz, /readyz (503 while draining or while the Server's
// runs and queue are full) and /metrics (the Server's metrics, see
// MetricsHandler, behind the token when there is one), with the checks of
// HTTPOptions. It counts the requests it answers by status code
// (coderun_http_requests_total). A DELETE
// of a session cancels its runs at once, so that the session closes
// promptly. A tools/call that arrives while the Server's runs and queue are
// full gets 503 with Retry-After. See Shutdown for draining, and
// HTTPServer for the bounds on connections.
type HTTPHandler struct {
	s       *Server
	opts    HTTPOptions
	origins map[string]bool // normalised AllowedOrigins
	limit   int64           // the largest body read, RequestLimit(MaxProgramBytes, MaxInputBytes)
	sdk     http.Handler
	mcp     http.Handler // serveMCP behind authentication, if any
	metrics http.Handler // the Server's metrics behind authentication, if any
	handler http.Handler // route, counting responses

	mu       sync.Mutex
	draining bool
	inflight int           // MCP POSTs being served
	drained  chan struct{} // closed when draining and inflight is 0
	sessions map[string]*httpSession
}

// httpSession is the idle-timeout state of one session.
type httpSession struct {
	ss     *sdk.ServerSession
	active int         // POSTs in flight
	timer  *time.Timer // nil without an idle timeout
}

// HTTPHandler returns a handler that serves s over streamable HTTP. It
// fails when an allowed origin is not of the form scheme://host[:port].
func (s *Server) HTTPHandler(opts *HTTPOptions) (*HTTPHandler, error) {
	h := &HTTPHandler{s: s, origins: map[string]bool{}, limit: RequestLimit(s.maxProgramBytes, s.maxInputBytes),
		drained: make(chan struct{}), sessions: map[string]*httpSession{}}
	if opts != nil {
		h.opts = *opts
	}
	for _, o := range h.opts.AllowedOrigins {
		norm, err := normaliseOrigin(o)
		if err != nil {
			return nil, err
		}
		h.origins[norm] = true
	}
	h.sdk = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.server }, &sdk.StreamableHTTPOptions{
		Logger:    sdkLogger(s.logger),
		Stateless: h.opts.Stateless,
		// Bodies are bounded by limitBody first, which answers a program
		// too large as a tool error; this is a backstop.
		MaxRequestBodyBytes: h.limit,
	})
	h.mcp = http.HandlerFunc(h.serveMCP)
	h.metrics = s.MetricsHandler()
	if h.opts.Token != "" {
		h.mcp = requireToken(h.opts.Token, h.mcp)
		h.metrics = requireToken(h.opts.Token, h.metrics)
	}
	h.handler = s.metrics.instrument(http.HandlerFunc(h.route))
	return h, nil
}

// normaliseOrigin returns origin as scheme://host[:port] in lower case, or
// an error when it is not one.
func normaliseOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("origin %q is not of the form scheme://host[:port]", origin)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// originAllowed reports whether a request with this Origin header may be
// served: none, a loopback origin, or an allowed one.
func (h *HTTPHandler) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	norm, err := normaliseOrigin(origin)
	if err != nil {
		return false // "null", garbage
	}
	if h.origins[norm] {
		return true
	}
	u, _ := url.Parse(norm)
	return IsLoopbackHost(u.Hostname())
}

// IsLoopbackHost reports whether host (a name or an IP address, without a
// port) is localhost or a loopback address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// IsLoopbackAddr reports whether a listen address (host:port) binds only
// loopback interfaces; ":8080" and "0.0.0.0:8080" bind them all.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return host != "" && IsLoopbackHost(host)
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.handler.ServeHTTP(w, r)
}

// route serves r by its path.
func (h *HTTPHandler) route(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); !h.originAllowed(origin) {
		http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed (loopback origins are; add others with --allowed-origin)", origin), http.StatusForbidden)
		return
	}
	switch r.URL.Path {
	case "/healthz":
		_, _ = io.WriteString(w, "ok\n")
		return
	case "/readyz":
		h.readyz(w)
		return
	case "/metrics":
		h.metrics.ServeHTTP(w, r)
		return
	}
	h.mcp.ServeHTTP(w, r)
}

// readyz answers the readiness check: 200, or 503 while draining or
// while the runs and the queue are full (with Retry-After), so that a load
// balancer sends new calls to another replica until this one has room.
func (h *HTTPHandler) readyz(w http.ResponseWriter) {
	switch {
	case !h.Ready():
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	case h.s.limiter.full():
		h.retryAfter(w)
		http.Error(w, "busy: "+h.s.limiter.fullError().Error(), http.StatusServiceUnavailable)
	default:
		_, _ = io.WriteString(w, "ready\n")
	}
}

// retryAfter sets Retry-After to the queue's wait, in whole seconds (at
// least 1): by then a run has finished or a queued call given up.
func (h *HTTPHandler) retryAfter(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(h.s.limiter.wait.Seconds())))))
}

// Ready reports whether the handler accepts MCP requests: true until
// Shutdown. (/readyz also fails while the runs and the queue are full.)
func (h *HTTPHandler) Ready() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.draining
}

// serveMCP serves an authenticated MCP request.
func (h *HTTPHandler) serveMCP(w http.ResponseWriter, r *http.Request) {
	if !h.enter(r.Method == http.MethodPost) {
		w.Header().Set("Connection", "close")
		http.Error(w, "Service Unavailable: the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	if r.Method == http.MethodPost {
		defer h.leave()
		if !h.limitBody(w, r) || h.refuseBusy(w, r) {
			return
		}
	}
	id := r.Header.Get("Mcp-Session-Id")
	switch {
	case h.opts.Stateless:
		h.sdk.ServeHTTP(w, r)
	case r.Method == http.MethodDelete && id != "":
		// The session's Close waits for its handlers: cancel its runs
		// first, so that it answers at once.
		h.forget(id)
		h.s.runs.cancelSession(id, ErrSessionDeleted)
		h.sdk.ServeHTTP(w, r)
	case id != "":
		release := h.touch(id, r.Method == http.MethodPost)
		defer release()
		h.sdk.ServeHTTP(w, r)
	default:
		if r.Method == http.MethodPost && h.refuseSession(w) {
			return
		}
		h.sdk.ServeHTTP(w, r)
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			h.track(id)
		}
	}
}

// refuseSession answers 503 when MaxSessions sessions are open, and
// reports whether it did. Concurrent requests may open a few more, at most
// one per connection.
func (h *HTTPHandler) refuseSession(w http.ResponseWriter) bool {
	h.mu.Lock()
	n := len(h.sessions)
	h.mu.Unlock()
	if h.opts.MaxSessions <= 0 || n < h.opts.MaxSessions {
		return false
	}
	w.Header().Set("Retry-After", "60")
	http.Error(w, fmt.Sprintf("Service Unavailable: %d sessions are open, the server's limit (--max-sessions); "+
		"delete a session you no longer use, or retry later", n), http.StatusServiceUnavailable)
	return true
}

// enter counts an MCP POST in flight; it reports false when draining.
func (h *HTTPHandler) enter(post bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining {
		return false
	}
	if post {
		h.inflight++
	}
	return true
}

func (h *HTTPHandler) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inflight--
	if h.draining && h.inflight == 0 {
		close(h.drained)
	}
}

// limitBody makes sure r's body is at most h.limit bytes. It answers a
// larger body itself, reading it through an envelopeScanner (never more
// than four times the limit, and never keeping it) to find its id: a
// tools/call gets a tool error (the program is too large), anything else
// (or a body declared over four times the limit) 413.
func (h *HTTPHandler) limitBody(w http.ResponseWriter, r *http.Request) bool {
	if r.ContentLength >= 0 && r.ContentLength <= h.limit {
		return true
	}
	s := &envelopeScanner{}
	if r.ContentLength < 0 { // unknown length: keep up to the limit
		var buf bytes.Buffer
		n, err := io.Copy(&buf, io.LimitReader(r.Body, h.limit+1))
		if err != nil {
			http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
			return false
		}
		if n <= h.limit {
			r.Body = io.NopCloser(&buf)
			r.ContentLength = n
			return true
		}
		_, _ = s.Write(buf.Bytes())
	}
	if r.ContentLength <= 4*h.limit { // beyond, not worth reading: answered without its id
		_, _ = io.Copy(s, io.LimitReader(r.Body, 4*h.limit-s.size))
	}
	reply, isCall := oversizeReply(s, h.limit, h.s.maxProgramBytes, h.s.maxInputBytes)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	if isCall {
		w.WriteHeader(http.StatusOK)
	} else {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	}
	_, _ = w.Write(reply)
	return false
}

// refuseBusy answers a tools/call with 503 and Retry-After when the
// server's runs and queue are full, so that a client can back off before
// any session reads the call; it reports whether it answered. It reads the
// body (already bounded by limitBody) only when the server is full. A call
// that finds the server full later, in the session, gets the same message
// as a tool error.
func (h *HTTPHandler) refuseBusy(w http.ResponseWriter, r *http.Request) bool {
	if !h.s.limiter.full() {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.limit))
	if err != nil {
		http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
		return true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	sc := &envelopeScanner{}
	_, _ = sc.Write(body)
	if !sc.isToolCall() {
		return false
	}
	h.s.metrics.refused.WithLabelValues(refusedQueueFull).Inc()
	h.retryAfter(w)
	http.Error(w, "Service Unavailable: "+h.s.limiter.fullError().Error(), http.StatusServiceUnavailable)
	return true
}

// track starts the idle timer of a new session, and forgets the session
// when it closes.
func (h *HTTPHandler) track(id string) {
	var ss *sdk.ServerSession
	for s := range h.s.server.Sessions() {
		if s.ID() == id {
			ss = s
			break
		}
	}
	if ss == nil {
		return // it did not initialise, and is gone
	}
	h.mu.Lock()
	if _, ok := h.sessions[id]; ok {
		h.mu.Unlock()
		return
	}
	st := &httpSession{ss: ss}
	if d := h.opts.SessionIdleTimeout; d > 0 {
		st.timer = time.AfterFunc(d, func() { h.expire(id, st) })
	}
	h.sessions[id] = st
	h.mu.Unlock()
	go func() {
		_ = ss.Wait()
		h.forget(id)
	}()
}

// touch marks a request of session id: a POST pauses its idle timer until
// the returned function is called; any other request restarts it.
func (h *HTTPHandler) touch(id string, post bool) (release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.sessions[id]
	if st == nil || st.timer == nil {
		return func() {}
	}
	if !post {
		if st.active == 0 {
			st.timer.Reset(h.opts.SessionIdleTimeout)
		}
		return func() {}
	}
	st.active++
	st.timer.Stop()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		st.active--
		if st.active == 0 && h.sessions[id] == st {
			st.timer.Reset(h.opts.SessionIdleTimeout)
		}
	}
}

// expire closes session id after its idle timeout, cancelling its runs
// first (Close waits for them).
func (h *HTTPHandler) expire(id string, st *httpSession) {
	h.mu.Lock()
	if h.sessions[id] != st || st.active > 0 {
		h.mu.Unlock()
		return
	}
	delete(h.sessions, id)
	h.mu.Unlock()
	if n := h.s.runs.cancelSession(id, ErrSessionIdle); n > 0 {
		h.s.logger.Info("cancelled the runs of an idle session", "session", id, "runs", n)
	}
	_ = st.ss.Close()
}

// forget drops session id's idle timer.
func (h *HTTPHandler) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st := h.sessions[id]; st != nil {
		if st.timer != nil {
			st.timer.Stop()
		}
		delete(h.sessions, id)
	}
}

// Shutdown drains the handler: from now on MCP requests get 503 and
// /readyz fails; it waits for the POSTs in flight to finish until ctx is
// done, then cancels the runs still going (with ErrShuttingDown) and waits
// for their POSTs to end, up to abortWait more. Finally it closes every
// session of the server, which ends their GET streams. It returns
// ctx.Err() when runs had to be cancelled.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if !h.draining {
		h.draining = true
		if h.inflight == 0 {
			close(h.drained)
		}
	}
	h.mu.Unlock()
	var err error
	select {
	case <-h.drained:
	case <-ctx.Done():
		err = ctx.Err()
		n := h.s.runs.cancelAll(ErrShuttingDown)
		h.s.logger.Warn("cancelled the runs still going at the end of the shutdown grace period", "runs", n)
		select {
		case <-h.drained:
		case <-time.After(abortWait):
		}
	}
	h.closeSessions()
	h.mu.Lock()
	for id, st := range h.sessions {
		if st.timer != nil {
			st.timer.Stop()
		}
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	return err
}

// closeSessions closes every session of the server, concurrently, waiting
// up to abortWait: a session's Close waits for its handlers.
func (h *HTTPHandler) closeSessions() {
	var wg sync.WaitGroup
	for ss := range h.s.server.Sessions() {
		wg.Go(func() { _ = ss.Close() })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(abortWait):
	}
}

// abortWait bounds how long Shutdown waits for cancelled runs to end.
const abortWait = 5 * time.Second
