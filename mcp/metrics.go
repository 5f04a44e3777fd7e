package mcp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/coderun/coderun"
)

// The label caps: an upstream or a (upstream, tool) pair beyond them is
// counted under the label value OtherLabel, so that a configuration with
// very many upstreams, or an upstream listing ever new tools, cannot grow
// the metrics without bound.
const (
	MaxUpstreamLabels = 64
	MaxToolLabels     = 256
	// OtherLabel is the label value of the upstreams and tools beyond the
	// caps.
	OtherLabel = "other"
)

// The label values of coderun_runs_total's budget that are not a budget.
const (
	budgetNone = "none" // no budget ended the run: it succeeded, threw, or was aborted
)

// The outcome label values of a binding call.
const (
	callOK          = "ok"          // the tool answered
	callError       = "error"       // the tool, or coderun's mapping of its result, reported an error
	callUnavailable = "unavailable" // the upstream was not running
	callCancelled   = "cancelled"   // the run ended (or was cancelled) during the call
)

// The reasons a call is refused, the reason label of
// coderun_runs_refused_total.
const (
	refusedQueueFull    = "queue_full"
	refusedQueueTimeout = "queue_timeout"
	refusedCancelled    = "cancelled"
	refusedInvalidInput = "invalid_input" // run_code's input was not lossless JSON or over MaxInputBytes
)

// Buckets of the histograms: seconds, fuel units, bytes.
var (
	secondsBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 25, 60, 120, 300, 600}
	fuelBuckets    = prometheus.ExponentialBuckets(1e5, 4, 12)   // 100k … about 400G units
	memoryBuckets  = prometheus.ExponentialBuckets(1<<20, 2, 12) // 1 MiB … 2 GiB
	callBuckets    = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
)

// metrics are a Server's Prometheus collectors, in a registry of its own.
type metrics struct {
	reg *prometheus.Registry

	runs          *prometheus.CounterVec // kind, budget
	runDuration   prometheus.Histogram
	runCompute    prometheus.Histogram
	runFuel       prometheus.Histogram
	runMemory     prometheus.Histogram
	queueWait     prometheus.Histogram
	refused       *prometheus.CounterVec   // reason
	calls         *prometheus.CounterVec   // upstream, tool, outcome
	callDuration  *prometheus.HistogramVec // upstream, outcome
	httpRequests  *prometheus.CounterVec   // code
	upstreamNames map[*Upstream]string     // each upstream's label value
	tools         *labelCap                // the tool label values
}

// newMetrics registers the metrics of s in reg, or in a new registry with
// the Go and process collectors when reg is nil.
func newMetrics(s *Server, reg *prometheus.Registry) (*metrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &metrics{reg: reg, upstreamNames: map[*Upstream]string{}, tools: newLabelCap(MaxToolLabels)}
	for i, u := range s.upstreams {
		m.upstreamNames[u] = u.Name()
		if i >= MaxUpstreamLabels {
			m.upstreamNames[u] = OtherLabel
		}
	}
	histogram := func(name, help string, buckets []float64) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	}
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "coderun_runs_total",
		Help: `Runs that ended, by outcome kind ("ok" or the failure kind; "error" when the runtime refused the run) and the budget that ended them ("none" when none did).`},
		[]string{"kind", "budget"})
	m.runDuration = histogram("coderun_run_duration_seconds", "Wall time of each run, from its start to its outcome (queue wait excluded).", secondsBuckets)
	m.runCompute = histogram("coderun_run_compute_seconds", "Compute time (the guest's busy time) of each run.", secondsBuckets)
	m.runFuel = histogram("coderun_run_fuel", "Fuel units each run spent.", fuelBuckets)
	m.runMemory = histogram("coderun_run_peak_memory_bytes", "Peak memory of each run: guest linear memory plus the host's share.", memoryBuckets)
	m.queueWait = histogram("coderun_run_queue_wait_seconds", "How long each call waited for a run slot (--max-runs), refused calls included.", secondsBuckets)
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "coderun_runs_refused_total",
		Help: `Calls that did not run: the queue was full ("queue_full", over HTTP also those answered 503), the call waited --max-queue-wait ("queue_timeout"), or it was cancelled while it waited ("cancelled").`},
		[]string{"reason"})
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "coderun_binding_calls_total",
		Help: `Calls of upstream tools made by programs, by upstream, tool and outcome ("ok", "error", "unavailable", "cancelled"). Upstreams and tools beyond the label caps are "other".`},
		[]string{"upstream", "tool", "outcome"})
	m.callDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "coderun_binding_call_duration_seconds",
		Help: "Latency of calls of upstream tools, by upstream and outcome.", Buckets: callBuckets},
		[]string{"upstream", "outcome"})
	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "coderun_http_requests_total",
		Help: "HTTP requests served by the streamable HTTP handler (MCP, health checks and /metrics), by status code."},
		[]string{"code"})
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	err := errors.Join(
		register(reg, m.runs, m.runDuration, m.runCompute, m.runFuel, m.runMemory, m.queueWait, m.refused,
			m.calls, m.callDuration, m.httpRequests),
		register(reg,
			gauge("coderun_runs_in_flight", "Runs going now (at most --max-runs).", func() float64 {
				running, _ := s.limiter.counts()
				return float64(running)
			}),
			gauge("coderun_runs_queued", "Calls waiting for a run slot now (at most --max-queued-runs).", func() float64 {
				_, queued := s.limiter.counts()
				return float64(queued)
			}),
			gauge("coderun_sessions", "MCP sessions open now (over stateless HTTP, the requests being served).", func() float64 {
				n := 0
				for range s.server.Sessions() {
					n++
				}
				return float64(n)
			}),
			&upstreamCollector{m: m, upstreams: s.upstreams}),
	)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// register registers every collector in reg.
func register(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// runEnded counts a run that ended with res, observing its usage.
func (m *metrics) runEnded(res coderun.Result, budget string) {
	kind := "ok"
	if res.Error != nil {
		kind = string(res.Error.Kind)
	}
	m.runs.WithLabelValues(kind, budget).Inc()
	u := res.Usage
	m.runDuration.Observe(u.WallTime.Seconds())
	m.runCompute.Observe(u.ComputeTime.Seconds())
	m.runFuel.Observe(float64(u.Fuel))
	m.runMemory.Observe(float64(u.PeakMemoryBytes))
}

// bindingCall counts a call of tool of u that ended with outcome after d.
func (m *metrics) bindingCall(u *Upstream, tool, outcome string, d time.Duration) {
	upstream, ok := m.upstreamNames[u]
	if !ok {
		upstream = OtherLabel
	}
	if upstream == OtherLabel || !m.tools.admit(upstream+"\x00"+tool) {
		tool = OtherLabel
	}
	m.calls.WithLabelValues(upstream, tool, outcome).Inc()
	m.callDuration.WithLabelValues(upstream, outcome).Observe(d.Seconds())
}

// handler serves the registry in the Prometheus exposition formats.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// instrument counts the requests h serves by status code.
func (m *metrics) instrument(h http.Handler) http.Handler {
	return promhttp.InstrumentHandlerCounter(m.httpRequests, h)
}

// runBudget is the budget label of a run's outcome: the Failure's Budget
// (coderun.Budget: fuel, compute, wall, memory, stack, output, program,
// engine, host), "none" when no budget or fault ended the run.
func runBudget(f *coderun.Failure) string {
	if f == nil || f.Budget == "" {
		return budgetNone
	}
	return string(f.Budget)
}

// callOutcome is the outcome label of a binding call that returned err in
// ctx.
func callOutcome(ctx context.Context, err error) string {
	var notRunning *NotRunningError
	switch {
	case err == nil:
		return callOK
	case errors.As(err, &notRunning):
		return callUnavailable
	case ctx.Err() != nil:
		return callCancelled
	}
	return callError
}

// labelCap admits at most max distinct label values; later ones are to be
// counted as OtherLabel.
type labelCap struct {
	mu   sync.Mutex
	max  int
	seen map[string]struct{}
}

func newLabelCap(max int) *labelCap {
	return &labelCap{max: max, seen: map[string]struct{}{}}
}

// admit reports whether value may be a label value: it was admitted
// before, or fewer than max were.
func (c *labelCap) admit(value string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[value]; ok {
		return true
	}
	if len(c.seen) >= c.max {
		return false
	}
	c.seen[value] = struct{}{}
	return true
}

// upstreamCollector reports each upstream's restarts and whether it is
// running, read at scrape time from the upstreams themselves.
type upstreamCollector struct {
	m         *metrics
	upstreams []*Upstream
}

var (
	upstreamRestartsDesc = prometheus.NewDesc("coderun_upstream_restarts_total",
		"Times an upstream was started again after it died.", []string{"upstream"}, nil)
	upstreamUpDesc = prometheus.NewDesc("coderun_upstream_up",
		"Whether an upstream's server is running (1) or not (0); the sum for \"other\".", []string{"upstream"}, nil)
)

// Describe implements prometheus.Collector.
func (c *upstreamCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- upstreamRestartsDesc
	ch <- upstreamUpDesc
}

// Collect implements prometheus.Collector.
func (c *upstreamCollector) Collect(ch chan<- prometheus.Metric) {
	restarts, up := map[string]float64{}, map[string]float64{}
	var order []string
	for _, u := range c.upstreams {
		name := c.m.upstreamNames[u]
		if _, ok := restarts[name]; !ok {
			order = append(order, name)
			restarts[name], up[name] = 0, 0
		}
		restarts[name] += float64(max(0, u.Starts()-1))
		if u.Running() {
			up[name]++
		}
	}
	for _, name := range order {
		ch <- prometheus.MustNewConstMetric(upstreamRestartsDesc, prometheus.CounterValue, restarts[name], name)
		ch <- prometheus.MustNewConstMetric(upstreamUpDesc, prometheus.GaugeValue, up[name], name)
	}
}
