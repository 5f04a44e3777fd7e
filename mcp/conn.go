package mcp

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// The defaults of ConnOptions.
const (
	DefaultMaxConnections    = 64
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
)

// ConnOptions bound the connections of the http.Server that HTTPServer
// returns. Zero fields take the defaults above.
type ConnOptions struct {
	// MaxConnections is how many connections are served at once; one
	// accepted beyond gets 503 with Retry-After and is closed at once.
	MaxConnections int
	// ReadHeaderTimeout bounds reading a request's header.
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds reading a POST's body, from the start of the
	// request: a client that stalls its body has its connection closed.
	BodyTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that waits this long for
	// its next request.
	IdleTimeout time.Duration
}

// HTTPServer returns an http.Server that serves h with the bounds of opts
// (nil for the defaults), and ln limited to opts.MaxConnections, to serve
// it on: srv.Serve(limited). Its responses are not bounded in time, since
// a run's response streams for as long as the run goes (bounded by the
// run's WallTime).
func (h *HTTPHandler) HTTPServer(ln net.Listener, opts *ConnOptions) (srv *http.Server, limited net.Listener) {
	var o ConnOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	srv = &http.Server{
		Handler:           bodyDeadline(h, o.BodyTimeout),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
	}
	return srv, &limitListener{Listener: ln, max: o.MaxConnections}
}

// bodyDeadline returns next behind a read deadline on every request with
// a body, timeout from the request's start, lifted once the body has been
// read: a deadline meant for the body must not fail the background read
// with which net/http watches a connection during a long response.
func bodyDeadline(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline at the end of the
// body.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// limitListener serves at most max connections at once; it answers one
// accepted beyond with 503 and closes it, so that a client learns at once
// rather than waiting in the kernel's backlog.
type limitListener struct {
	net.Listener
	max int

	mu      sync.Mutex
	open    int
	refused int
}

// Accept implements net.Listener.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.open >= l.max {
			l.refused++
			l.mu.Unlock()
			l.refuse(c)
			continue
		}
		l.open++
		l.mu.Unlock()
		return &limitConn{Conn: c, l: l}, nil
	}
}

// refuse answers c with 503 and closes it; the write cannot block for
// long (a new connection's send buffer is empty, and a deadline bounds it).
func (l *limitListener) refuse(c net.Conn) {
	body := fmt.Sprintf("Service Unavailable: server busy: %d connections open, the limit (--max-connections); retry later\n", l.max)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"+
		"Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	_ = c.Close()
}

// counts returns the connections open and refused so far.
func (l *limitListener) counts() (open, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.refused
}

// limitConn gives its slot back when closed.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

// Close implements net.Conn.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return err
}
