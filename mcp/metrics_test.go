package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

// scrape GETs url's /metrics with headers and returns its samples, keyed
// by series as the text format writes them (labels in name order).
func scrape(t *testing.T, url string, header map[string]string) map[string]float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/plain")
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		require.Positive(t, i, line)
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		samples[line[:i]] = v
	}
	require.NoError(t, sc.Err())
	return samples
}

// series returns the samples of metric whose series start with prefix
// (the metric's name and "{" for labelled ones).
func series(samples map[string]float64, prefix string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range samples {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// usageOf decodes the usage in a run_code result's _meta.
func usageOf(t *testing.T, res *sdk.CallToolResult) coderun.Usage {
	t.Helper()
	raw, err := json.Marshal(res.Meta[MetaUsage])
	require.NoError(t, err)
	var u coderun.Usage
	require.NoError(t, json.Unmarshal(raw, &u))
	return u
}

// Runs through an MCP client are counted by outcome and budget, their
// usage observed in the histograms (whose sums are the usages the
// clients saw), and their binding calls by upstream, tool and outcome.
func TestMetricsRuns(t *testing.T) {
	u, _ := startUpstream(t, "local", testServer(nil))
	s, err := NewServer(newRuntime(t, func(c *coderun.Config) { c.ComputeTime = 300 * time.Millisecond }), []*Upstream{u}, nil)
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	cs := connectClient(t, s, nil)

	programs := []struct{ code, kind string }{
		{`return (await local.add({a: 1, b: 2})).sum`, "ok"},
		{`try { await local.fail({text: "no"}) } catch (e) {} return await local.echo({text: "x"})`, "ok"},
		{`while (true) {}`, "timeout"},
		{`throw new Error("bad")`, "exception"},
	}
	var fuel, peak float64
	for _, p := range programs {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolName, Arguments: map[string]any{"code": p.code}})
		require.NoError(t, err)
		require.Equal(t, p.kind != "ok", res.IsError, p.code)
		usage := usageOf(t, res)
		fuel += float64(usage.Fuel)
		peak += float64(usage.PeakMemoryBytes)
	}

	m := scrape(t, url, nil)
	require.Equal(t, map[string]float64{
		`coderun_runs_total{budget="none",kind="ok"}`:         2,
		`coderun_runs_total{budget="compute",kind="timeout"}`: 1,
		`coderun_runs_total{budget="none",kind="exception"}`:  1,
	}, series(m, "coderun_runs_total{"))
	for _, h := range []string{"coderun_run_duration_seconds", "coderun_run_compute_seconds", "coderun_run_fuel",
		"coderun_run_peak_memory_bytes", "coderun_run_queue_wait_seconds"} {
		require.Equal(t, 4.0, m[h+"_count"], h)
		require.Equal(t, 4.0, m[h+`_bucket{le="+Inf"}`], h)
	}
	require.Equal(t, fuel, m["coderun_run_fuel_sum"])
	require.Equal(t, peak, m["coderun_run_peak_memory_bytes_sum"])
	require.GreaterOrEqual(t, m["coderun_run_compute_seconds_sum"], 0.3, "the timeout spent its compute time")
	require.Equal(t, map[string]float64{
		`coderun_binding_calls_total{outcome="ok",tool="add",upstream="local"}`:     1,
		`coderun_binding_calls_total{outcome="error",tool="fail",upstream="local"}`: 1,
		`coderun_binding_calls_total{outcome="ok",tool="echo",upstream="local"}`:    1,
	}, series(m, "coderun_binding_calls_total{"))
	require.Equal(t, 2.0, m[`coderun_binding_call_duration_seconds_count{outcome="ok",upstream="local"}`])
	require.Equal(t, 1.0, m[`coderun_binding_call_duration_seconds_count{outcome="error",upstream="local"}`])
	require.Equal(t, 0.0, m["coderun_runs_in_flight"])
	require.Equal(t, 0.0, m["coderun_runs_queued"])
	require.Equal(t, 1.0, m["coderun_sessions"], "the client's session")
	require.Equal(t, 0.0, m[`coderun_upstream_restarts_total{upstream="local"}`])
	require.Equal(t, 1.0, m[`coderun_upstream_up{upstream="local"}`])
	require.Empty(t, series(m, "coderun_runs_refused_total"))
	require.Contains(t, m, "go_goroutines")
	require.Contains(t, m, "process_resident_memory_bytes")
}

// A program over MaxProgramBytes is an exception that the program budget
// ended, without running.
func TestMetricsProgramTooLarge(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, &ServerOptions{MaxProgramBytes: 64})
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	res := s.RunCode(context.Background(), "return "+strings.Repeat("1+", 40)+"1")
	require.True(t, res.IsError)
	m := scrape(t, url, nil)
	require.Equal(t, map[string]float64{`coderun_runs_total{budget="program",kind="exception"}`: 1}, series(m, "coderun_runs_total{"))
}

// An input refused (over MaxInputBytes, or not lossless JSON) is a call
// refused with the reason invalid_input, before anything runs: no run is
// counted, and the result says why and carries a run id.
func TestMetricsInputRefused(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, &ServerOptions{MaxInputBytes: 16})
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	for _, in := range []string{`"` + strings.Repeat("x", 20) + `"`, `{"n": 12345678901234567890}`} {
		res := s.RunCodeInput(context.Background(), "return input", json.RawMessage(in))
		require.True(t, res.IsError)
		require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "run_code's input was refused, nothing ran: ")
		require.NotEmpty(t, res.Meta[MetaRunID])
	}
	m := scrape(t, url, nil)
	require.Equal(t, map[string]float64{`coderun_runs_refused_total{reason="invalid_input"}`: 2}, series(m, "coderun_runs_refused_total{"))
	require.Empty(t, series(m, "coderun_runs_total{"))
}

// Calls refused as busy are counted by reason, those answered 503 over
// HTTP too, and the gauges show the runs going and waiting.
func TestMetricsRefused(t *testing.T) {
	gate, open := newGate()
	defer open()
	var inFlight, peak atomicMax
	u, _ := startUpstream(t, "g", gateServer(gate, &inFlight, &peak))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, &ServerOptions{MaxRuns: 1, MaxQueuedRuns: 1, MaxQueueWait: time.Minute})
	require.NoError(t, err)
	_, url := serveHTTP(t, s, &HTTPOptions{Stateless: true})
	done := make(chan *sdk.CallToolResult, 2)
	go func() { done <- s.RunCode(context.Background(), `return await g.hold({})`) }()
	waitCounts(t, s, 1, 0)
	go func() { done <- s.RunCode(context.Background(), `return 1`) }()
	waitCounts(t, s, 1, 1)

	res := s.RunCode(context.Background(), `return 2`) // the queue is full
	require.True(t, res.IsError)
	require.Regexp(t, `^[0-9a-f]{16}$`, res.Meta[MetaRunID])
	require.NotContains(t, res.Meta, MetaUsage, "a refused call did not run")
	resp := rawPost(t, url, toolCallBody(1, `return 3`), nil)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, readAll(t, resp))

	m := scrape(t, url, nil)
	require.Equal(t, 1.0, m["coderun_runs_in_flight"])
	require.Equal(t, 1.0, m["coderun_runs_queued"])
	require.Equal(t, map[string]float64{`coderun_runs_refused_total{reason="queue_full"}`: 2}, series(m, "coderun_runs_refused_total"))
	open()
	for range 2 {
		require.False(t, (<-done).IsError)
	}
	m = scrape(t, url, nil)
	require.Equal(t, 0.0, m["coderun_runs_in_flight"])
	require.Equal(t, 2.0, m[`coderun_runs_total{budget="none",kind="ok"}`])
	require.Equal(t, 3.0, m["coderun_run_queue_wait_seconds_count"], "two that ran, one refused at once")
}

// HTTP responses are counted by status code; /metrics needs the token
// when there is one.
func TestMetricsHTTPRequests(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	_, url := serveHTTP(t, s, &HTTPOptions{Token: "secret", Stateless: true})
	get := func(path string, header map[string]string) int {
		req, err := http.NewRequest(http.MethodGet, url+path, nil)
		require.NoError(t, err)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = readAll(t, resp)
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, get("/healthz", nil))
	require.Equal(t, http.StatusOK, get("/readyz", nil))
	require.Equal(t, http.StatusUnauthorized, get("/metrics", nil))
	require.Equal(t, http.StatusUnauthorized, get("/metrics", map[string]string{"Authorization": "Bearer wrong"}))
	require.Equal(t, http.StatusForbidden, get("/metrics", map[string]string{"Origin": "http://evil.example"}))
	auth := map[string]string{"Authorization": "Bearer secret"}
	resp := rawPost(t, url, toolCallBody(1, `return 1`), auth)
	require.Equal(t, http.StatusOK, resp.StatusCode, readAll(t, resp))

	m := scrape(t, url, auth)
	require.Equal(t, map[string]float64{
		`coderun_http_requests_total{code="200"}`: 3,
		`coderun_http_requests_total{code="401"}`: 2,
		`coderun_http_requests_total{code="403"}`: 1,
	}, series(m, "coderun_http_requests_total"))
	require.Equal(t, 0.0, m["coderun_sessions"], "stateless: no session outlives its request")
	// The scrape above is counted once it is answered.
	require.Equal(t, 4.0, scrape(t, url, auth)[`coderun_http_requests_total{code="200"}`])
}

// A restarted upstream is counted, and shown down while it is dead.
func TestMetricsUpstreamRestarts(t *testing.T) {
	u, p := startUpstream(t, "local", testServer(nil))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	p.kill()
	require.Eventually(t, func() bool { return !u.Running() }, 10*time.Second, time.Millisecond)
	m := scrape(t, url, nil)
	require.Equal(t, 0.0, m[`coderun_upstream_up{upstream="local"}`])
	require.Equal(t, 0.0, m[`coderun_upstream_restarts_total{upstream="local"}`])

	res := s.RunCode(context.Background(), `return await local.echo({text: "back"})`)
	require.False(t, res.IsError)
	m = scrape(t, url, nil)
	require.Equal(t, 1.0, m[`coderun_upstream_up{upstream="local"}`])
	require.Equal(t, 1.0, m[`coderun_upstream_restarts_total{upstream="local"}`])
}

// manyTools has tools t0 … t(n-1), each answering "ok".
func manyTools(n int) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "many", Version: "1"}, nil)
	for i := range n {
		sdk.AddTool(srv, &sdk.Tool{Name: fmt.Sprintf("t%d", i)}, func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
		})
	}
	return srv
}

// The tool label takes at most MaxToolLabels values (here lowered to 3)
// plus "other", the upstream label at most MaxUpstreamLabels plus
// "other"; no argument value or session id is ever a label.
func TestMetricsLabelCardinality(t *testing.T) {
	u, _ := startUpstream(t, "many", manyTools(10))
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	s.metrics.tools = newLabelCap(3)
	_, url := serveHTTP(t, s, nil)
	cs := connectClient(t, s, nil)
	text, isError := callRunCode(t, cs, `for (let round = 0; round < 2; round++)
  for (let i = 0; i < 10; i++) await many["t" + i]({text: "ARGUMENT-VALUE-" + i});
return "done"`)
	require.False(t, isError, text)

	m := scrape(t, url, nil)
	require.Equal(t, map[string]float64{
		`coderun_binding_calls_total{outcome="ok",tool="t0",upstream="many"}`:    2,
		`coderun_binding_calls_total{outcome="ok",tool="t1",upstream="many"}`:    2,
		`coderun_binding_calls_total{outcome="ok",tool="t2",upstream="many"}`:    2,
		`coderun_binding_calls_total{outcome="ok",tool="other",upstream="many"}`: 14,
	}, series(m, "coderun_binding_calls_total{"))
	for k := range m {
		require.NotContains(t, k, "ARGUMENT-VALUE")
		require.NotContains(t, k, "return")
	}

	// Upstreams beyond MaxUpstreamLabels share "other".
	ups := make([]*Upstream, MaxUpstreamLabels+5)
	for i := range ups {
		ups[i] = NewUpstream(fmt.Sprintf("u%d", i), nil, nil)
	}
	s2, err := NewServer(newRuntime(t, nil), ups, nil)
	require.NoError(t, err)
	ts := httptest.NewServer(s2.MetricsHandler())
	t.Cleanup(ts.Close)
	up := series(scrape(t, ts.URL, nil), "coderun_upstream_up{")
	require.Len(t, up, MaxUpstreamLabels+1)
	require.Equal(t, 0.0, up[`coderun_upstream_up{upstream="other"}`])
	require.Contains(t, up, fmt.Sprintf(`coderun_upstream_up{upstream="u%d"}`, MaxUpstreamLabels-1))
	s2.metrics.bindingCall(ups[len(ups)-1], "anything", callOK, time.Millisecond)
	calls := series(scrape(t, ts.URL, nil), "coderun_binding_calls_total{")
	require.Equal(t, map[string]float64{`coderun_binding_calls_total{outcome="ok",tool="other",upstream="other"}`: 1}, calls)
}

// Over stateful HTTP the session id is in no metric.
func TestMetricsNoSessionLabel(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	_, url := serveHTTP(t, s, nil)
	id := rawSession(t, url, nil)
	resp := rawPost(t, url, toolCallBody(2, `return 1`), map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	_ = sseResult(t, resp)
	m := scrape(t, url, nil)
	require.Equal(t, 1.0, m["coderun_sessions"])
	require.Equal(t, 1.0, m[`coderun_runs_total{budget="none",kind="ok"}`])
	require.NotContains(t, strings.Join(slices.Collect(maps.Keys(m)), "\n"), id)
}

// A registry holds the metrics of one server: a second one fails to
// register, naming why.
func TestMetricsRegistryShared(t *testing.T) {
	rt := newRuntime(t, nil)
	s, err := NewServer(rt, nil, nil)
	require.NoError(t, err)
	_, err = NewServer(rt, nil, &ServerOptions{Registry: s.metrics.reg})
	require.ErrorContains(t, err, "registering the metrics: duplicate metrics collector registration attempted")
}
