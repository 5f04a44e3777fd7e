package mcp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Server turns MCP servers into one run_code tool. Here the upstream is
// an MCP server in the same process, reached over in-memory transports;
// mcp.NewCommandUpstream starts one as a subprocess instead. RunCode runs
// a program as a client's run_code call would; Serve (with
// Server.StdioTransport) or Server.HTTPHandler serve it to clients.
func Example() {
	ctx := context.Background()

	// The upstream: an MCP server with one tool, calc.add.
	calc := sdk.NewServer(&sdk.Implementation{Name: "calc", Version: "1"}, nil)
	type addArgs struct{ A, B float64 }
	type sum struct{ Sum float64 }
	sdk.AddTool(calc, &sdk.Tool{Name: "add", Description: "Adds two numbers.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, sum, error) {
			return nil, sum{Sum: in.A + in.B}, nil
		})
	dial := func(ctx context.Context) (sdk.Transport, error) {
		client, server := sdk.NewInMemoryTransports()
		if _, err := calc.Connect(ctx, server, nil); err != nil {
			return nil, err
		}
		return client, nil
	}
	upstream := mcp.NewUpstream("calc", dial, nil)
	if err := upstream.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer upstream.Close()

	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s, err := mcp.NewServer(rt, []*mcp.Upstream{upstream}, nil)
	if err != nil {
		log.Fatal(err)
	}

	res := s.RunCode(ctx, `const sums = await Promise.all([calc.add({A: 1, B: 2}), calc.add({A: 3, B: 4})]);
console.log("two calls");
return sums.map(s => s.Sum);`)
	for _, c := range res.Content {
		fmt.Println(c.(*sdk.TextContent).Text)
	}
	// Output:
	// two calls
	// [
	//   3,
	//   7
	// ]
}

// Every run_code result carries the run's id and usage in its _meta, and
// the server's metrics count the run; MetricsHandler serves them (an
// HTTPHandler also serves them at /metrics).
func ExampleServer_MetricsHandler() {
	ctx := context.Background()
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s, err := mcp.NewServer(rt, nil, nil)
	if err != nil {
		log.Fatal(err)
	}

	res := s.RunCode(ctx, `return 6 * 7`)
	usage := res.Meta[mcp.MetaUsage].(coderun.Usage)
	fmt.Println("run id digits:", len(res.Meta[mcp.MetaRunID].(string)), "binding calls:", usage.Calls)

	ts := httptest.NewServer(s.MetricsHandler())
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(body), "\n") {
		if strings.HasPrefix(line, "coderun_runs_total") || strings.HasPrefix(line, "coderun_run_fuel_count") {
			fmt.Println(line)
		}
	}
	// Output:
	// run id digits: 16 binding calls: 0
	// coderun_run_fuel_count 1
	// coderun_runs_total{budget="none",kind="ok"} 1
}
