package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

// newRuntime returns a runtime with a short compute budget, so that runaway
// programs end quickly, closed when the test ends.
func newRuntime(t *testing.T, mutate func(*coderun.Config)) *coderun.Runtime {
	t.Helper()
	cfg := coderun.DefaultConfig()
	cfg.ComputeTime = 2 * time.Second
	cfg.WallTime = time.Minute
	if dir, err := os.UserCacheDir(); err == nil {
		cfg.CacheDir = filepath.Join(dir, "coderun") // load the compiled engine, not compile it (seconds under -race)
	}
	if mutate != nil {
		mutate(&cfg)
	}
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

type textArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sumResult struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

// testServer builds the in-process upstream of the unit tests:
//
//	echo({text})        text content "echo: TEXT"
//	add({a, b})         structuredContent {sum}, with an output schema
//	fail({text})        isError with text TEXT
//	"get-json"({})      text content holding JSON
//	image({})           image content only
func testServer(opts *sdk.ServerOptions) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "local", Version: "1"}, opts)
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes text.", Annotations: readOnly},
		func(_ context.Context, _ *sdk.CallToolRequest, in textArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two numbers.", Annotations: readOnly},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, sumResult, error) {
			return nil, sumResult{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textArgs) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New(in.Text)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "get-json"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: ` {"n": 1, "list": [true, null]} `}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("png"), MIMEType: "image/png"}}}, nil, nil
		})
	return s
}

// inProcess serves an upstream from an in-process SDK server over pipes. It
// records the pipes of every connection, so that a test can break one as if
// the server's process had died.
type inProcess struct {
	server *sdk.Server

	// taskOnly names tools that the server's tools/list marks with
	// execution.taskSupport "required" (go-sdk's Tool cannot say so).
	taskOnly []string

	mu    sync.Mutex
	pipes []*io.PipeWriter // per connection, server→client
	fail  error            // when set, dialing fails with it
}

func (p *inProcess) dial(ctx context.Context) (sdk.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return nil, p.fail
	}
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	var st sdk.Transport = &sdk.IOTransport{Reader: serverR, Writer: serverW}
	if len(p.taskOnly) > 0 {
		st = &markTasks{Transport: st, names: p.taskOnly}
	}
	if _, err := p.server.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	p.pipes = append(p.pipes, serverW)
	return &sdk.IOTransport{Reader: clientR, Writer: clientW}, nil
}

// kill breaks the latest connection: the client reads EOF, as from a
// process that exited.
func (p *inProcess) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.pipes[len(p.pipes)-1].Close()
}

func (p *inProcess) setFail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail = err
}

// startUpstream starts an upstream named name served by srv, closed when
// the test ends.
func startUpstream(t *testing.T, name string, srv *sdk.Server) (*Upstream, *inProcess) {
	t.Helper()
	p := &inProcess{server: srv}
	u := NewUpstream(name, p.dial, nil)
	require.NoError(t, u.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, u.Close()) })
	return u, p
}

// connectClient connects an MCP client to s over in-memory transports.
func connectClient(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cs.Close())
		_ = ss.Wait()
	})
	return cs
}

// callRunCode calls run_code and returns its text items joined by
// newlines and whether it is an error result.
func callRunCode(t *testing.T, cs *sdk.ClientSession, code string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": code}})
	require.NoError(t, err)
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		require.True(t, ok, "content %T", c)
		texts = append(texts, tc.Text)
	}
	require.NotEmpty(t, texts)
	return strings.Join(texts, "\n"), res.IsError
}

var (
	errDialBroken      = errors.New("dial broken")
	errCancelledByTest = errors.New("cancelled by the test")
)

// atomicMax counts calls in flight and records the peak.
type atomicMax struct{ n atomic.Int64 }

func (a *atomicMax) enter(peak *atomicMax) {
	n := a.n.Add(1)
	for {
		p := peak.n.Load()
		if n <= p || peak.n.CompareAndSwap(p, n) {
			return
		}
	}
}

func (a *atomicMax) leave() { a.n.Add(-1) }

func (a *atomicMax) load() int64 { return a.n.Load() }

// markTasks adds execution.taskSupport "required" to the named tools of the
// tools/list results a server sends.
type markTasks struct {
	sdk.Transport
	names []string
}

func (m *markTasks) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := m.Transport.Connect(ctx)
	return &markTasksConn{Connection: c, names: m.names}, err
}

type markTasksConn struct {
	sdk.Connection
	names []string
}

func (c *markTasksConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
		var res map[string]any
		if json.Unmarshal(resp.Result, &res) == nil {
			if tools, ok := res["tools"].([]any); ok {
				for _, t := range tools {
					tool := t.(map[string]any)
					if slices.Contains(c.names, tool["name"].(string)) {
						tool["execution"] = map[string]any{"taskSupport": "required"}
					}
				}
				resp.Result, _ = json.Marshal(res)
			}
		}
	}
	return c.Connection.Write(ctx, msg)
}
