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
	"time"
)

// logFlags are the logging and metrics flags of `coderun mcp`.
type logFlags struct {
	format      string
	level       slog.Level
	programs    bool
	usage       bool // --log-usage, kept as --log-level info
	metricsAddr string
}

func (f *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.format, "log-format", "text", "write log lines to standard error in `FORMAT`: text (key=value) or json")
	fs.TextVar(&f.level, "log-level", slog.LevelInfo, "log at `LEVEL` and above: debug (also each binding call), info (one line per run, upstream starts and deaths), warn or error")
	fs.BoolVar(&f.programs, "log-programs", false, "also log each run's program and failure message, and at debug each binding call's arguments and error (without it, none is logged)")
	fs.BoolVar(&f.usage, "log-usage", false, "the same as --log-level info (kept for compatibility: each run's line has its usage)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "also serve the Prometheus metrics at http://`ADDR`/metrics, without the token (with --http they are at /metrics of its address too, behind the token)")
}

// logger returns the logger the flags ask for, writing to w.
func (f *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	level := f.level
	if f.usage {
		level = min(level, slog.LevelInfo)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f.format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, got %q", f.format)
}

// metricsHeaderTimeout bounds how long the metrics listener waits for a
// request's headers.
const metricsHeaderTimeout = 10 * time.Second

// serveMetrics serves h at /metrics on addr until the returned function is
// called.
func serveMetrics(addr string, h http.Handler, stderr io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsHeaderTimeout}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "coderun mcp: serving metrics: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "coderun mcp: serving metrics at http://%s/metrics\n", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
