package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/testenv"
)

// The official TypeScript SDK client and the filesystem server, pinned;
// scripts/test installs them into npmDir next to the reference server.
const (
	tsSDKVersion      = "1.32.2"
	filesystemVersion = "2026.8.31"
	npmDir            = "../../.cache/npm" // relative to this package
)

// npmPackage returns the directory of an installed npm package at version.
// When it (or node) is missing the test is skipped, saying how to install
// it, or fails (see testenv.Missing).
func npmPackage(t *testing.T, name, version string) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		testenv.Missing(t, format+"; install it with\n\n\tnpm install --prefix .cache/npm --save-exact %s@%s\n\nfrom the repository root (scripts/test does this)",
			append(args, name, version)...)
	}
	testenv.Node(t)
	dir, err := filepath.Abs(filepath.Join(npmDir, "node_modules", name))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		missing("%s is not installed (%v)", name, err)
	}
	var meta struct{ Version string }
	require.NoError(t, json.Unmarshal(b, &meta))
	if meta.Version != version {
		missing("%s is version %s, the tests expect %s", name, meta.Version, version)
	}
	return dir
}

// tsDriver runs testdata/e2e.mjs scenario with config (plus the SDK's
// directory) and decodes what it printed into out.
func tsDriver(t *testing.T, sdkDir, scenario string, config map[string]any, out any) {
	t.Helper()
	config["sdk"] = sdkDir
	cfg, err := json.Marshal(config)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/e2e.mjs", scenario, string(cfg))
	cmd.Stderr = testLog{t}
	stdout, err := cmd.Output()
	require.NoError(t, err, "the TypeScript driver failed (scenario %s); stdout: %s", scenario, stdout)
	require.NoError(t, json.Unmarshal(stdout, out), "driver output: %s", stdout)
	t.Logf("%s: %s", scenario, stdout)
}

// httpServer is a `coderun mcp --http` process.
type httpServer struct {
	url    string
	cmd    *exec.Cmd
	stderr *testenv.Buffer // everything it wrote to stderr
	exited chan struct{}   // closed when it has exited
	err    error           // its exit, once exited is closed
}

// startHTTPServer starts bin mcp --http 127.0.0.1:0 with args and waits for
// its address; it is killed when the test ends, if still running.
func startHTTPServer(t *testing.T, bin string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	s := &httpServer{cmd: cmd, stderr: &testenv.Buffer{}, exited: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(pipe)
		for lines.Scan() {
			_, _ = fmt.Fprintln(s.stderr, lines.Text())
			if m := regexp.MustCompile(`at (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
				addr <- m[1]
			}
		}
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.stderr.String())
		}
	})
	select {
	case s.url = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatalf("no address on stderr: %s", s.stderr.String())
	}
	return s
}

// roundRobin is a load balancer alternating between backends.
func roundRobin(t *testing.T, backends ...string) (string, func() []int) {
	var mu sync.Mutex
	hits := make([]int, len(backends))
	next := 0
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := next
		next = (next + 1) % len(backends)
		hits[i]++
		mu.Unlock()
		target, _ := url.Parse(backends[i])
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	return lb.URL, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(hits)
	}
}

type outcome[T any] struct {
	OK    bool
	Value T
	Error string
	Code  *int
}

// TestTypeScriptClient drives `coderun mcp` with the official TypeScript
// SDK client, over stdio and streamable HTTP, with the reference and
// filesystem servers as upstreams.
func TestTypeScriptClient(t *testing.T) {
	c := tsClient{
		sdkDir:     npmPackage(t, "@modelcontextprotocol/sdk", tsSDKVersion),
		everything: everythingUpstream(t),
		bin:        buildCoderun(t),
	}
	for _, tc := range []struct {
		name string
		run  func(*testing.T, tsClient)
	}{
		{"HTTP: Origin 403, missing or wrong token 401", testTSAuth},
		{"HTTP: DELETE during a long run answers at once and stops it", testTSDelete},
		{"stdio: a malformed line, then a working call", testTSBadLine},
		{"progress keeps a 3 s run alive past a 1.5 s client timeout", testTSProgress},
		{"the description's examples are safe against the filesystem server", testTSExamples},
		{"structured results over HTTP", testTSStructured},
		{"stateless mode across two server processes", testTSStateless},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, c) })
	}
}

// tsClient is what the cases of TestTypeScriptClient run with: the
// TypeScript SDK's folder, the --upstream value of the reference server and
// the coderun binary.
type tsClient struct{ sdkDir, everything, bin string }

// testTSAuth checks HTTP's guards: a foreign Origin gets 403, a missing or
// wrong token 401; the right token and a loopback Origin pass.
func testTSAuth(t *testing.T, c tsClient) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("e2e-token\n"), 0o600))
	srv := startHTTPServer(t, c.bin, "--token-file", tokenFile)
	var got struct{ EvilOrigin, NoToken, WrongToken, RightToken, LoopbackOrigin outcome[[]string] }
	tsDriver(t, c.sdkDir, "auth", map[string]any{"url": srv.url, "token": "e2e-token"}, &got)
	status := func(o outcome[[]string]) int {
		require.False(t, o.OK)
		require.NotNil(t, o.Code, o.Error)
		return *o.Code
	}
	require.Equal(t, 403, status(got.EvilOrigin), got.EvilOrigin.Error)
	require.Contains(t, got.EvilOrigin.Error, `origin "http://evil.example" is not allowed`)
	require.Equal(t, 401, status(got.NoToken), got.NoToken.Error)
	require.Equal(t, 401, status(got.WrongToken), got.WrongToken.Error)
	require.True(t, got.RightToken.OK, got.RightToken.Error)
	require.Equal(t, []string{"42"}, got.RightToken.Value)
	require.True(t, got.LoopbackOrigin.OK, got.LoopbackOrigin.Error)
}

// testTSDelete checks that over HTTP a DELETE during a long run is answered
// at once and aborts the run.
func testTSDelete(t *testing.T, c tsClient) {
	srv := startHTTPServer(t, c.bin, "--log-usage")
	var got struct {
		Terminated  outcome[any]
		DeleteMs    float64
		CallOutcome outcome[any]
		CallEndedMs float64
	}
	tsDriver(t, c.sdkDir, "delete", map[string]any{"url": srv.url, "waitMs": 700}, &got)
	require.True(t, got.Terminated.OK, got.Terminated.Error)
	require.Less(t, got.DeleteMs, 1000.0, "DELETE answered in %v ms", got.DeleteMs)
	// The run (60 s) was aborted: the server logs its outcome.
	require.Eventually(t, func() bool { return strings.Contains(srv.stderr.String(), "outcome=abort") }, 5*time.Second, 10*time.Millisecond,
		"the run was not aborted: %s", srv.stderr.String())
	m := regexp.MustCompile(`outcome=abort .*wall_time=(\S+)`).FindStringSubmatch(srv.stderr.String())
	require.NotNil(t, m)
	wall, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	require.Less(t, wall, 5*time.Second, "the run ended at the DELETE, not at its end")
}

// testTSBadLine checks that over stdio a malformed line is reported and the
// next call works.
func testTSBadLine(t *testing.T, c tsClient) {
	var got struct {
		Before []string
		After  outcome[[]string]
		Errors []string
	}
	tsDriver(t, c.sdkDir, "badline", map[string]any{"command": c.bin, "args": []string{"mcp"}}, &got)
	require.Equal(t, []string{"before"}, got.Before)
	require.True(t, got.After.OK, got.After.Error)
	require.Equal(t, []string{"after"}, got.After.Value)
}

// testTSProgress checks that progress notifications keep a 3 s run alive
// past a 1.5 s client timeout, and that the upstream's own progress is
// folded in.
func testTSProgress(t *testing.T, c tsClient) {
	var got struct {
		WithReset        outcome[[]string]
		Progress         []sdk.ProgressNotificationParams
		WithoutReset     outcome[[]string]
		Folded           outcome[[]string]
		UpstreamProgress []sdk.ProgressNotificationParams
	}
	tsDriver(t, c.sdkDir, "progress", map[string]any{"command": c.bin, "args": []string{"mcp", "--upstream", c.everything},
		"timeoutMs": 1500,
		"code": `for (let i = 0; i < 6; i++) {
  await everything.echo({message: "tick " + i});
  await new Promise(r => setTimeout(r, 500));
}
return "done"`,
		"foldedCode": `return await everything["trigger-long-running-operation"]({duration: 1, steps: 4})`,
	}, &got)
	require.True(t, got.WithReset.OK, got.WithReset.Error)
	require.Equal(t, []string{"done"}, got.WithReset.Value)
	require.GreaterOrEqual(t, len(got.Progress), 5)
	for i := 1; i < len(got.Progress); i++ {
		require.Greater(t, got.Progress[i].Progress, got.Progress[i-1].Progress, "progress is strictly increasing")
	}
	require.Equal(t, "everything.echo done", got.Progress[0].Message)
	// Without resetTimeoutOnProgress the same run times out: the
	// timeout is real.
	require.False(t, got.WithoutReset.OK)
	require.Contains(t, got.WithoutReset.Error, "timed out")
	// The upstream's own progress is folded in.
	require.True(t, got.Folded.OK, got.Folded.Error)
	var upstream int
	for _, p := range got.UpstreamProgress {
		if strings.HasPrefix(p.Message, `everything["trigger-long-running-operation"]: `) {
			upstream++
		}
	}
	require.Positive(t, upstream, "no progress of the upstream's own: %+v", got.UpstreamProgress)
}

// testTSExamples checks that the description's examples, run against the
// filesystem server, call only read-only tools and change nothing.
func testTSExamples(t *testing.T, c tsClient) {
	fsDir := npmPackage(t, "@modelcontextprotocol/server-filesystem", filesystemVersion)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello"), 0o600))
	before := tree(t, root)
	var got struct {
		Description string
		Results     []struct {
			Code    string
			IsError bool
			Texts   []string
		}
	}
	tsDriver(t, c.sdkDir, "examples", map[string]any{"command": c.bin,
		"args": []string{"mcp", "--upstream", "files=node '" + filepath.Join(fsDir, "dist/index.js") + "' '" + root + "'"}}, &got)
	require.Len(t, got.Results, 2)
	readOnly := []string{"read_file", "read_text_file", "read_media_file", "read_multiple_files", "list_directory",
		"list_directory_with_sizes", "directory_tree", "search_files", "get_file_info", "list_allowed_directories"}
	called := 0
	for _, r := range got.Results {
		for _, m := range regexp.MustCompile(`files\.(\w+)\(`).FindAllStringSubmatch(r.Code, -1) {
			require.Contains(t, readOnly, m[1], "the example calls a tool that is not read-only:\n%s", r.Code)
			called++
		}
	}
	require.Positive(t, called, "the examples call real (read-only) tools")
	require.Equal(t, before, tree(t, root), "running the examples changed the folder")
	require.Contains(t, got.Description, "create_directory(args", "the destructive tools are declared")
}

// testTSStructured checks structured results over HTTP: the output schema, a
// success and a failure.
func testTSStructured(t *testing.T, c tsClient) {
	srv := startHTTPServer(t, c.bin)
	var got struct {
		OutputSchema map[string]any
		OK           sdk.CallToolResult
		Failed       sdk.CallToolResult
	}
	tsDriver(t, c.sdkDir, "structured", map[string]any{"url": srv.url}, &got)
	require.Equal(t, []any{"logs"}, got.OutputSchema["required"])
	require.False(t, got.OK.IsError)
	require.Len(t, got.OK.Content, 2)
	require.Equal(t, "a 1\nb", got.OK.Content[0].(*sdk.TextContent).Text)
	require.Equal(t, "{\n  \"n\": 1,\n  \"s\": \"x\"\n}", got.OK.Content[1].(*sdk.TextContent).Text)
	require.Equal(t, map[string]any{"logs": []any{"a 1", "b"}, "value": map[string]any{"n": 1.0, "s": "x"}}, got.OK.StructuredContent)
	require.True(t, got.Failed.IsError)
	require.True(t, strings.HasPrefix(got.Failed.Content[0].(*sdk.TextContent).Text, "code run failed (exception): RangeError: boom"))
}

// testTSStateless checks stateless mode: calls spread over two server
// processes behind a round robin, without a session.
func testTSStateless(t *testing.T, c tsClient) {
	a := startHTTPServer(t, c.bin, "--stateless")
	b := startHTTPServer(t, c.bin, "--stateless")
	lb, hits := roundRobin(t, a.url, b.url)
	var got struct {
		Tools     []string
		Values    []float64
		SessionID *string
	}
	tsDriver(t, c.sdkDir, "stateless", map[string]any{"url": lb, "calls": 4}, &got)
	require.Equal(t, []string{"run_code"}, got.Tools)
	require.Equal(t, []float64{0, 2, 4, 6}, got.Values)
	require.Nil(t, got.SessionID, "no session")
	for i, n := range hits() {
		require.Positive(t, n, "replica %d served nothing", i)
	}
}

// tree lists the files and folders under root with their sizes.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, fmt.Sprintf("%s %v %d", rel, d.IsDir(), info.Size()))
		return nil
	}))
	return out
}

// On SIGTERM, coderun mcp --http answers /readyz and new requests 503,
// lets the runs in flight finish for --shutdown-grace, cancels the rest,
// and exits 0.
func TestMCPShutdownGrace(t *testing.T) {
	bin := buildCoderun(t)
	srv := startHTTPServer(t, bin, "--shutdown-grace", "5s")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.url}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()

	results := make(chan string, 2)
	for _, code := range []string{`await new Promise(r => setTimeout(r, 300)); return "short"`, `await new Promise(r => setTimeout(r, 60000)); return "long"`} {
		go func() {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
			if err != nil {
				results <- "error: " + err.Error()
				return
			}
			results <- res.Content[0].(*sdk.TextContent).Text
		}()
	}
	// Both runs are going: a second is ample on a loaded machine, and the
	// grace of 5 s leaves the short run room to finish whatever the load.
	time.Sleep(time.Second)
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	// While the runs finish, the listener stays open: /readyz answers 503
	// (a load balancer's check sees the replica leave) and so does a new
	// request, on a new connection each.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	status := func(resp *http.Response, err error) int { // 0: refused
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	require.Eventually(t, func() bool {
		return status(fresh.Get(srv.url+"readyz")) == http.StatusServiceUnavailable
	}, 5*time.Second, 10*time.Millisecond, "/readyz turns 503 on SIGTERM")
	require.Equal(t, http.StatusServiceUnavailable, status(fresh.Post(srv.url, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))), "a new request while draining")
	got := []string{<-results, <-results}
	slices.Sort(got)
	require.Equal(t, []string{"code run failed (abort): the server is shutting down", "short"}, got)
	select {
	case <-srv.exited:
		require.NoError(t, srv.err, "exit status 0")
	case <-time.After(time.Minute): // a watchdog: the long run alone would last 60 s
		t.Fatal("the server did not exit")
	}
	require.Contains(t, srv.stderr.String(), "shutting down: letting the runs in flight finish for up to 5s")
}
