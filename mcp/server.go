package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/internal/tsdecl"
)

// ToolName is the name of the single tool a Server offers.
const ToolName = "run_code"

// runCodeInputSchema is run_code's input: {code: string, input?: any JSON
// value}. input's schema lists the JSON types rather than leaving them out,
// so that every node has a validation keyword (see
// TestSchemasHaveValidationKeywords).
var runCodeInputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "code": {
      "type": "string",
      "description": "TypeScript: the body of an async function (top-level await and return work) that calls the tools declared in this tool's description."
    },
    "input": {
      "description": "Optional data for the program, any JSON value: the program reads it as the global input (deeply frozen; undefined when this is absent). Pass data here rather than writing it into code.",
      "anyOf": [
        {"type": "object"}, {"type": "array"}, {"type": "string"},
        {"type": "number"}, {"type": "boolean"}, {"type": "null"}
      ]
    }
  },
  "required": ["code"],
  "additionalProperties": false
}`)

// ServerOptions configures a Server. The zero value is usable.
type ServerOptions struct {
	// Logger receives the server's diagnostics; nil discards them.
	Logger *slog.Logger
	// Version is reported to clients as the server's version; "" means
	// "devel".
	Version string
	// MaxProgramBytes is the Config.MaxProgramBytes of the runtime; 0
	// means the default. run_code refuses a larger program as a tool
	// error, and the transports bound what they read by it (see
	// RequestLimit).
	MaxProgramBytes int64
	// MaxInputBytes is the Config.MaxInputBytes of the runtime; 0 means
	// the default. The transports bound what they read by it too (see
	// RequestLimit); run_code refuses a larger input as a tool error.
	MaxInputBytes int64
	// MaxOutputBytes is the Config.MaxOutputBytes of the runtime; 0 means
	// the default. run_code's text never shows a value larger than it
	// (see FormatResult).
	MaxOutputBytes int64
	// MaxRuns is how many run_code calls run at once, across all clients
	// and sessions; 0 means DefaultMaxRuns().
	MaxRuns int
	// MaxQueuedRuns is how many more calls may wait for a run to finish;
	// a call beyond is refused at once with a tool error wrapping
	// ErrServerBusy (over HTTP, with 503 when it can be told before the
	// session reads it; see HTTPHandler). 0 means 4 × MaxRuns; a negative
	// value, none.
	MaxQueuedRuns int
	// MaxQueueWait is how long a call may wait in the queue before it is
	// refused as ErrServerBusy; 0 means DefaultMaxQueueWait. The wait
	// does not count against the run's WallTime.
	MaxQueueWait time.Duration
	// Registry is where the server registers its Prometheus metrics (see
	// MetricsHandler); nil means a registry of the server's own, with the
	// Go runtime and process collectors.
	Registry *prometheus.Registry
	// LogPrograms adds to the log line of each run its program and its
	// failure's message, and to the Debug lines of binding calls their
	// arguments and errors. Without it, no program text, argument value
	// or message a program could have written is logged.
	LogPrograms bool
	// RecordDir, when not empty, is where the trace of every run_code call
	// is written (coderun.Runtime.Record), as RUN_ID.json, the run's id
	// being its _meta id and its log line's run_id: for post-mortems, with
	// coderun replay. The directory is made if missing. A trace that cannot
	// be written, or is over Config.MaxTraceBytes, is logged and the call's
	// result is unaffected.
	RecordDir string
	// RecordMaxFiles caps the traces the server keeps in RecordDir: past
	// it, it removes the oldest it wrote. 0 means DefaultRecordMaxFiles.
	// Older files, and retention across restarts, are the operator's.
	RecordMaxFiles int
}

// Server is an MCP server with a single tool, run_code, that runs a program
// against the tools of its upstreams. Every call runs in a fresh instance of
// one shared coderun.Runtime, with the upstreams' namespaces as bindings.
// The Server does not own the runtime or the upstreams: the caller closes
// them after the Server is done.
type Server struct {
	rt        *coderun.Runtime
	upstreams []*Upstream
	logger    *slog.Logger
	server    *sdk.Server
	runs      runSet      // the run_code calls in flight
	limiter   *runLimiter // MaxRuns and the queue
	metrics   *metrics

	logPrograms bool
	recorder    *recorder // RecordDir; nil when runs are not recorded

	maxProgramBytes int64
	maxInputBytes   int64
	maxOutputBytes  int64

	mu          sync.Mutex // serialises description updates
	description string
	annotations sdk.ToolAnnotations
}

// NewServer returns a Server for upstreams, which should have been started
// (see StartAll): run_code's description is rendered from their tools. It
// fails, wrapping coderun.ErrInvalidBinding, when an upstream's name cannot
// be a binding global, and when its metrics cannot be registered in
// opts.Registry (a registry holds the metrics of one Server).
func NewServer(rt *coderun.Runtime, upstreams []*Upstream, opts *ServerOptions) (*Server, error) {
	if err := CheckNames(upstreams); err != nil {
		return nil, err
	}
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "devel"
	}
	if o.MaxProgramBytes <= 0 {
		o.MaxProgramBytes = coderun.DefaultConfig().MaxProgramBytes
	}
	if o.MaxInputBytes <= 0 {
		o.MaxInputBytes = coderun.DefaultConfig().MaxInputBytes
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = coderun.DefaultConfig().MaxOutputBytes
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns()
	}
	switch {
	case o.MaxQueuedRuns == 0:
		o.MaxQueuedRuns = 4 * o.MaxRuns
	case o.MaxQueuedRuns < 0:
		o.MaxQueuedRuns = 0
	}
	if o.MaxQueueWait <= 0 {
		o.MaxQueueWait = DefaultMaxQueueWait
	}
	rec, err := newRecorder(o.RecordDir, o.RecordMaxFiles)
	if err != nil {
		return nil, err
	}
	s := &Server{rt: rt, upstreams: slices.Clone(upstreams), logger: o.Logger, logPrograms: o.LogPrograms, recorder: rec,
		maxProgramBytes: o.MaxProgramBytes, maxInputBytes: o.MaxInputBytes, maxOutputBytes: o.MaxOutputBytes,
		limiter: newRunLimiter(o.MaxRuns, o.MaxQueuedRuns, o.MaxQueueWait)}
	s.server = sdk.NewServer(&sdk.Implementation{Name: "coderun", Title: "coderun code mode", Version: o.Version}, &sdk.ServerOptions{
		Logger:       sdkLogger(o.Logger),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	m, err := newMetrics(s, o.Registry)
	if err != nil {
		return nil, fmt.Errorf("registering the metrics: %w", err)
	}
	s.metrics = m
	s.updateTool()
	return s, nil
}

// MetricsHandler serves the server's metrics (see ServerOptions.Registry)
// in the Prometheus exposition formats, without authentication. An
// HTTPHandler serves them at /metrics itself.
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }

// MCPServer returns the SDK server, to connect it to any transport.
func (s *Server) MCPServer() *sdk.Server { return s.server }

// Serve serves one client over t until the client disconnects or ctx is
// done. For a process's stdio, t should be a *StdioTransport.
func (s *Server) Serve(ctx context.Context, t sdk.Transport) error {
	return s.server.Run(ctx, t)
}

// StdioTransport returns a transport over r and w (a process's stdin and
// stdout) that bounds and checks every line (see StdioTransport).
func (s *Server) StdioTransport(r io.Reader, w io.Writer) *StdioTransport {
	return &StdioTransport{Reader: r, Writer: w, MaxProgramBytes: s.maxProgramBytes, MaxInputBytes: s.maxInputBytes}
}

// CancelRuns cancels every run in flight with cause and returns how many
// there were.
func (s *Server) CancelRuns(cause error) int { return s.runs.cancelAll(cause) }

// Description returns run_code's current description.
func (s *Server) Description() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.description
}

// runCodeTitle is run_code's title.
const runCodeTitle = "Run TypeScript against the tools"

// updateTool (re-)registers run_code when its description or annotations
// changed, which notifies connected clients that the tool list changed.
func (s *Server) updateTool() {
	s.mu.Lock()
	defer s.mu.Unlock()
	desc := Description(s.upstreams)
	ann := Annotations(s.upstreams)
	if desc == s.description && sameAnnotations(*ann, s.annotations) {
		return
	}
	s.description, s.annotations = desc, *ann
	s.server.AddTool(&sdk.Tool{
		Name:         ToolName,
		Title:        runCodeTitle,
		Description:  desc,
		InputSchema:  runCodeInputSchema,
		OutputSchema: OutputSchema,
		Annotations:  ann,
	}, s.handle)
}

// sameAnnotations reports whether a and b say the same.
func sameAnnotations(a, b sdk.ToolAnnotations) bool {
	same := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Title == b.Title && a.ReadOnlyHint == b.ReadOnlyHint && a.IdempotentHint == b.IdempotentHint &&
		same(a.DestructiveHint, b.DestructiveHint) && same(a.OpenWorldHint, b.OpenWorldHint)
}

func (s *Server) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		Code  *string         `json:"code"`
		Input json.RawMessage `json:"input"` // absent: nil; null: "null"
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Code == nil {
		return errorResult(`run_code takes {"code": string, "input"?: any JSON value}: the TypeScript program to run, and data for it`), nil
	}
	var session string
	if req.Session != nil {
		session = req.Session.ID()
	}
	ctx, end := s.runs.start(ctx, session)
	defer end()
	var p *progressReporter
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		p = startProgress(ctx, token, req.Session.NotifyProgress)
	}
	res := s.runCode(ctx, runInfo{id: newRunID(), session: session}, *in.Code, in.Input, p)
	p.finish()
	return res, nil
}

// RunCode runs code as run_code does and returns the tool's result. It
// waits for one of the server's MaxRuns slots (see ServerOptions), then
// restarts upstreams that died (an upstream that cannot be restarted
// makes its calls reject, it does not fail the run) and refreshes the
// description when an upstream's tools changed. The result's _meta holds
// the run's id and usage (see MetaRunID).
func (s *Server) RunCode(ctx context.Context, code string) *sdk.CallToolResult {
	return s.runCode(ctx, runInfo{id: newRunID()}, code, nil, nil)
}

// RunCodeInput is RunCode with run_code's input argument: JSON data the
// program reads as the global input (see coderun.Request.Input); nil is
// none.
func (s *Server) RunCodeInput(ctx context.Context, code string, input json.RawMessage) *sdk.CallToolResult {
	return s.runCode(ctx, runInfo{id: newRunID()}, code, input, nil)
}

// runCode is RunCodeInput for run, reporting the run's progress to p
// (which may be nil).
func (s *Server) runCode(ctx context.Context, run runInfo, code string, input json.RawMessage, p *progressReporter) *sdk.CallToolResult {
	if n := int64(len(code)); n > s.maxProgramBytes {
		res := coderun.Result{Error: &coderun.Failure{Kind: coderun.Exception, Budget: coderun.BudgetProgram, Message: fmt.Sprintf(
			"SyntaxError: the program is %d bytes, over the limit of Config.MaxProgramBytes = %d bytes; split the work into several runs",
			n, s.maxProgramBytes)}}
		s.runEnded(ctx, run, code, res, runBudget(res.Error), 0)
		return withMeta(FormatResult(res, 0), run, &res.Usage)
	}
	if n := int64(len(input)); n > s.maxInputBytes {
		return s.inputRefused(ctx, run, fmt.Sprintf("it is %d bytes of JSON, over the limit of Config.MaxInputBytes = %d bytes; "+
			"pass less data, or have the program fetch it with a tool", n, s.maxInputBytes))
	}
	queued := time.Now()
	release, err := s.limiter.acquire(ctx)
	wait := time.Since(queued)
	s.metrics.queueWait.Observe(wait.Seconds())
	if err != nil {
		if busy, ok := errors.AsType[*busyError](err); ok {
			s.runRefused(ctx, run, busy.reason, err)
			return withMeta(errorResult("code run failed: "+err.Error()), run, nil)
		}
		s.runRefused(ctx, run, refusedCancelled, err)
		return withMeta(errorResult(fmt.Sprintf("code run failed (abort): the call was cancelled while it waited for a run to finish: %v", err)), run, nil)
	}
	defer release()
	for _, u := range s.upstreams {
		_ = u.Start(ctx) // a failure is logged, and makes the upstream's calls reject
	}
	s.updateTool()
	obs := &runObserver{s: s, run: run, p: p}
	req := coderun.Request{Program: code, Input: input, Bindings: bindings(s.upstreams, obs), OnLog: p.onLog()}
	var res coderun.Result
	if s.recorder == nil {
		res, err = s.rt.Run(ctx, req)
	} else {
		res, err = s.recorder.run(ctx, s.rt, req, run.id, s.logger)
	}
	if errors.Is(err, coderun.ErrInvalidInput) {
		return s.inputRefused(ctx, run, strings.TrimPrefix(err.Error(), coderun.ErrInvalidInput.Error()+": "))
	}
	if err != nil {
		s.metrics.runs.WithLabelValues("error", budgetNone).Inc()
		s.logger.Error("run_code could not run", "run_id", run.id, "session", run.session, "error", err)
		return withMeta(errorResult(fmt.Sprintf("code run failed: %v", err)), run, nil)
	}
	s.runEnded(ctx, run, code, res, runBudget(res.Error), wait)
	return withMeta(FormatResult(res, s.maxOutputBytes), run, &res.Usage)
}

func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: true}
}

// Description renders run_code's description for upstreams: what the tool
// does, two short examples, the declarations of every upstream tool (see
// Declarations), and the tools left out because they require tasks. The
// examples call only tools annotated readOnlyHint and not destructiveHint,
// since models copy examples verbatim; without such tools they call none.
func Description(upstreams []*Upstream) string {
	var b strings.Builder
	b.WriteString(`Runs a TypeScript program in a sandbox where the tools declared below are async functions. Use it to call several tools in one go: call them in parallel with Promise.all, compute with their results, and return only what you need.

The program is the body of an async function: top-level await and return work. Pass the data it needs as this tool's input argument (any JSON value) rather than writing it into the code: the program reads it as the global input, deeply frozen. The result of this tool is what the program printed with console.log, one entry per line, then its return value (a string as is, anything else as JSON); its structured content is {logs, value}. A tool with an output schema resolves to its structured result; one without resolves to its text output, parsed as JSON when the text is JSON.`)
	if len(upstreams) > 0 {
		fmt.Fprintf(&b, " A call that fails rejects with a %s (its message is the tool's error, its %s the tool's name)",
			ErrorClassName, ErrorClassMemberProperty)
		b.WriteString("; an uncaught rejection ends the run with its message.")
	}
	b.WriteString(" No network, filesystem or modules: only these tools, console, setTimeout/setInterval and the web globals" +
		" TextEncoder, TextDecoder, atob, btoa, structuredClone, crypto (getRandomValues, randomUUID, subtle.digest)," +
		" Event, EventTarget, AbortController, AbortSignal, URL, URLSearchParams and Intl for the locales en, en-US and en-GB (time zone UTC unless" +
		" timeZone is given); there is no fetch or Buffer.\n\n")

	b.WriteString("Examples:\n\n```ts\n" + parallelExample(upstreams) + "```\n\n```ts\n" + errorExample(upstreams) + "```\n\n")
	b.WriteString("Declarations:\n\n```ts\n" + Declarations(upstreams) + "```\n")
	var left []string
	for _, u := range upstreams {
		for _, name := range u.TaskOnlyTools() {
			left = append(left, memberAccess(u.Name(), name))
		}
	}
	if len(left) > 0 {
		b.WriteString("\nNot available: " + strings.Join(left, ", ") +
			" (these tools can only run as MCP tasks, which run_code does not support).\n")
	}
	return b.String()
}

// exampleCalls returns up to n calls for the examples: real tools that are
// safe to call (see exampleSafe), in name order, with arguments built from
// their input schemas.
func exampleCalls(upstreams []*Upstream, n int) []string {
	var calls []string
	for _, u := range upstreams {
		tools := slices.Clone(u.Tools())
		slices.SortFunc(tools, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
		for _, t := range tools {
			if len(calls) == n {
				return calls
			}
			if exampleSafe(t) {
				calls = append(calls, memberAccess(u.Name(), t.Name)+"("+sampleArgs(t.InputSchema)+")")
			}
		}
	}
	return calls
}

// exampleSafe reports whether t is annotated read-only and not
// destructive. (Annotations are hints from the server; without them a tool
// is assumed to have side effects.)
func exampleSafe(t *sdk.Tool) bool {
	a := t.Annotations
	return a != nil && a.ReadOnlyHint && (a.DestructiveHint == nil || !*a.DestructiveHint)
}

func parallelExample(upstreams []*Upstream) string {
	calls := exampleCalls(upstreams, 2)
	switch len(calls) {
	case 0:
		return "const xs = [3, 1, 2].sort();\nconsole.log(\"sorted\", xs);\nreturn { first: xs[0], count: xs.length };\n"
	case 1:
		return "const a = await " + calls[0] + ";\nconsole.log(\"got\", a);\nreturn { a };\n"
	}
	return "// Independent calls run in parallel.\nconst [a, b] = await Promise.all([\n  " +
		calls[0] + ",\n  " + calls[1] + ",\n]);\nconsole.log(\"first result:\", a);\nreturn { a, b };\n"
}

func errorExample(upstreams []*Upstream) string {
	calls := exampleCalls(upstreams[:min(1, len(upstreams))], 1)
	if len(calls) == 0 {
		return "try {\n  JSON.parse(\"not json\");\n} catch (e) {\n  return `failed: ${e.message}`;\n}\n"
	}
	return "try {\n  return await " + calls[0] + ";\n} catch (e) {\n  if (e instanceof " + ErrorClassName +
		") return `${e." + ErrorClassMemberProperty + "} failed: ${e.message}`;\n  throw e;\n}\n"
}

// sampleArgs renders an argument object for a tool from its input schema:
// its required properties with placeholder values.
func sampleArgs(schema any) string {
	root, ok := tsdecl.Decode(schema)
	if !ok {
		return "{}"
	}
	return jsLiteral(sampleValue(root, root, 0))
}

// sampleObject is an object for jsLiteral that keeps its key order.
type sampleObject []sampleField

type sampleField struct {
	key   string
	value any
}

func sampleValue(root, s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 4 {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if target, found := tsdecl.ResolveRef(root, ref); found {
			return sampleValue(root, target, depth+1)
		}
		return nil
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if d, ok := m["default"]; ok {
		return d
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			return sampleValue(root, alts[0], depth+1)
		}
	}
	typ, _ := m["type"].(string)
	if types, ok := m["type"].([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	if typ == "" && hasAny(m, "properties", "required") {
		typ = "object"
	}
	switch typ {
	case "string":
		return "text"
	case "number", "integer":
		if lo, ok := m["minimum"]; ok {
			return lo
		}
		return json.Number("1")
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		obj := sampleObject{}
		for _, r := range req {
			if name, ok := r.(string); ok {
				obj = append(obj, sampleField{key: name, value: sampleValue(root, props[name], depth+1)})
			}
		}
		return obj
	}
	return nil
}

func hasAny(s map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

// jsLiteral renders v as a JavaScript expression: objects as { key: value }
// with identifier keys bare, everything else as JSON.
func jsLiteral(v any) string {
	switch v := v.(type) {
	case sampleObject:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = tsdecl.PropertyName(f.key) + ": " + jsLiteral(f.value)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = jsLiteral(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return tsdecl.Literal(v)
}
