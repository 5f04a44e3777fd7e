package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun/hostcalls"
)

// Dialer makes a new transport to an upstream MCP server. An Upstream calls
// it for its first start and again for every restart, so each call must
// yield a fresh connection (for a subprocess: a fresh process).
type Dialer func(ctx context.Context) (sdk.Transport, error)

// ErrClosed is returned by Upstream.Start after Upstream.Close.
var ErrClosed = errors.New("mcp: upstream closed")

// NotRunningError is how a call to an upstream that is not running fails:
// its message is `upstream "NAME" is not running: REASON`.
type NotRunningError struct {
	// Upstream is the upstream's name.
	Upstream string
	// Reason says why: how the server died, or why it could not be started.
	Reason error
}

// Error implements error.
func (e *NotRunningError) Error() string {
	return fmt.Sprintf("upstream %q is not running: %v", e.Upstream, e.Reason)
}

// Unwrap returns e.Reason.
func (e *NotRunningError) Unwrap() error { return e.Reason }

// Upstream is one MCP server that coderun uses as a client. It is started by
// Start, which lists its tools (following pagination); Call calls a tool.
// When the server dies (its process exits, its connection breaks), calls
// fail with a *NotRunningError and the next Start restarts it. Start and
// Call are safe for concurrent use.
type Upstream struct {
	name   string
	dial   Dialer
	logger *slog.Logger
	stderr *stderrTail // nil unless the upstream is a command

	mu       sync.Mutex
	cur      *session    // the current or last session; nil before the first start
	tools    []*sdk.Tool // from the last successful listing, callable ones
	taskOnly []string    // from the last successful listing, tools that require tasks
	failure  error       // why the last start failed, or nil
	starts   int
	closed   bool

	progress  sync.Map     // progress token → func(*sdk.ProgressNotificationParams), per call in flight
	nextToken atomic.Int64 // for the progress tokens of calls
}

// session is one connection to the server, watched for its end.
type session struct {
	cs     *sdk.ClientSession
	conn   *sniffConn
	stale  atomic.Bool   // the server said its tool list changed
	done   chan struct{} // closed once the connection has ended
	reason error         // why it ended; set before done is closed
}

func (s *session) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// NewUpstream returns an upstream named name (the namespace's global in a
// program) that connects with dial. It starts nothing: call Start. A nil
// logger discards the upstream's diagnostics.
func NewUpstream(name string, dial Dialer, logger *slog.Logger) *Upstream {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Upstream{name: name, dial: dial, logger: logger}
}

// commandGrace is how long closing a command upstream waits for it to exit
// after closing its stdin, and again after SIGTERM, before killing it.
const commandGrace = 2 * time.Second

// NewCommandUpstream returns an upstream that runs argv (a program and its
// arguments) as a subprocess speaking MCP over its stdin and stdout. Each
// line the process writes to its stderr is copied to stderr (when not nil)
// prefixed with "[name] ". When the process fails to start, or dies, the
// error says how it exited, and quotes the last line of its stderr that
// reads like an error, if any (for a death: written since it started
// serving; its last line is usually unrelated, such as a startup banner).
func NewCommandUpstream(name string, argv []string, stderr io.Writer, logger *slog.Logger) *Upstream {
	return NewCommandUpstreamEnv(name, argv, nil, stderr, logger)
}

// NewCommandUpstreamEnv is NewCommandUpstream with env, "KEY=value" entries,
// as the process's environment (as exec.Cmd.Env: nil inherits this
// process's).
func NewCommandUpstreamEnv(name string, argv, env []string, stderr io.Writer, logger *slog.Logger) *Upstream {
	tail := &stderrTail{prefix: "[" + name + "] ", out: stderr}
	argv = append([]string(nil), argv...)
	env = slices.Clone(env)
	u := NewUpstream(name, func(ctx context.Context) (sdk.Transport, error) {
		if len(argv) == 0 {
			return nil, errors.New("empty command")
		}
		// Not exec.CommandContext: the process must outlive the ctx of the
		// run that (re)started it.
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		tail.reset()
		cmd.Stderr = tail
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: commandGrace}, nil
	}, logger)
	u.stderr = tail
	return u
}

// Name returns the upstream's name.
func (u *Upstream) Name() string { return u.name }

// Tools returns the tools of the last successful listing (nil before the
// first successful Start), without those that require tasks (see
// TaskOnlyTools). The slice must not be modified.
func (u *Upstream) Tools() []*sdk.Tool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tools
}

// TaskOnlyTools returns the names of the tools of the last successful
// listing whose execution.taskSupport is "required": they can only be
// called as MCP tasks, which coderun does not do, so they are left out of
// Tools. The slice must not be modified.
func (u *Upstream) TaskOnlyTools() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.taskOnly
}

// Starts returns how many times the server was started successfully.
func (u *Upstream) Starts() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.starts
}

// Running reports whether the server is running: it was started and its
// connection has not ended.
func (u *Upstream) Running() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.cur != nil && u.cur.alive()
}

// StartTimeout bounds how long Start waits for a server to start and list
// its tools; a command fetched on first use (npx -y ...) can take a while.
const StartTimeout = 2 * time.Minute

// Start makes sure the server is running: it starts the server (for the
// first time, or again after it died) and lists its tools, or, when it is
// running and has announced that its tool list changed, lists them again.
// ctx (and StartTimeout) bound the start, not the life of the server. A
// failed start is remembered, and reported by later calls until a Start
// succeeds. Concurrent Starts wait for each other.
func (u *Upstream) Start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return ErrClosed
	}
	if s := u.cur; s != nil && s.alive() {
		if s.stale.Swap(false) {
			tools, taskOnly, err := u.listTools(ctx, s)
			if err != nil {
				s.stale.Store(true)
				u.logger.Warn("listing the upstream's changed tools failed", "upstream", u.name, "error", err)
				return fmt.Errorf("listing the tools of upstream %q: %w", u.name, err)
			}
			u.tools, u.taskOnly = tools, taskOnly
			u.logger.Info("upstream tools changed", "upstream", u.name, "tools", len(tools))
		}
		return nil
	}
	s, tools, taskOnly, err := u.connect(ctx)
	if err != nil {
		if u.cur != nil {
			err = fmt.Errorf("%w; restarting it failed: %w", u.cur.reason, err)
		}
		u.failure = err
		u.logger.Warn("upstream failed to start", "upstream", u.name, "error", err)
		return fmt.Errorf("starting upstream %q: %w", u.name, err)
	}
	if u.cur == nil {
		u.logger.Info("upstream started", "upstream", u.name, "tools", len(tools))
	} else {
		u.logger.Info("upstream restarted", "upstream", u.name, "tools", len(tools), "restarts", u.starts, "after", u.cur.reason)
	}
	u.cur, u.tools, u.taskOnly, u.failure = s, tools, taskOnly, nil
	u.starts++
	return nil
}

// connect dials, initialises the session, lists the tools, and starts
// watching the connection.
func (u *Upstream) connect(ctx context.Context) (*session, []*sdk.Tool, []string, error) {
	t, err := u.dial(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	s := &session{done: make(chan struct{})}
	t = &sniffTransport{Transport: t, conn: &s.conn}
	client := sdk.NewClient(&sdk.Implementation{Name: "coderun", Version: "1"}, &sdk.ClientOptions{
		Logger: sdkLogger(u.logger),
		// No roots: they are deprecated, and a program has no folders to
		// offer.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.stale.Store(true)
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if f, ok := u.progress.Load(req.Params.ProgressToken); ok {
				f.(func(*sdk.ProgressNotificationParams))(req.Params)
			}
		},
	})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, nil, nil, u.explain(err, false)
	}
	s.cs = cs
	go func() {
		err := cs.Wait()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit): // closing the connection waited for the process
			err = fmt.Errorf("the server exited (%s)", exit.ProcessState)
		case err == nil, errors.Is(err, io.ErrClosedPipe), errors.Is(err, io.EOF):
			// How a closed connection is reported depends on which side saw it first.
			err = errors.New("the server closed the connection")
		case errors.Is(err, sdk.ErrConnectionClosed):
		default:
			err = fmt.Errorf("the server ended: %w", err)
		}
		s.reason = u.explain(err, true)
		close(s.done)
		// Start holds u.mu until it has made s current, or given up on it.
		u.mu.Lock()
		closed, current := u.closed, u.cur == s
		u.mu.Unlock()
		switch {
		case current && closed:
			u.logger.Info("upstream closed", "upstream", u.name)
		case current:
			u.logger.Warn("upstream ended; the next run restarts it", "upstream", u.name, "reason", s.reason)
		}
	}()
	tools, taskOnly, err := u.listTools(ctx, s)
	if err != nil {
		_ = cs.Close()
		<-s.done
		return nil, nil, nil, u.explain(fmt.Errorf("listing tools: %w", err), false)
	}
	// The listing may have raced with the server's own list_changed
	// notification at startup; what was just listed is current.
	s.stale.Store(false)
	if u.stderr != nil {
		u.stderr.mark()
	}
	return s, tools, taskOnly, nil
}

// explain adds, for a command, the last line of its stderr that reads like
// an error: since it started serving, for a death; else since it was
// launched, or its last line.
func (u *Upstream) explain(err error, died bool) error {
	if u.stderr == nil {
		return err
	}
	if line := u.stderr.relevant(died); line != "" {
		return fmt.Errorf("%w (stderr: %s)", err, line)
	}
	return err
}

// listTools lists every tool, following pagination. Tools whose names
// coderun cannot bind (over hostcalls.MaxMemberNameLen bytes, not valid
// UTF-8, holding NUL) and repeated names are skipped with a warning; tools
// that require tasks are returned apart, by name.
func (u *Upstream) listTools(ctx context.Context, s *session) (tools []*sdk.Tool, taskOnly []string, _ error) {
	s.conn.startListing()
	seen := map[string]bool{}
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, err
		}
		switch {
		case s.conn.requiresTasks(t.Name):
			if !seen[t.Name] {
				seen[t.Name] = true
				taskOnly = append(taskOnly, t.Name)
			}
		case len(t.Name) > hostcalls.MaxMemberNameLen || !utf8.ValidString(t.Name) || strings.Contains(t.Name, "\x00"):
			u.logger.Warn("skipping a tool whose name cannot be a member", "upstream", u.name, "tool", t.Name)
		case seen[t.Name]:
			u.logger.Warn("skipping a repeated tool", "upstream", u.name, "tool", t.Name)
		default:
			seen[t.Name] = true
			tools = append(tools, t)
		}
	}
	return tools, taskOnly, nil
}

// Call calls tool with args (the program's argument: a JSON object, or null
// for none) and maps its result with ResultJSON. When the server is not
// running, or dies during the call, the error is a *NotRunningError.
func (u *Upstream) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	return u.call(ctx, tool, args, nil)
}

// call is Call; when onProgress is not nil, the call carries a progress
// token and the server's progress notifications for it go to onProgress.
func (u *Upstream) call(ctx context.Context, tool string, args json.RawMessage, onProgress func(*sdk.ProgressNotificationParams)) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	switch {
	case len(args) == 0 || string(args) == "null":
		args = json.RawMessage("{}")
	case args[0] != '{':
		return nil, errors.New("the argument must be an object of the tool's parameters")
	}
	u.mu.Lock()
	s, failure := u.cur, u.failure
	u.mu.Unlock()
	switch {
	case failure != nil:
		return nil, &NotRunningError{Upstream: u.name, Reason: failure}
	case s == nil:
		return nil, &NotRunningError{Upstream: u.name, Reason: errors.New("it was never started")}
	case !s.alive():
		return nil, &NotRunningError{Upstream: u.name, Reason: s.reason}
	}
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	if onProgress != nil {
		token := fmt.Sprintf("coderun-%d", u.nextToken.Add(1))
		params.SetProgressToken(token)
		u.progress.Store(token, onProgress)
		defer u.progress.Delete(token)
	}
	res, err := s.cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return nil, errors.New(rpcErr.Message)
		}
		// Anything else means the connection broke; its watcher says why
		// once the connection has wound down.
		select {
		case <-s.done:
			return nil, &NotRunningError{Upstream: u.name, Reason: s.reason}
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return ResultJSON(res)
}

// Close ends the session (for a command: closes its stdin, and sends it
// SIGTERM, then SIGKILL, when it has not exited within 2 s of the previous
// step) and makes later Starts fail with ErrClosed. It is idempotent.
func (u *Upstream) Close() error {
	u.mu.Lock()
	s := u.cur
	u.closed = true
	u.mu.Unlock()
	if s == nil {
		return nil
	}
	err := s.cs.Close()
	<-s.done
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil // It was killed or exited non-zero on shutdown.
		}
		return fmt.Errorf("closing upstream %q: %w", u.name, err)
	}
	return nil
}

// stderrTail copies a subprocess's stderr to out line by line, each line
// prefixed, and remembers the last lines, since the process was launched
// and since it started serving (mark).
type stderrTail struct {
	prefix string
	out    io.Writer

	mu       sync.Mutex
	partial  []byte
	lines    []string // the last maxStderrLines lines, bounded each
	sinceRun int      // how many of lines were written since mark; -1 before mark
}

// maxStderrLine bounds a remembered or buffered stderr line.
const maxStderrLine = 512

// maxStderrLines is how many lines are remembered.
const maxStderrLines = 16

// errorish matches the stderr lines that are likely to say why a process
// failed.
var errorish = regexp.MustCompile(`(?i)error|exception|panic|fatal|fail|cannot|can't|denied|refused|not found|no such|invalid|killed|abort`)

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = append(t.partial, p...)
			if len(t.partial) > maxStderrLine {
				t.flush()
			}
			break
		}
		t.partial = append(t.partial, p[:i]...)
		t.flush()
		p = p[i+1:]
	}
	return n, nil
}

// flush emits the buffered line.
func (t *stderrTail) flush() {
	line := strings.TrimRight(strings.ToValidUTF8(string(t.partial), "\uFFFD"), " \t\r")
	t.partial = t.partial[:0]
	if t.out != nil {
		_, _ = io.WriteString(t.out, t.prefix+line+"\n")
	}
	if strings.TrimSpace(line) == "" {
		return
	}
	if len(line) > maxStderrLine {
		line = strings.ToValidUTF8(line[:maxStderrLine], "") + "..."
	}
	if len(t.lines) == maxStderrLines {
		t.lines = slices.Delete(t.lines, 0, 1)
	}
	t.lines = append(t.lines, strings.TrimSpace(line))
	if t.sinceRun >= 0 {
		t.sinceRun = min(t.sinceRun+1, len(t.lines))
	}
}

// reset forgets what the previous process wrote.
func (t *stderrTail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial, t.lines, t.sinceRun = t.partial[:0], nil, -1
}

// mark notes that the process started serving.
func (t *stderrTail) mark() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sinceRun = 0
}

// relevant returns the last remembered line that reads like an error
// (since mark when sinceRun is true, when marked), or, when not sinceRun,
// the last line.
func (t *stderrTail) relevant(sinceRun bool) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(bytes.TrimSpace(t.partial)) > 0 {
		lines = append(slices.Clone(lines), strings.TrimSpace(strings.ToValidUTF8(string(t.partial), "\uFFFD")))
	}
	if sinceRun && t.sinceRun >= 0 {
		keep := t.sinceRun + len(lines) - len(t.lines) // plus the partial line, if any
		lines = lines[len(lines)-keep:]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if errorish.MatchString(lines[i]) {
			return lines[i]
		}
	}
	if !sinceRun && len(lines) > 0 {
		return lines[len(lines)-1]
	}
	return ""
}
