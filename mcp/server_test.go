package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

// tools/list shows run_code alone, with the declarations of every upstream
// tool and examples that use real tools; the examples run as they are.
func TestServerListsRunCode(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	cs := connectClient(t, s, nil)

	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, 1)
	tool := res.Tools[0]
	require.Equal(t, ToolName, tool.Name)
	require.Equal(t, s.Description(), tool.Description)
	require.Contains(t, tool.Description, Declarations([]*Upstream{u}))
	for _, want := range []string{
		"declare const local: {\n",
		"  /** Adds two numbers. */\n  add(args: { a: number; b: number }): Promise<{\n    /** a + b */\n    sum: number;\n  }>;\n",
		"  /** Echoes text. */\n  echo(args: {\n    /** the text to echo */\n    text: string;\n  }): Promise<unknown>;\n",
		`  "get-json"(args: {}): Promise<unknown>;` + "\n",
		"declare class ToolCallError extends Error { readonly toolName: string; }\n",
		"local.add({ a: 1, b: 1 })",
		"local.echo({ text: \"text\" })",
	} {
		require.Contains(t, tool.Description, want)
	}
	var inputSchema map[string]any
	require.NoError(t, json.Unmarshal(runCodeInputSchema, &inputSchema))
	require.Equal(t, inputSchema, tool.InputSchema)
	props := inputSchema["properties"].(map[string]any)
	require.Equal(t, map[string]any{"type": "string", "description": "TypeScript: the body of an async function (top-level await and return work) that calls the tools declared in this tool's description."}, props["code"])
	require.Contains(t, props["input"].(map[string]any)["description"], "the program reads it as the global input")
	require.Len(t, props["input"].(map[string]any)["anyOf"], 6, "any JSON value")
	require.Equal(t, []any{"code"}, inputSchema["required"])
	require.Equal(t, false, inputSchema["additionalProperties"])
	require.Contains(t, tool.Description, "Pass the data it needs as this tool's input argument")
	var outputSchema any
	require.NoError(t, json.Unmarshal(OutputSchema, &outputSchema))
	require.Equal(t, outputSchema, tool.OutputSchema)

	// The client receives the structured content.
	res2, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": `console.log("hi", 1); return {n: 2}`}})
	require.NoError(t, err)
	require.False(t, res2.IsError)
	require.Len(t, res2.Content, 2)
	require.Equal(t, map[string]any{"logs": []any{"hi 1"}, "value": map[string]any{"n": 2.0}}, res2.StructuredContent)

	examples := regexp.MustCompile("(?s)```ts\n(.*?)```").FindAllStringSubmatch(tool.Description, -1)
	require.Len(t, examples, 3) // two examples and the declarations
	for _, ex := range examples[:2] {
		text, isError := callRunCode(t, cs, ex[1])
		require.False(t, isError, "example:\n%s\nresult: %s", ex[1], text)
	}
}

func TestRunCode(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	cs := connectClient(t, s, nil)

	tests := []struct {
		name       string
		code       string
		want       string // the whole text, when set
		wantPrefix string
		contains   []string
		isError    bool
	}{
		{
			name: "parallel calls, a handled failure, a computed object",
			code: `const [e, s] = await Promise.all([local.echo({text: "hi"}), local.add({a: 2, b: 3})]);
let failed = "";
try {
  await local.fail({text: "disk on fire"});
} catch (err) {
  if (err instanceof ToolCallError) failed = err.toolName + ": " + err.message;
}
console.log("echo said", e);
return {echo: e, sum: s.sum * 2, failed, json: await local["get-json"]({})};`,
			want: `echo said echo: hi
{
  "echo": "echo: hi",
  "sum": 10,
  "failed": "fail: disk on fire",
  "json": {
    "n": 1,
    "list": [
      true,
      null
    ]
  }
}`,
		},
		{name: "string value raw", code: `console.log("a"); console.log({x: 1}); return "line1\nline2"`, want: "a\n{ x: 1 }\nline1\nline2"},
		{name: "logs only", code: `console.log("only"); console.error("logs")`, want: "only\nlogs"},
		{name: "nothing", code: `const x = 1;`, want: "(no output)"},
		{name: "null", code: `return null`, want: "null"},
		{name: "number", code: `return 6 * 7`, want: "42"},
		{name: "image content", code: `return await local.image(null)`,
			want: "[\n  {\n    \"type\": \"image\",\n    \"mimeType\": \"image/png\",\n    \"data\": \"cG5n\"\n  }\n]"},
		{name: "argument not an object", code: `try { await local.echo("hi") } catch (e) { return e.name + ": " + e.message }`,
			want: "ToolCallError: the argument must be an object of the tool's parameters"},
		{name: "unhandled tool error", code: `console.log("before"); await local.fail({text: "nope"})`,
			wantPrefix: "code run failed (exception): ToolCallError: nope", contains: []string{"\n\noutput before the failure:\nbefore"}, isError: true},
		{name: "exception", code: "console.log('one');\nconsole.log('two');\nthrow new RangeError('boom')",
			wantPrefix: "code run failed (exception): RangeError: boom", contains: []string{"program.ts:3", "\n\noutput before the failure:\none\ntwo"}, isError: true},
		{name: "syntax error", code: `return (`, wantPrefix: "code run failed (exception): SyntaxError", isError: true},
		{name: "runaway", code: `console.log("spinning"); while (true) {}`,
			wantPrefix: "code run failed (timeout, compute): ", contains: []string{"output before the failure:\nspinning"}, isError: true},
		{name: "invalid output", code: `return undefined ?? new Map()`, wantPrefix: "code run failed (invalid-output): ", isError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, isError := callRunCode(t, cs, tc.code)
			require.Equal(t, tc.isError, isError, text)
			if tc.want != "" {
				require.Equal(t, tc.want, text)
			}
			require.True(t, strings.HasPrefix(text, tc.wantPrefix), text)
			for _, c := range tc.contains {
				require.Contains(t, text, c)
			}
		})
	}

	t.Run("input without code", func(t *testing.T) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"program": "return 1"}})
		require.NoError(t, err)
		require.True(t, res.IsError)
		require.Equal(t, `run_code takes {"code": string, "input"?: any JSON value}: the TypeScript program to run, and data for it`, res.Content[0].(*sdk.TextContent).Text)
	})
}

// A dead upstream makes its calls reject, naming it and the reason; the
// next run restarts it; a failed restart is reported the same way and
// retried on the run after.
func TestRunCodeRestartsDeadUpstream(t *testing.T) {
	u, p := startUpstream(t, "local", testServer(nil))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	ctx := context.Background()
	text := func(code string) string {
		res := s.RunCode(ctx, code)
		return res.Content[0].(*sdk.TextContent).Text
	}
	const call = `try { return await local.echo({text: "x"}) } catch (e) { return (e instanceof ToolCallError) + " " + e.message }`

	require.Equal(t, "echo: x", text(call))
	require.Equal(t, 1, u.Starts())

	p.kill()
	// Calls made once the death is noticed reject.
	require.Eventually(t, func() bool {
		_, err := u.Call(ctx, "echo", []byte(`{"text": "x"}`))
		return err != nil
	}, 10*time.Second, 10*time.Millisecond)
	_, err = u.Call(ctx, "echo", []byte(`{"text": "x"}`))
	var notRunning *NotRunningError
	require.ErrorAs(t, err, &notRunning)
	require.EqualError(t, err, `upstream "local" is not running: the server closed the connection`)

	// The next run restarts it.
	require.Equal(t, "echo: x", text(call))
	require.Equal(t, 2, u.Starts())

	// A restart that fails makes the calls of that run reject.
	p.kill()
	p.setFail(errDialBroken)
	require.Eventually(t, func() bool { return !u.cur.alive() }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, `true upstream "local" is not running: the server closed the connection; restarting it failed: dial broken`, text(call))
	require.Equal(t, 2, u.Starts())

	p.setFail(nil)
	require.Equal(t, "echo: x", text(call))
	require.Equal(t, 3, u.Starts())
}

// An upstream that dies while a call is in flight rejects that call.
func TestUpstreamDiesDuringCall(t *testing.T) {
	srv := testServer(nil)
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	sdk.AddTool(srv, &sdk.Tool{Name: "hang"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil, nil
	})
	u, p := startUpstream(t, "local", srv)
	go func() {
		<-entered
		p.kill()
	}()
	_, err := u.Call(context.Background(), "hang", nil)
	require.EqualError(t, err, `upstream "local" is not running: the server closed the connection`)
}

func TestUpstreamCallErrors(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	ctx := context.Background()

	tests := []struct {
		name    string
		tool    string
		args    string
		want    string
		wantErr string
	}{
		{name: "text", tool: "echo", args: `{"text": "a"}`, want: `"echo: a"`},
		{name: "structured", tool: "add", args: ` {"a": 1, "b": 0.5}`, want: `{"sum":1.5}`},
		{name: "null args", tool: "get-json", args: `null`, want: `{"n": 1, "list": [true, null]}`},
		{name: "no args", tool: "get-json", args: ``, want: `{"n": 1, "list": [true, null]}`},
		{name: "array args", tool: "echo", args: `["a"]`, wantErr: "the argument must be an object of the tool's parameters"},
		{name: "tool error", tool: "fail", args: `{"text": "broken"}`, wantErr: "broken"},
		{name: "invalid args", tool: "add", args: `{"a": "one"}`, wantErr: `validating "arguments"`},
		{name: "unknown tool", tool: "nope", args: `{}`, wantErr: `unknown tool "nope"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := u.Call(ctx, tc.tool, []byte(tc.args))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(ctx)
		cancel(errCancelledByTest)
		_, err := u.Call(ctx, "echo", []byte(`{"text": "a"}`))
		require.ErrorIs(t, err, errCancelledByTest)
	})
}

// Upstream calls of one run are bounded by MaxConcurrentCalls.
func TestRunCodeHonoursMaxConcurrentCalls(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	var inFlight, peak atomicMax
	sdk.AddTool(srv, &sdk.Tool{Name: "slow"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		inFlight.enter(&peak)
		defer inFlight.leave()
		time.Sleep(20 * time.Millisecond) // gives the calls a chance to overlap
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
	})
	u, _ := startUpstream(t, "slow", srv)
	s, err := NewServer(newRuntime(t, func(c *coderun.Config) { c.MaxConcurrentCalls = 2 }), []*Upstream{u}, nil)
	require.NoError(t, err)

	res := s.RunCode(context.Background(), `return (await Promise.all(Array.from({length: 8}, () => slow.slow({})))).join(",")`)
	require.False(t, res.IsError, res.Content[0].(*sdk.TextContent).Text)
	require.Equal(t, "ok,ok,ok,ok,ok,ok,ok,ok", res.Content[0].(*sdk.TextContent).Text)
	require.LessOrEqual(t, peak.load(), int64(2))
}

// When an upstream announces that its tools changed, the next run lists
// them again, and run_code's new description reaches connected clients.
func TestToolListChange(t *testing.T) {
	srv := testServer(nil)
	u, _ := startUpstream(t, "local", srv)
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	changed := make(chan struct{}, 16)
	cs := connectClient(t, s, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})

	sdk.AddTool(srv, &sdk.Tool{Name: "later", Description: "Added later."}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late"}}}, nil, nil
	})
	require.Eventually(t, func() bool { return u.cur.stale.Load() }, 10*time.Second, 10*time.Millisecond)

	text, isError := callRunCode(t, cs, `return await local.later({})`)
	require.False(t, isError, text)
	require.Equal(t, "late", text)
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("the client was not told that run_code changed")
	}
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Contains(t, res.Tools[0].Description, "  /** Added later. */\n  later(args: {}): Promise<unknown>;\n")
}

// All tools are listed when the upstream pages them.
func TestUpstreamListsAllPages(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(&sdk.ServerOptions{PageSize: 2}))
	var names []string
	for _, tool := range u.Tools() {
		names = append(names, tool.Name)
	}
	require.ElementsMatch(t, []string{"add", "echo", "fail", "get-json", "image"}, names)
}

func TestUpstreamStartFails(t *testing.T) {
	p := &inProcess{server: testServer(nil), fail: errDialBroken}
	u := NewUpstream("local", p.dial, nil)
	require.EqualError(t, u.Start(context.Background()), `starting upstream "local": dial broken`)
	_, err := u.Call(context.Background(), "echo", []byte(`{}`))
	require.EqualError(t, err, `upstream "local" is not running: dial broken`)
	require.Empty(t, u.Tools())

	require.NoError(t, u.Close())
	require.ErrorIs(t, u.Start(context.Background()), ErrClosed)
}

func TestCheckNames(t *testing.T) {
	srv := testServer(nil)
	tests := []struct {
		names   []string
		wantErr string
	}{
		{names: []string{"files"}},
		{names: []string{"files", "web", "everything"}},
		{names: []string{"my-files"}, wantErr: `upstream "my-files": coderun: invalid binding declaration: binding global "my-files" is not a usable identifier`},
		{names: []string{"files", "files"}, wantErr: `upstream "files": coderun: invalid binding declaration: duplicate binding global "files"`},
		{names: []string{"console"}, wantErr: `reserved binding global "console"`},
		{names: []string{"await"}, wantErr: `"await" is a reserved word`},
		{names: []string{"web", ErrorClassName}, wantErr: `upstream "ToolCallError"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.names, ","), func(t *testing.T) {
			var ups []*Upstream
			for _, n := range tc.names {
				ups = append(ups, NewUpstream(n, (&inProcess{server: srv}).dial, nil))
			}
			err := CheckNames(ups)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, coderun.ErrInvalidBinding)
			require.ErrorContains(t, err, tc.wantErr)
			_, err = NewServer(nil, ups, nil)
			require.ErrorIs(t, err, coderun.ErrInvalidBinding)
		})
	}
}

// With several upstreams each is a namespace, and all share one injected
// ToolCallError class (see Bindings), declared once.
func TestSeveralUpstreams(t *testing.T) {
	a, _ := startUpstream(t, "alpha", testServer(nil))
	b, _ := startUpstream(t, "beta", testServer(nil))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{a, b}, nil)
	require.NoError(t, err)
	require.Contains(t, s.Description(), "declare const alpha: {\n")
	require.Contains(t, s.Description(), "declare const beta: {\n")
	require.Equal(t, 1, strings.Count(s.Description(), "declare class ToolCallError"))
	require.NotContains(t, s.Description(), "plain Error")

	res := s.RunCode(context.Background(), `const r = [];
for (const ns of [alpha, beta]) {
  try { await ns.fail({text: "x"}) } catch (e) { r.push(e instanceof ToolCallError, e.message, e.toolName) }
}
return [r, (await alpha.add({a: 1, b: 2})).sum + (await beta.add({a: 3, b: 4})).sum]`)
	require.False(t, res.IsError)
	// Every upstream's failures are ToolCallErrors: the namespaces share one class.
	require.Equal(t, "[\n  [\n    true,\n    \"x\",\n    \"fail\",\n    true,\n    \"x\",\n    \"fail\"\n  ],\n  10\n]", res.Content[0].(*sdk.TextContent).Text)
}

// Every run_code call logs what the run cost.
func TestServerLogsUsage(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	var logs bytes.Buffer
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	require.NoError(t, err)
	res := s.RunCode(context.Background(), `console.log("hi"); return await local.add({ a: 1, b: 2 })`)
	require.False(t, res.IsError)
	var entry struct {
		Msg, Outcome string
		Fuel         uint64
		Calls        int
		LogBytes     int64 `json:"log_bytes"`
	}
	for _, line := range bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n")) {
		require.NoError(t, json.Unmarshal(line, &entry))
		if entry.Msg == "run_code finished" {
			break
		}
	}
	require.Equal(t, "run_code finished", entry.Msg, logs.String())
	require.Equal(t, "ok", entry.Outcome)
	require.Equal(t, 1, entry.Calls)
	require.Equal(t, int64(len(`"hi"`)), entry.LogBytes)
	require.NotZero(t, entry.Fuel)
}

// run_code's input argument is the program's global input: any JSON value,
// frozen, undefined when absent; one over MaxInputBytes or not lossless
// JSON is refused as a tool error before anything runs.
func TestRunCodeInput(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxInputBytes: 64})
	require.NoError(t, err)
	cs := connectClient(t, s, nil)
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"object", map[string]any{"code": `return input.a + input.b.length`, "input": map[string]any{"a": 1, "b": []any{1, 2}}}, "3", false},
		{"string", map[string]any{"code": `return input.toUpperCase()`, "input": "héllo"}, "HÉLLO", false},
		{"null", map[string]any{"code": `return input === null`, "input": nil}, "true", false},
		{"absent", map[string]any{"code": `return typeof input`}, "undefined", false},
		{"passed to a tool", map[string]any{"code": `return (await local.add(input)).sum`, "input": map[string]any{"a": 2, "b": 5}}, "7", false},
		{"frozen", map[string]any{"code": `input.a = 2`, "input": map[string]any{"a": 1}},
			"code run failed (exception): TypeError: 'a' is read-only\n    at <program> (program.ts:1:1)", true},
		{"over MaxInputBytes", map[string]any{"code": `return 1`, "input": strings.Repeat("x", 70)},
			"run_code's input was refused, nothing ran: it is 72 bytes of JSON, over the limit of Config.MaxInputBytes = 64 bytes; pass less data, or have the program fetch it with a tool", true},
		{"beyond 2^53", map[string]any{"code": `return 1`, "input": json.RawMessage(`{"id":9007199254740993}`)},
			"run_code's input was refused, nothing ran: it must be lossless JSON, as a binding's result must: integer beyond ±2^53: 9007199254740993 at offset 6", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: tc.args})
			require.NoError(t, err)
			text := res.Content[0].(*sdk.TextContent).Text
			require.Equal(t, tc.isError, res.IsError, text)
			require.Equal(t, tc.want, text)
		})
	}
	res := s.RunCodeInput(context.Background(), `return input.n * 2`, json.RawMessage(`{"n": 21}`))
	require.False(t, res.IsError)
	require.Equal(t, "42", res.Content[0].(*sdk.TextContent).Text)
}
