package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
)

const mcpUsage = `usage: coderun mcp [flags] [--config FILE] [--upstream NAME=COMMAND ...]

Serves a Model Context Protocol server with one tool, run_code, that runs a
TypeScript program in which every upstream MCP server is a namespace of async
functions, one per tool (await NAME.tool({...})). run_code's description
holds the TypeScript declarations of every upstream tool.

Upstreams come from --config FILE, the mcpServers JSON that MCP clients
read (a "command" with "args" and "env" is started as a subprocess speaking
MCP over stdio; a "url" with "headers" is a streamable HTTP endpoint), and
from --upstream NAME=COMMAND. Each server's NAME is its namespace's global.

The server speaks MCP over standard input and output, or over streamable HTTP
with --http. The budget flags (--wall-time, --memory, …) set the budgets of
every run; --wall-time and --compute-time default to 40s here, so that a run
ends with coderun's message before a client's usual 60 s request timeout.
--max-runs, --max-queued-runs and --max-queue-wait bound the runs of all
clients together: a call beyond them is refused as "server busy".

Over HTTP, requests from a browser origin other than a loopback one get 403
unless the origin is allowed with --allowed-origin. With --token-file FILE (or
the CODERUN_TOKEN environment variable) every request must carry
"Authorization: Bearer TOKEN"; --http on an address that is not loopback
requires a token. GET /healthz answers 200 while the process is up, GET
/readyz 200 until it is draining, GET /metrics the Prometheus metrics (behind
the token; --metrics-addr serves them on a port of their own, in stdio mode
too). On SIGTERM or SIGINT the server drains: /readyz and new requests get
503 (a load balancer sends them elsewhere) while the runs in flight finish for
--shutdown-grace; then it cancels those still going and exits.

Logs go to standard error (--log-format text or json): at --log-level info,
one line per run (its id, which the client also gets in the result's _meta,
session, outcome, budget and usage) and upstream starts, deaths and
restarts. No program text, argument value or failure message is logged
unless --log-programs is given.

Flags:
`

// mcpOptions are the flags of `coderun mcp`.
type mcpOptions struct {
	cfg       coderun.Config
	upstreams upstreamSources
	httpAddr  string
	http      httpFlags
	logs      logFlags
	runs      runFlags
}

// The budgets `coderun mcp` sets by default instead of coderun's: a run
// ends with coderun's own message (and a queued call is refused) before
// the common client request timeout, the TypeScript SDK's 60 s, so that
// the model reads what happened rather than the client's timeout. Runs
// that need longer need the flags raised, and a client whose timeout is
// longer (or resets on progress).
const (
	mcpWallTime      = 40 * time.Second
	mcpComputeTime   = 40 * time.Second
	clientTimeout    = 60 * time.Second // the TypeScript SDK's DEFAULT_REQUEST_TIMEOUT_MSEC
	mcpMaxQueueWait  = 10 * time.Second
	mcpQueuedPerSlot = 4 // the default queue is this many calls per --max-runs
	// mcpStartupReserve is what a call may spend besides its run and its
	// queue wait (restarting an upstream, compiling) within clientTimeout.
	mcpStartupReserve = 5 * time.Second
)

// mcpConfig is the default Config of `coderun mcp`: defaultConfig with
// the wall and compute time of a run ending before clientTimeout.
func mcpConfig() coderun.Config {
	cfg := defaultConfig()
	cfg.WallTime = mcpWallTime
	cfg.ComputeTime = mcpComputeTime
	return cfg
}

// runFlags are the flags of `coderun mcp` that bound the runs of all
// clients together.
type runFlags struct {
	maxRuns   int
	maxQueued int
	queueWait time.Duration
	maxConns  int
	// recordDir and recordMax are --record-dir and --record-max-files.
	recordDir string
	recordMax int
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.maxRuns = mcp.DefaultMaxRuns()
	fs.IntVar(&f.maxRuns, "max-runs", f.maxRuns, "runs at once across all clients (default: twice the number of CPUs Go uses)")
	fs.IntVar(&f.maxQueued, "max-queued-runs", mcpQueuedPerSlot*f.maxRuns, "calls that may wait for a run to finish when --max-runs are going; beyond, a call is refused at once (server busy; over HTTP 503 with Retry-After)")
	fs.DurationVar(&f.queueWait, "max-queue-wait", mcpMaxQueueWait, "how long a call may wait in the queue before it is refused (server busy)")
	fs.IntVar(&f.maxConns, "max-connections", mcp.DefaultMaxConnections, "with --http, connections served at once; one beyond gets 503 and is closed")
	fs.StringVar(&f.recordDir, "record-dir", "", "record every run_code call: write its trace to `DIR`/RUN_ID.json (RUN_ID is the run's _meta id and log run_id), for coderun replay")
	fs.IntVar(&f.recordMax, "record-max-files", mcp.DefaultRecordMaxFiles, "with --record-dir, the traces kept: past it, the oldest this server wrote is removed (older files are the operator's)")
}

// options returns the mcp.ServerOptions fields of the flags.
func (f *runFlags) options(o *mcp.ServerOptions) error {
	if f.maxRuns < 1 || f.maxQueued < 0 || f.queueWait <= 0 {
		return fmt.Errorf("--max-runs must be at least 1, --max-queued-runs at least 0 and --max-queue-wait positive; got %d, %d and %v",
			f.maxRuns, f.maxQueued, f.queueWait)
	}
	if f.maxConns < 1 {
		return fmt.Errorf("--max-connections must be at least 1, got %d", f.maxConns)
	}
	if f.recordMax < 1 {
		return fmt.Errorf("--record-max-files must be at least 1, got %d", f.recordMax)
	}
	o.MaxRuns, o.MaxQueuedRuns, o.MaxQueueWait = f.maxRuns, f.maxQueued, f.queueWait
	o.RecordDir, o.RecordMaxFiles = f.recordDir, f.recordMax
	if f.maxQueued == 0 {
		o.MaxQueuedRuns = -1 // none
	}
	return nil
}

// newMCPCommand returns `coderun mcp`, parsing into o.
func newMCPCommand(o *mcpOptions) *command {
	c := newCommand("mcp", mcpUsage)
	c.footer = unitsNote
	o.upstreams.register(c.fs)
	c.fs.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP on `ADDR` (for example localhost:8080) instead of stdio")
	o.http.register(c.fs)
	o.logs.register(c.fs)
	o.runs.register(c.fs)
	registerConfigFlags(c.fs, &o.cfg)
	return c
}

// runMCP is `coderun mcp`. It returns the exit status: 0 when the client
// disconnected or the process was interrupted (or for --help), 1 when
// serving failed, 2 on misuse (bad flags, an unreadable --config file, an
// upstream name that cannot be a binding, an upstream that cannot be
// started, an invalid configuration).
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := mcpOptions{cfg: mcpConfig()}
	c := newMCPCommand(&o)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.fs.NArg() != 0 {
		fmt.Fprintf(stderr, "coderun mcp: unexpected argument %q\n", c.fs.Arg(0))
		c.misuse(stderr)
		return 2
	}
	srvOpts, httpOpts, err := o.options(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}
	ups, err := o.upstreams.upstreams(stderr, srvOpts.Logger)
	if err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt, err := newRuntime(o.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}
	defer func() { _ = rt.Close(context.Background()) }()
	if err := startUpstreams(ctx, ups); err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}
	defer func() { _ = mcp.CloseAll(ups) }()
	srv, err := mcp.NewServer(rt, ups, srvOpts)
	if err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}
	if o.logs.metricsAddr != "" {
		stopMetrics, err := serveMetrics(o.logs.metricsAddr, srv.MetricsHandler(), stderr)
		if err != nil {
			fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
			return 2
		}
		defer stopMetrics()
	}

	if httpOpts != nil {
		h, herr := srv.HTTPHandler(httpOpts)
		if herr != nil {
			fmt.Fprintf(stderr, "coderun mcp: %v\n", herr)
			return 2
		}
		err = serveHTTP(ctx, o.httpAddr, h, &mcp.ConnOptions{MaxConnections: o.runs.maxConns}, o.http.shutdownGrace, stderr)
	} else {
		err = srv.Serve(ctx, srv.StdioTransport(stdin, stdout))
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 1
	}
	return 0
}

// options returns the server's and, with --http, the HTTP handler's
// options from the flags, logging to stderr.
func (o *mcpOptions) options(stderr io.Writer) (*mcp.ServerOptions, *mcp.HTTPOptions, error) {
	srvOpts := &mcp.ServerOptions{Version: version(), MaxProgramBytes: o.cfg.MaxProgramBytes, MaxInputBytes: o.cfg.MaxInputBytes,
		MaxOutputBytes: o.cfg.MaxOutputBytes, LogPrograms: o.logs.programs}
	if err := o.runs.options(srvOpts); err != nil {
		return nil, nil, err
	}
	var httpOpts *mcp.HTTPOptions
	if o.httpAddr != "" {
		var err error
		if httpOpts, err = o.http.options(o.httpAddr, os.Getenv); err != nil {
			return nil, nil, err
		}
	}
	logger, err := o.logs.logger(stderr)
	if err != nil {
		return nil, nil, err
	}
	srvOpts.Logger = logger
	return srvOpts, httpOpts, nil
}

// serveHTTP serves h on addr, with the connection bounds of conns, until
// ctx is done, then drains: with the listener still open, /readyz answers
// 503 and new MCP requests 503, so that a load balancer's health checks see
// the replica leave and its retries go elsewhere, while the requests in
// flight finish for grace; then it cancels the runs still going, stops
// accepting connections and closes what is left.
func serveHTTP(ctx context.Context, addr string, h *mcp.HTTPHandler, conns *mcp.ConnOptions, grace time.Duration, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "coderun mcp: serving MCP over streamable HTTP at http://%s/\n", ln.Addr())
	srv, limited := h.HTTPServer(ln, conns)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(limited) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "coderun mcp: shutting down: letting the runs in flight finish for up to %v\n", grace)
	graceCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := h.Shutdown(graceCtx); err != nil {
		fmt.Fprintf(stderr, "coderun mcp: the shutdown grace period ended: cancelled the runs still going\n")
	}
	// Shutdown closes the listener, then waits for the connections to go
	// idle, which the handler's drain has brought about.
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelClose()
	if srv.Shutdown(closeCtx) != nil {
		_ = srv.Close()
	}
	<-done
	return nil
}
