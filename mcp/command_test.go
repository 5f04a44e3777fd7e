package mcp

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

const helperEnv = "CODERUN_MCP_TEST_HELPER"

// TestHelperUpstream is not a test: run with $CODERUN_MCP_TEST_HELPER set,
// it is an MCP server over stdio for the tests of command upstreams.
func TestHelperUpstream(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("a helper process")
	}
	fmt.Fprintln(os.Stderr, "helper server running on stdio") // a banner, as servers print
	if mode == "badstart" {
		fmt.Fprintln(os.Stderr, "Error: cannot open the configuration file")
		fmt.Fprintln(os.Stderr, "bye")
		os.Exit(1)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "die"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "Error: disk on fire")
		fmt.Fprintln(os.Stderr, "    at burn (server.js:1:1)")
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "vanish"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	})
	sdk.AddTool(s, &sdk.Tool{Name: "roots"}, func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		caps := req.Session.InitializeParams().Capabilities
		text := fmt.Sprint(caps.Roots.ListChanged || caps.RootsV2 != nil)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
	})
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
	os.Exit(0)
}

// helperUpstream is a command upstream running TestHelperUpstream in mode.
func helperUpstream(t *testing.T, mode string) *Upstream {
	t.Setenv(helperEnv, mode)
	u := NewCommandUpstream("helper", []string{os.Args[0], "-test.run=^TestHelperUpstream$"}, nil, nil)
	t.Cleanup(func() { _ = u.Close() })
	return u
}

// A dead command upstream's error says how it exited, and quotes the
// stderr line that reads like an error, not its last line (here a stack
// frame) nor its startup banner.
func TestCommandUpstreamDeath(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	u := helperUpstream(t, "serve")
	require.NoError(t, u.Start(ctx))
	res, err := u.Call(ctx, "roots", nil)
	require.NoError(t, err)
	require.Equal(t, `false`, string(res), "the client does not advertise roots")

	_, err = u.Call(ctx, "die", nil)
	require.EqualError(t, err, `upstream "helper" is not running: the server exited (exit status 3) (stderr: Error: disk on fire)`)

	require.NoError(t, u.Start(ctx)) // restarted
	_, err = u.Call(ctx, "vanish", nil)
	require.EqualError(t, err, `upstream "helper" is not running: the server exited (signal: killed)`,
		"nothing since it started reads like an error: the banner is not quoted")

	bad := helperUpstream(t, "badstart")
	err = bad.Start(ctx)
	require.ErrorContains(t, err, `starting upstream "helper": `)
	require.ErrorContains(t, err, "(stderr: Error: cannot open the configuration file)")
}

func TestStderrTailRelevant(t *testing.T) {
	tail := &stderrTail{}
	tail.reset()
	_, _ = tail.Write([]byte("banner\nwarning: failed to read cache\n"))
	require.Equal(t, "warning: failed to read cache", tail.relevant(false))
	tail.mark()
	require.Equal(t, "", tail.relevant(true), "nothing since mark")
	_, _ = tail.Write([]byte("served a request\n"))
	require.Equal(t, "", tail.relevant(true))
	_, _ = tail.Write([]byte("TypeError: x is undefined\n    at f (a.js:1)\nNode.js v20"))
	require.Equal(t, "TypeError: x is undefined", tail.relevant(true))
	for i := range 3 * maxStderrLines {
		_, _ = fmt.Fprintf(tail, "line %d\n", i)
	}
	require.Len(t, tail.lines, maxStderrLines, "bounded")
	require.Equal(t, "", tail.relevant(true))
	require.Equal(t, fmt.Sprintf("line %d", 3*maxStderrLines-1), tail.relevant(false))
}
