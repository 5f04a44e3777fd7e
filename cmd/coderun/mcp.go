package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
)

const mcpUsage = `usage: coderun mcp [flags] --upstream NAME=COMMAND [--upstream ...]

Serves a Model Context Protocol server with one tool, run_code, that runs a
TypeScript program in which every upstream MCP server is a namespace of async
functions, one per tool (await NAME.tool({...})). The upstreams are started as
subprocesses speaking MCP over stdio. run_code's description holds the
TypeScript declarations of every upstream tool.

The server speaks MCP over standard input and output, or over streamable HTTP
with --http. The Config flags set the budgets of every run.

Over HTTP, requests from a browser origin other than a loopback one get 403
unless the origin is allowed with --allowed-origin. With --token-file FILE (or
the CODERUN_TOKEN environment variable) every request must carry
"Authorization: Bearer TOKEN"; --http on an address that is not loopback
requires a token. GET /healthz answers 200 while the process is up, GET
/readyz 200 until it is draining. On SIGTERM or SIGINT the server stops
accepting requests, lets the runs in flight finish for --shutdown-grace, then
cancels them.

Flags:
`

// runMCP is `coderun mcp`. It returns the exit status: 0 when the client
// disconnected or the process was interrupted, 1 when serving failed, 2 on
// misuse (bad flags, an upstream name that cannot be a binding, an upstream
// that cannot be started, an invalid configuration).
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg := defaultConfig()
	fs := flag.NewFlagSet("coderun mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, mcpUsage); fs.PrintDefaults() }
	var upstreams upstreamFlags
	fs.Var(&upstreams, "upstream", upstreamUsage)
	httpAddr := fs.String("http", "", "serve streamable HTTP on `ADDR` (for example localhost:8080) instead of stdio")
	var hf httpFlags
	hf.register(fs)
	logUsage := fs.Bool("log-usage", false, "log what each run cost (fuel, times, peak memory, calls, log bytes) to standard error")
	registerConfigFlags(fs, &cfg)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	var httpOpts *mcp.HTTPOptions
	if *httpAddr != "" {
		var err error
		if httpOpts, err = hf.options(*httpAddr, os.Getenv); err != nil {
			fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
			return 2
		}
	}
	level := slog.LevelWarn
	if *logUsage {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ups, err := upstreams.upstreams(stderr, logger)
	if err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt, err := coderun.New(cfg)
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
	srv, err := mcp.NewServer(rt, ups, &mcp.ServerOptions{Logger: logger, Version: version(), MaxProgramBytes: cfg.MaxProgramBytes})
	if err != nil {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 2
	}

	if httpOpts != nil {
		h, herr := srv.HTTPHandler(httpOpts)
		if herr != nil {
			fmt.Fprintf(stderr, "coderun mcp: %v\n", herr)
			return 2
		}
		err = serveHTTP(ctx, *httpAddr, h, hf.shutdownGrace, stderr)
	} else {
		err = srv.Serve(ctx, srv.StdioTransport(stdin, stdout))
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "coderun mcp: %v\n", err)
		return 1
	}
	return 0
}

// serveHTTP serves h on addr until ctx is done, then drains: it stops
// accepting connections, lets the requests in flight finish for grace,
// cancels the runs still going, and closes what is left.
func serveHTTP(ctx context.Context, addr string, h *mcp.HTTPHandler, grace time.Duration, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "coderun mcp: serving MCP over streamable HTTP at http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "coderun mcp: shutting down: letting the runs in flight finish for up to %v\n", grace)
	// Shutdown closes the listener at once, then waits for the
	// connections to go idle, which the handler's drain brings about.
	closed := make(chan struct{})
	go func() {
		_ = srv.Shutdown(context.Background())
		close(closed)
	}()
	graceCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := h.Shutdown(graceCtx); err != nil {
		fmt.Fprintf(stderr, "coderun mcp: the shutdown grace period ended: cancelled the runs still going\n")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		_ = srv.Close()
		<-closed
	}
	<-done
	return nil
}

// version is the module version the binary was built from, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
