package deploy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fleetUpstreamEnv makes the test binary the fleet's upstream, an MCP
// server on its stdio, before any test runs: each replica starts it with
// --upstream data=TESTBINARY and this variable in its environment.
const fleetUpstreamEnv = "CODERUN_FLEET_UPSTREAM"

func init() {
	if os.Getenv(fleetUpstreamEnv) == "1" {
		fleetServeUpstream()
		os.Exit(0)
	}
}

// fleetRowsArgs are the arguments of the upstream's rows tool.
type fleetRowsArgs struct {
	N    int `json:"n" jsonschema:"how many rows, 1 to 1000"`
	Seed int `json:"seed" jsonschema:"the seed the rows are derived from"`
}

// fleetRow is one row of the rows tool.
type fleetRow struct {
	ID    int `json:"id"`
	Group int `json:"group"`
	Value int `json:"value"`
}

// fleetRows is the rows tool's result.
type fleetRows struct {
	Items []fleetRow `json:"items"`
}

// fleetRowsOf returns the n rows of seed: the same for the upstream and for
// the test, which computes what each program must return from them.
func fleetRowsOf(n, seed int) fleetRows {
	rows := fleetRows{Items: make([]fleetRow, n)}
	for id := range n {
		rows.Items[id] = fleetRow{ID: id, Group: id % 5, Value: (seed*7919 + id*104729) % 1000}
	}
	return rows
}

// fleetServeUpstream serves, on stdio until the replica leaves, the tools
// rows (data after a random latency of 0 to 50 ms, as a remote API's),
// fail (always an error), touch (creates a file, which tells the test
// that a run has reached it) and exists (whether a file exists, which the
// test creates to let a run end).
func fleetServeUpstream() {
	s := sdk.NewServer(&sdk.Implementation{Name: "data", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "rows", Description: "Rows of a data set: {items: [{id, group, value}]}."},
		func(ctx context.Context, _ *sdk.CallToolRequest, a fleetRowsArgs) (*sdk.CallToolResult, fleetRows, error) {
			if a.N < 1 || a.N > 1000 {
				return nil, fleetRows{}, fmt.Errorf("n must be 1 to 1000, got %d", a.N)
			}
			select {
			case <-time.After(time.Duration(rand.IntN(51)) * time.Millisecond):
			case <-ctx.Done():
				return nil, fleetRows{}, ctx.Err()
			}
			return nil, fleetRowsOf(a.N, a.Seed), nil
		})
	type why struct {
		Why string `json:"why"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *sdk.CallToolRequest, w why) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("planned failure: " + w.Why)
		})
	type path struct {
		Path string `json:"path"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "touch", Description: "Creates an empty file."},
		func(_ context.Context, _ *sdk.CallToolRequest, p path) (*sdk.CallToolResult, any, error) {
			return nil, map[string]bool{"ok": true}, os.WriteFile(p.Path, nil, 0o600)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "exists", Description: "Whether a file exists."},
		func(_ context.Context, _ *sdk.CallToolRequest, p path) (*sdk.CallToolResult, map[string]bool, error) {
			_, err := os.Stat(p.Path)
			return nil, map[string]bool{"exists": err == nil}, nil
		})
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
}

// fleetProgram is a run_code call of the load and what it must answer.
type fleetProgram struct {
	kind  string
	code  string
	want  string // the result's text; for a planned failure, a part of it
	fails bool   // a planned failure: an error result is the right answer
}

// fleetProgramFor returns the program of the load's i-th call: of every
// 20, 8 aggregate rows, 6 fetch four sets in parallel (Promise.all), 3 sort
// in TypeScript, 3 fail in the upstream.
func fleetProgramFor(i int) fleetProgram {
	seed := i*31 + 7
	switch k := i % 20; {
	case k < 8:
		return fleetProgram{kind: "aggregate", want: fleetTopGroup(fleetRowsOf(200, seed)), code: fmt.Sprintf(`
const r = await data.rows({n: 200, seed: %d});
const byGroup = new Map();
for (const it of r.items) byGroup.set(it.group, (byGroup.get(it.group) ?? 0) + it.value);
const top = [...byGroup.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
return top[0] + ":" + top[1];`, seed)}
	case k < 14:
		sums := make([]string, 4)
		for j := range sums {
			sums[j] = fmt.Sprint(fleetSum(fleetRowsOf(50, seed+j)))
		}
		return fleetProgram{kind: "parallel", want: strings.Join(sums, ","), code: fmt.Sprintf(`
const parts = await Promise.all([0, 1, 2, 3].map(k => data.rows({n: 50, seed: %d + k})));
return parts.map(p => p.items.reduce((a, it) => a + it.value, 0)).join(",");`, seed)}
	case k < 17:
		vals := make([]int, 0, 301)
		for _, r := range fleetRowsOf(301, seed).Items {
			vals = append(vals, r.Value)
		}
		slices.Sort(vals)
		return fleetProgram{kind: "sort", want: fmt.Sprint(vals[150]), code: fmt.Sprintf(`
type Row = { id: number; group: number; value: number };
const r: { items: Row[] } = await data.rows({n: 301, seed: %d});
const vals: number[] = r.items.map((it: Row) => it.value).sort((a, b) => a - b);
return String(vals[150]);`, seed)}
	default:
		return fleetProgram{kind: "failure", fails: true, want: fmt.Sprintf("planned failure: seed %d", seed), code: fmt.Sprintf(`
await data.rows({n: 3, seed: %d});
await data.fail({why: "seed %d"});
return "unreachable";`, seed, seed)}
	}
}

// fleetSum is the sum of the rows' values.
func fleetSum(rows fleetRows) int {
	sum := 0
	for _, r := range rows.Items {
		sum += r.Value
	}
	return sum
}

// fleetTopGroup is "GROUP:SUM" of the group whose values sum highest (the
// smaller group on a tie).
func fleetTopGroup(rows fleetRows) string {
	sums := map[int]int{}
	for _, r := range rows.Items {
		sums[r.Group] += r.Value
	}
	best := -1
	for g, s := range sums {
		if best < 0 || s > sums[best] || (s == sums[best] && g < best) {
			best = g
		}
	}
	return fmt.Sprintf("%d:%d", best, sums[best])
}
