package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
)

// registerConfigFlags registers every coderun.Config field on fs as a flag
// of the same name, defaulting to cfg's current values and parsed into cfg.
// `coderun run` and `coderun mcp` share it, so their flags cannot drift.
func registerConfigFlags(fs *flag.FlagSet, cfg *coderun.Config) {
	fs.Uint64Var(&cfg.Fuel, "Fuel", cfg.Fuel, "deterministic compute budget, in fuel units")
	fs.DurationVar(&cfg.ComputeTime, "ComputeTime", cfg.ComputeTime, "guest busy-time budget")
	fs.DurationVar(&cfg.WallTime, "WallTime", cfg.WallTime, "wall-clock ceiling for the run")
	fs.Int64Var(&cfg.MemoryBytes, "MemoryBytes", cfg.MemoryBytes, "cap on the guest's linear memory, in bytes")
	fs.Int64Var(&cfg.MaxOutputBytes, "MaxOutputBytes", cfg.MaxOutputBytes, "cap on logs plus value, in bytes")
	fs.IntVar(&cfg.MaxConcurrentCalls, "MaxConcurrentCalls", cfg.MaxConcurrentCalls, "binding calls in flight per run")
	fs.Int64Var(&cfg.MaxProgramBytes, "MaxProgramBytes", cfg.MaxProgramBytes, "cap on a program's source text, in bytes")
	fs.Int64Var(&cfg.MaxArgumentBytes, "MaxArgumentBytes", cfg.MaxArgumentBytes, "cap on one binding call's argument as JSON text, in bytes")
	fs.StringVar(&cfg.CacheDir, "CacheDir", cfg.CacheDir, `cache of wazero's compiled code of the engine, for faster starts ("" disables it)`)
	fs.IntVar(&cfg.Prewarm, "Prewarm", cfg.Prewarm, "instances kept instantiated ahead of time (0 disables the pool)")
}

// defaultConfig is coderun.DefaultConfig with the compiled engine cached
// under os.UserCacheDir()/coderun, so that every start but the first skips
// compiling it. The library itself writes nothing to disk unless told to.
func defaultConfig() coderun.Config {
	cfg := coderun.DefaultConfig()
	if dir, err := os.UserCacheDir(); err == nil {
		cfg.CacheDir = filepath.Join(dir, "coderun")
	}
	return cfg
}

// upstreamSpec is one --upstream NAME=COMMAND.
type upstreamSpec struct {
	flag string // as given, for error messages
	name string
	argv []string
}

// upstreamFlags collects repeated --upstream flags.
type upstreamFlags []upstreamSpec

// upstreamUsage documents --upstream for both commands.
const upstreamUsage = "an MCP server to bind, as `NAME=COMMAND` (repeatable): COMMAND is started with its stdio as the transport, " +
	"and its tools become the members of the namespace NAME; quote COMMAND's arguments as in a shell"

// String implements flag.Value.
func (u *upstreamFlags) String() string {
	if u == nil {
		return ""
	}
	specs := make([]string, len(*u))
	for i, s := range *u {
		specs[i] = s.flag
	}
	return strings.Join(specs, " ")
}

// Set implements flag.Value.
func (u *upstreamFlags) Set(v string) error {
	name, argv, err := mcp.ParseUpstreamSpec(v)
	if err != nil {
		return err
	}
	*u = append(*u, upstreamSpec{flag: v, name: name, argv: argv})
	return nil
}

// upstreams makes the upstreams of u and checks their names; it starts
// nothing. Each upstream's stderr will be copied to stderr, line by line,
// prefixed with its name. The error names the offending flag.
func (u upstreamFlags) upstreams(stderr io.Writer, logger *slog.Logger) ([]*mcp.Upstream, error) {
	ups := make([]*mcp.Upstream, len(u))
	for i, s := range u {
		ups[i] = mcp.NewCommandUpstream(s.name, s.argv, stderr, logger)
		if err := mcp.CheckNames(ups[:i+1]); err != nil {
			return nil, fmt.Errorf("--upstream %s: %w", s.flag, err)
		}
	}
	return ups, nil
}

// startUpstreams starts ups; on error it closes them all.
func startUpstreams(ctx context.Context, ups []*mcp.Upstream) error {
	if err := mcp.StartAll(ctx, ups); err != nil {
		_ = mcp.CloseAll(ups)
		return fmt.Errorf("--upstream: %w", err)
	}
	return nil
}

// httpFlags are the flags of `coderun mcp` that configure --http.
type httpFlags struct {
	allowedOrigins stringsFlag
	tokenFile      string
	stateless      bool
	idleTimeout    time.Duration
	shutdownGrace  time.Duration
}

// register registers the flags on fs.
func (f *httpFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.allowedOrigins, "allowed-origin", "with --http, a browser `ORIGIN` (scheme://host[:port]) allowed besides loopback ones (repeatable); other origins get 403")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --http, require \"Authorization: Bearer TOKEN\" with TOKEN read from `FILE` (default: $CODERUN_TOKEN); needed on a non-loopback address")
	fs.BoolVar(&f.stateless, "stateless", false, "with --http, serve without sessions, so that any replica behind a load balancer can answer any request")
	fs.DurationVar(&f.idleTimeout, "session-idle-timeout", 10*time.Minute, "with --http, close a session (cancelling its runs) after this long without a request; 0 never")
	fs.DurationVar(&f.shutdownGrace, "shutdown-grace", 30*time.Second, "on SIGTERM or SIGINT, how long the runs in flight may go on before they are cancelled")
}

// options returns the mcp.HTTPOptions for serving on addr. The token comes
// from --token-file, else from the environment variable CODERUN_TOKEN
// (read with getenv); an address that is not loopback requires one.
func (f *httpFlags) options(addr string, getenv func(string) string) (*mcp.HTTPOptions, error) {
	token := getenv("CODERUN_TOKEN")
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return nil, fmt.Errorf("--token-file %s: the file is empty", f.tokenFile)
		}
	}
	if token == "" && !mcp.IsLoopbackAddr(addr) {
		return nil, fmt.Errorf("--http %s listens beyond loopback: anything that reaches it could run code with every upstream's access; "+
			"set a bearer token with --token-file FILE or CODERUN_TOKEN, or listen on localhost", addr)
	}
	if f.idleTimeout < 0 || f.shutdownGrace < 0 {
		return nil, errors.New("--session-idle-timeout and --shutdown-grace must not be negative")
	}
	return &mcp.HTTPOptions{
		AllowedOrigins:     f.allowedOrigins,
		Token:              token,
		Stateless:          f.stateless,
		SessionIdleTimeout: f.idleTimeout,
	}, nil
}

// stringsFlag collects a repeatable string flag.
type stringsFlag []string

// String implements flag.Value.
func (s *stringsFlag) String() string {
	if s == nil {
		return ""
	}
	return strings.Join(*s, " ")
}

// Set implements flag.Value.
func (s *stringsFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}
