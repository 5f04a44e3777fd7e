package deploy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fleetRecord is what happened to one request of the load.
type fleetRecord struct {
	kind    string // the program's kind, or "initialize" for a failed connect
	backend string // the HAProxy backend it went through
	sent    time.Time
	ended   time.Time
	replica string // the X-Replica of the response to the request, "" without one
	session string // the X-Replica of the response to its session's initialize
	status  int    // its HTTP status, 0 without one
	ok      bool   // answered as it must be: the right value or the planned error
	err     string // what went wrong when not ok
	hang    bool   // ended by the test's deadline rather than by an answer
}

// fleetCall collects, from the HTTP transport, the replica and status of
// the response to one tools/call.
type fleetCall struct {
	mu      sync.Mutex
	replica string
	status  int
}

// fleetCallKey is the context key under which a tools/call carries its
// *fleetCall down to the transport.
type fleetCallKey struct{}

// fleetTransport records on each request's fleetCall which replica
// answered it, from HAProxy's X-Replica header: the first response, that
// of initialize when connecting.
type fleetTransport struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (f fleetTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := f.base.RoundTrip(r)
	if c, ok := r.Context().Value(fleetCallKey{}).(*fleetCall); ok && err == nil {
		c.mu.Lock()
		if c.status == 0 {
			c.replica, c.status = resp.Header.Get("X-Replica"), resp.StatusCode
		}
		c.mu.Unlock()
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of the base transport.
func (f fleetTransport) CloseIdleConnections() {
	if c, ok := f.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// fleetHTTPClient returns an HTTP client for the load's clients, each of
// which keeps its connections to HAProxy alive.
func fleetHTTPClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: fleetTransport{base: base}}
}

// fleetLoad drives url with concurrent MCP clients until stopped.
type fleetLoad struct {
	backend string // the HAProxy backend of url
	url     string
	client  *http.Client
	budget  time.Duration // every call's deadline: the run's wall time plus a margin
	maxPer  int           // calls per client at most, whatever the time

	next    atomic.Int64 // the next program's index
	mu      sync.Mutex
	records []fleetRecord
}

// run starts clients workers and returns a function that stops them and
// returns the records, waiting at most wait for the workers.
func (l *fleetLoad) run(clients int) func(wait time.Duration) ([]fleetRecord, error) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() { l.worker(ctx) })
	}
	return func(wait time.Duration) ([]fleetRecord, error) {
		cancel()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(wait):
			return nil, fmt.Errorf("the clients did not stop within %v", wait)
		}
		l.client.CloseIdleConnections()
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.Clone(l.records), nil
	}
}

// add records r.
func (l *fleetLoad) add(r fleetRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
}

// worker is one client: it connects through HAProxy and calls run_code
// until ctx is done, connecting anew after a failed call (its connection
// may be the one that broke).
func (l *fleetLoad) worker(ctx context.Context) {
	var cs *sdk.ClientSession
	var session string // the replica that answered its initialize
	defer func() {
		if cs != nil {
			_ = cs.Close()
		}
	}()
	for range l.maxPer {
		if ctx.Err() != nil {
			return
		}
		if cs == nil {
			var err error
			if cs, session, err = l.connect(); err != nil {
				time.Sleep(20 * time.Millisecond) // the next try, after a pause that bounds the loop
				continue
			}
		}
		if rec := l.call(cs, session, fleetProgramFor(int(l.next.Add(1)))); !rec.ok {
			_ = cs.Close()
			cs = nil
		}
	}
}

// connect opens a client session through HAProxy, recording its failure;
// it returns the replica that answered initialize.
func (l *fleetLoad) connect() (*sdk.ClientSession, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.budget)
	defer cancel()
	call := &fleetCall{}
	sent := time.Now()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "fleet", Version: "1"}, nil).
		Connect(context.WithValue(ctx, fleetCallKey{}, call), &sdk.StreamableClientTransport{Endpoint: l.url, HTTPClient: l.client}, nil)
	if err != nil {
		call.mu.Lock()
		l.add(fleetRecord{kind: "initialize", backend: l.backend, sent: sent, ended: time.Now(), replica: call.replica, status: call.status,
			err: err.Error(), hang: errors.Is(err, context.DeadlineExceeded)})
		call.mu.Unlock()
		return nil, "", err
	}
	call.mu.Lock()
	defer call.mu.Unlock()
	return cs, call.replica, nil
}

// call runs p once in cs, whose initialize session answered, and records
// how it went.
func (l *fleetLoad) call(cs *sdk.ClientSession, session string, p fleetProgram) fleetRecord {
	ctx, cancel := context.WithTimeout(context.Background(), l.budget)
	defer cancel()
	c := &fleetCall{}
	rec := fleetRecord{kind: p.kind, backend: l.backend, session: session, sent: time.Now()}
	res, err := cs.CallTool(context.WithValue(ctx, fleetCallKey{}, c), &sdk.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": p.code}})
	rec.ended = time.Now()
	c.mu.Lock()
	rec.replica, rec.status = c.replica, c.status
	c.mu.Unlock()
	switch {
	case err != nil:
		rec.err, rec.hang = err.Error(), errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil
	default:
		text := fleetText(res)
		rec.ok = res.IsError == p.fails && (text == p.want || (p.fails && strings.Contains(text, p.want)))
		if !rec.ok {
			rec.err = fmt.Sprintf("%s program answered %q (error result: %v), want %q", p.kind, text, res.IsError, p.want)
		}
	}
	l.add(rec)
	return rec
}

// fleetText is the text of a tool result's content, joined by newlines.
func fleetText(res *sdk.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// fleetFigures are the throughput and latency of a phase's load.
type fleetFigures struct {
	Replicas   int     `json:"replicas"`
	Clients    int     `json:"clients"`
	Seconds    float64 `json:"seconds"`
	Runs       int     `json:"runs"`
	Failures   int     `json:"failures"`
	RunsPerSec float64 `json:"runs_per_second"`
	P50Millis  float64 `json:"p50_ms"`
	P99Millis  float64 `json:"p99_ms"`
	// PerReplica is how many of the runs each replica answered.
	PerReplica map[string]int `json:"per_replica"`
	// CPUSeconds is the CPU time the replicas and their upstreams used,
	// and CPUMillisPerRun that per run answered (0 when unknown).
	CPUSeconds      float64 `json:"replicas_cpu_seconds,omitempty"`
	CPUMillisPerRun float64 `json:"replicas_cpu_ms_per_run,omitempty"`
	// HAProxyCPUSeconds and ClientsCPUSeconds are the CPU time HAProxy and
	// this test process (the load's clients) used meanwhile.
	HAProxyCPUSeconds float64 `json:"haproxy_cpu_seconds,omitempty"`
	ClientsCPUSeconds float64 `json:"clients_cpu_seconds,omitempty"`
}

// fleetMeasure returns the figures of records, a load of clients over
// elapsed: the runs answered as they must be, per second, and the
// percentiles of their latency.
func fleetMeasure(records []fleetRecord, replicas, clients int, elapsed time.Duration) fleetFigures {
	f := fleetFigures{Replicas: replicas, Clients: clients, Seconds: elapsed.Seconds(), PerReplica: map[string]int{}}
	var lat []time.Duration
	for _, r := range records {
		if !r.ok {
			f.Failures++
			continue
		}
		f.Runs++
		f.PerReplica[r.replica]++
		lat = append(lat, r.ended.Sub(r.sent))
	}
	f.RunsPerSec = float64(f.Runs) / elapsed.Seconds()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	f.P50Millis, f.P99Millis = pct(0.50), pct(0.99)
	return f
}
