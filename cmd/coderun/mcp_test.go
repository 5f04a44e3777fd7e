package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coderun/coderun"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/testenv"
	"github.com/coderun/coderun/mcp"
)

// The reference MCP server the end-to-end tests use as a real upstream that
// nobody here wrote. .ci/run installs this version into everythingDir.
const (
	everythingVersion = "2026.8.31"
	everythingDir     = "../../.cache/npm" // relative to this package
	everythingEnv     = "CODERUN_EVERYTHING_SERVER"
)

// everythingServer returns the path of the reference server's entry point,
// from $CODERUN_EVERYTHING_SERVER or the repository's .cache/npm. It fails
// the test (see testenv.Missing), saying how to install it, when it or node
// is missing.
func everythingServer(t *testing.T) string {
	t.Helper()
	const install = "install it with\n\n\tnpm install --prefix .cache/npm @modelcontextprotocol/server-everything@" +
		everythingVersion + "\n\nfrom the repository root (.ci/run does this), or set " + everythingEnv +
		" to the path of its dist/index.js"
	testenv.Node(t)
	path := os.Getenv(everythingEnv)
	if path == "" {
		abs, err := filepath.Abs(filepath.Join(everythingDir, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
		require.NoError(t, err)
		path = abs
	}
	pkg, err := os.ReadFile(filepath.Join(filepath.Dir(path), "..", "package.json"))
	if err != nil {
		testenv.Missing(t, "the reference MCP server @modelcontextprotocol/server-everything is not installed (%v); %s", err, install)
	}
	var meta struct{ Version string }
	require.NoError(t, json.Unmarshal(pkg, &meta))
	if meta.Version != everythingVersion {
		testenv.Missing(t, "the reference MCP server at %s is version %s, the tests expect %s; %s", path, meta.Version, everythingVersion, install)
	}
	return path
}

// everythingUpstream is the --upstream value that binds the reference
// server as the namespace everything.
func everythingUpstream(t *testing.T) string {
	return "everything=node '" + everythingServer(t) + "' stdio"
}

// built is the coderun binary the tests build once, into a temporary
// directory that TestMain removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	if os.Getenv(envServerEnv) == "1" {
		serveEnvServer() // this process is an upstream of a test
		return
	}
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildCoderun builds this command, once per test process.
func buildCoderun(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "coderun-e2e-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "coderun")
		if out, err := exec.Command(goTool, "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %w: %s", err, out)
		}
	})
	require.NoError(t, built.err)
	return built.bin
}

// connect starts bin with args as an MCP server subprocess and connects to
// it over its stdio, as an MCP client (a desktop app, an agent) would.
func connect(t *testing.T, bin string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = testLog{t}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cs.Close()) })
	return cs
}

// runCode calls run_code and returns its text items (the logs, the value)
// joined by newlines and whether it is an error result.
func runCode(t *testing.T, cs *sdk.ClientSession, code string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	var texts []string
	for _, c := range res.Content {
		text, ok := c.(*sdk.TextContent)
		require.True(t, ok, "content %T", c)
		texts = append(texts, text.Text)
	}
	return strings.Join(texts, "\n"), res.IsError
}

// testLog writes a subprocess's stderr to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestMCPCommand drives the coderun binary as an MCP server, with the
// reference server as its upstream over stdio, and without upstreams over
// streamable HTTP.
func TestMCPCommand(t *testing.T) {
	upstream := everythingUpstream(t)
	bin := buildCoderun(t)
	t.Run("stdio with the reference server", func(t *testing.T) { testMCPStdio(t, bin, upstream) })
	t.Run("streamable HTTP", func(t *testing.T) { testMCPHTTP(t, bin) })
}

// testMCPStdio is TestMCPCommand over stdio, with the reference server
// upstream: the tool's description, a program calling it, a timeout and the
// description's examples.
func testMCPStdio(t *testing.T, bin, upstream string) {
	cs := connect(t, bin, "mcp", "--upstream", upstream, "--compute-time", "2s")

	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	tool := tools.Tools[0]
	require.Equal(t, "run_code", tool.Name)
	for _, want := range []string{
		"declare const everything: {\n",
		"  /** Echoes back the input string */\n  echo(args: {\n    /** Message to echo */\n    message: string;\n  }): Promise<unknown>;\n",
		"  /** Returns the sum of two numbers */\n  \"get-sum\"(args: {\n    /** First number */\n    a: number;\n",
		"    location: \"New York\" | \"Chicago\" | \"Los Angeles\";\n  }): Promise<{\n    /** Temperature in celsius */\n    temperature: number;\n",
		"declare class ToolCallError extends Error { readonly toolName: string; }\n",
		"e instanceof ToolCallError",
	} {
		require.Contains(t, tool.Description, want)
	}

	text, isError := runCode(t, cs, `const [echo, sum] = await Promise.all([
  everything.echo({message: "hello"}),
  everything["get-sum"]({a: 2, b: 3}),
]);
let failed = "", mentionsLocation = false;
try {
  await everything["get-structured-content"]({location: "Paris"});
} catch (e) {
  if (e instanceof ToolCallError) {
    failed = e.toolName;
    mentionsLocation = e.message.includes("location");
  }
}
console.log("parallel done");
return {echo, sum, total: Number(/is (\d+)/.exec(sum)[1]) * 10, failed, mentionsLocation};`)
	require.False(t, isError, text)
	require.Equal(t, `parallel done
{
  "echo": "Echo: hello",
  "sum": "The sum of 2 and 3 is 5.",
  "total": 50,
  "failed": "get-structured-content",
  "mentionsLocation": true
}`, text)

	text, isError = runCode(t, cs, `console.log("spinning"); while (true) {}`)
	require.True(t, isError)
	require.True(t, strings.HasPrefix(text, "code run failed (timeout, compute): "), text)
	require.Contains(t, text, "spinning")

	// The examples of the description run as they are.
	examples := regexp.MustCompile("(?s)```ts\n(.*?)```").FindAllStringSubmatch(tool.Description, -1)
	require.Len(t, examples, 3)
	for _, ex := range examples[:2] {
		text, isError := runCode(t, cs, ex[1])
		require.False(t, isError, "example:\n%s\nresult: %s", ex[1], text)
	}
}

// testMCPHTTP is TestMCPCommand over streamable HTTP: a program runs, and
// an interrupt ends the server with status 0.
func testMCPHTTP(t *testing.T, bin string) {
	cmd := exec.Command(bin, "mcp", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stderr)
	var endpoint string
	for endpoint == "" && lines.Scan() {
		if m := regexp.MustCompile(`at (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			endpoint = m[1]
		}
	}
	require.NotEmpty(t, endpoint, "no address on stderr")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	text, isError := runCode(t, cs, `return [1, 2, 3].map(x => x * 2)`)
	require.False(t, isError, text)
	require.Equal(t, "[\n  2,\n  4,\n  6\n]", text)
	require.NoError(t, cs.Close())

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait(), "coderun mcp exits with status 0 when interrupted")
	exited = true
}

// coderun run --upstream binds the same namespaces for one program: the
// example program runs against the reference server.
func TestRunWithUpstream(t *testing.T) {
	upstream := everythingUpstream(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--upstream", upstream, "../../examples/everything.ts"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	var res map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	var usage coderun.Usage
	require.NoError(t, json.Unmarshal(res["usage"], &usage), "the result has its usage: %s", stdout.String())
	require.Equal(t, 4, usage.Calls, "the example makes four calls")
	delete(res, "usage")
	out, _ := json.Marshal(res)
	require.JSONEq(t, `{
  "value": {"answer": 42, "weatherFields": ["conditions", "humidity", "temperature"], "rejected": "get-structured-content"},
  "logs": ["Echo: hello from coderun"]
}`, string(out))
}

func TestMCPMisuse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "positional argument", args: []string{"mcp", "extra"}, want: "usage: coderun mcp"},
		{name: "bad flag", args: []string{"mcp", "--Bogus", "1"}, want: "Bogus"},
		{name: "not NAME=COMMAND", args: []string{"mcp", "--upstream", "node server.js"}, want: `invalid value "node server.js" for flag -upstream: upstream "node server.js" is not NAME=COMMAND`},
		{name: "unterminated quote", args: []string{"mcp", "--upstream", "files=node 'x"}, want: "unterminated ' quote"},
		{name: "name not an identifier", args: []string{"mcp", "--upstream", "my-files=true"},
			want: `coderun mcp: --upstream my-files=true: upstream "my-files": coderun: invalid binding declaration: binding global "my-files" is not a usable identifier`},
		{name: "reserved name", args: []string{"mcp", "--upstream", "console=true"}, want: `--upstream console=true: upstream "console"`},
		{name: "duplicate name", args: []string{"mcp", "--upstream", "a=true", "--upstream", "a=false"}, want: `--upstream a=false: upstream "a": coderun: invalid binding declaration: duplicate binding global "a"`},
		{name: "command not found", args: []string{"mcp", "--upstream", "files=/nonexistent/server"}, want: `coderun mcp: starting upstream "files": `},
		{name: "not an MCP server", args: []string{"mcp", "--upstream", "files=true"}, want: `coderun mcp: starting upstream "files": `},
		{name: "invalid config", args: []string{"mcp", "--max-concurrent-calls", "0"}, want: "coderun mcp: coderun: --max-concurrent-calls (Config.MaxConcurrentCalls) must be positive, got 0"},
		{name: "all interfaces without a token", args: []string{"mcp", "--http", ":0"}, want: "coderun mcp: --http :0 listens beyond loopback"},
		{name: "no runs", args: []string{"mcp", "--max-runs", "0"}, want: "coderun mcp: --max-runs must be at least 1, --max-queued-runs at least 0 and --max-queue-wait positive; got 0,"},
		{name: "negative queue", args: []string{"mcp", "--max-queued-runs", "-1"}, want: "--max-queued-runs at least 0"},
		{name: "no connections", args: []string{"mcp", "--max-connections", "0"}, want: "coderun mcp: --max-connections must be at least 1, got 0"},
		{name: "bad log format", args: []string{"mcp", "--log-format", "xml"}, want: `coderun mcp: --log-format must be text or json, got "xml"`},
		{name: "bad log level", args: []string{"mcp", "--log-level", "loud"}, want: `invalid value "loud" for flag -log-level`},
		{name: "metrics address invalid", args: []string{"mcp", "--metrics-addr", "256.0.0.1:0"}, want: "coderun mcp: --metrics-addr: listen tcp: "},
		{name: "bad allowed origin", args: []string{"mcp", "--http", "localhost:0", "--allowed-origin", "example.com"}, want: `coderun mcp: origin "example.com" is not of the form scheme://host[:port]`},
		{name: "run: name not an identifier", args: []string{"run", "--upstream", "my-files=true", "-"},
			want: `coderun: --upstream my-files=true: upstream "my-files": coderun: invalid binding declaration`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader("return 1"), &stdout, &stderr)
			require.Equal(t, 2, code, "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.want)
			require.Empty(t, stdout.String())
		})
	}
}

// coderun mcp's default budgets end a run, with coderun's own message,
// before the common client request timeout (the TypeScript SDK's 60 s),
// queue wait included; the flags still override them.
func TestMCPDefaultsBeatClientTimeout(t *testing.T) {
	o := mcpOptions{cfg: mcpConfig()}
	c := newMCPCommand(&o)
	_, ok := c.parse(nil, io.Discard, io.Discard)
	require.True(t, ok)
	require.LessOrEqual(t, o.cfg.ComputeTime, o.cfg.WallTime)
	worst := o.cfg.WallTime + o.runs.queueWait + mcpStartupReserve
	require.Less(t, worst, clientTimeout, "a run's wall time %v + queue wait %v + %v", o.cfg.WallTime, o.runs.queueWait, mcpStartupReserve)
	require.Equal(t, 60*time.Second, clientTimeout)
	require.Equal(t, mcp.DefaultMaxRuns(), o.runs.maxRuns)
	require.Equal(t, 4*mcp.DefaultMaxRuns(), o.runs.maxQueued)
	require.Equal(t, mcp.DefaultMaxConnections, o.runs.maxConns)

	o = mcpOptions{cfg: mcpConfig()}
	c = newMCPCommand(&o)
	_, ok = c.parse([]string{"--wall-time", "5m", "--max-runs", "3", "--max-queued-runs", "0"}, io.Discard, io.Discard)
	require.True(t, ok)
	require.Equal(t, 5*time.Minute, o.cfg.WallTime)
	var so mcp.ServerOptions
	require.NoError(t, o.runs.options(&so))
	require.Equal(t, 3, so.MaxRuns)
	require.Equal(t, -1, so.MaxQueuedRuns, "no queue")
}
