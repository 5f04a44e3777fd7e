// Package mcp turns Model Context Protocol servers into coderun bindings and
// serves them to MCP clients as a single "code mode" tool.
//
// An [Upstream] is one MCP server that coderun talks to as a client: it is
// started (for example as a subprocess over stdio), its tools are listed, and
// each tool becomes a member of a [coderun.Namespace] named after the
// upstream, so that a program can write
//
//	const [a, b] = await Promise.all([files.read_file({path: "a"}), files.read_file({path: "b"})]);
//
// A call resolves to the tool's structuredContent (see the MCP specification's
// [tool result]) when it has one, else to
// its text content (parsed as JSON when the text is JSON); a result flagged
// isError rejects the call with the tool's text, as a ToolCallError whose
// toolName is the tool's name; every upstream's calls reject with that one
// class (see Bindings).
// An upstream that dies makes its calls reject
// with "upstream NAME is not running: REASON" and is restarted lazily, at the
// start of the next run.
//
// A [Server] is an MCP server with one tool, run_code, whose input is
// {code: string, input?: any JSON value} (input is the program's global
// input, see coderun.Request.Input), annotated as its upstreams' tools are (see
// [Annotations]). Its description holds the TypeScript declarations of
// every upstream tool, rendered from the tools' JSON Schemas and
// descriptions by [coderun.Declarations] (see [Docs]), so a model can write
// correct calls the first time, and examples that call only read-only
// tools. Each call runs the code in a fresh coderun instance of one shared
// [coderun.Runtime], at most ServerOptions.MaxRuns at once across all
// clients, with a bounded queue (see [ErrServerBusy]); its result is the
// logs and the value as separate text items and as structured content
// {logs, value} (see [FormatResult]), and, when the client asks, progress
// notifications (one per completed upstream call, upstream progress
// notification or log entry).
//
// A Server is served over a process's stdio with [StdioTransport], which
// answers and drops the lines go-sdk could not decode, or over streamable
// HTTP with [Server.HTTPHandler], which checks Origin and an optional bearer
// token, cancels the runs of deleted and idle sessions, bounds bodies by
// [RequestLimit], may run without sessions (stateless, for replicas behind a
// load balancer), answers 503 to a tools/call when the runs and their
// queue are full, and drains on [HTTPHandler.Shutdown];
// [HTTPHandler.HTTPServer] bounds its connections (see [ConnOptions]).
//
// A Server is observable: [Server.MetricsHandler] (and an HTTPHandler's
// /metrics) serves Prometheus metrics from a registry of its own (runs by
// outcome and budget, their usage as histograms, runs in flight and
// queued, upstream calls, sessions, upstream restarts, HTTP responses),
// with bounded labels only; it logs one line per run, and upstream
// lifecycle, to ServerOptions.Logger, without program text or arguments
// unless ServerOptions.LogPrograms; and each run_code result's _meta holds
// the run's id and usage (see [MetaRunID]).
//
// [tool result]: https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-result
package mcp
