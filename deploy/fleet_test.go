package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/testenv"
)

// The run budget of the replicas, and the deadline of every call of the
// load: the run's wall time plus a margin for the queue, the upstream and
// HAProxy's retries. A call still unanswered at its deadline is a hang.
const (
	fleetWallTime   = 10 * time.Second
	fleetCallBudget = fleetWallTime + 5*time.Second
	fleetClients    = 8
	fleetMaxPer     = 100000 // calls per client, a bound besides the time
)

// fleetDurations are how long each phase's load lasts.
type fleetDurations struct {
	measure time.Duration // each of phases a (1 replica) and b (3 replicas)
	warm    time.Duration // phase c: load before the first fault
	after   time.Duration // phase c: load once every replica is up again
}

// fleetDurationsFor returns the short durations of the default run, or
// those of CODERUN_LONG=1: about a minute of load in all.
func fleetDurationsFor(long bool) fleetDurations {
	if long {
		return fleetDurations{measure: 15 * time.Second, warm: 10 * time.Second, after: 15 * time.Second}
	}
	return fleetDurations{measure: 2 * time.Second, warm: time.Second, after: time.Second}
}

// fleetEpoch is one life of a replica's process.
type fleetEpoch struct {
	start    time.Time // the process was started
	notReady time.Time // its /readyz first answered 503 (zero: not seen)
	end      time.Time // SIGKILL was sent or its exit seen (zero: ran to the end)
}

// fleetReplica is one `coderun mcp --http --stateless` of the fleet; a
// restart keeps its address.
type fleetReplica struct {
	name   string
	addr   string
	proc   *fleetProc
	epochs []*fleetEpoch
}

// fleet starts the replicas.
type fleet struct {
	bin      string // coderun
	upstream string // this test binary, serving the upstream
}

var fleetServing = regexp.MustCompile(`serving MCP over streamable HTTP at http://(\S+)/`)

// start starts r (on a free port the first time, on its address after),
// and waits until it serves.
func (f *fleet) start(t *testing.T, r *fleetReplica) {
	t.Helper()
	addr := r.addr
	if addr == "" {
		addr = fmt.Sprintf("127.0.0.1:%d", fleetFreePort(t))
	}
	e := &fleetEpoch{start: time.Now()}
	r.proc, r.addr = fleetStart(t, r.name, []string{f.bin, "mcp", "--http", addr, "--stateless",
		"--wall-time", fleetWallTime.String(), "--shutdown-grace", "10s", "--log-level", "warn",
		"--upstream", "data='" + f.upstream + "'"}, []string{fleetUpstreamEnv + "=1"}, fleetServing)
	r.epochs = append(r.epochs, e)
}

// url is r's base URL.
func (r *fleetReplica) url() string { return "http://" + r.addr + "/" }

// epoch is r's current life.
func (r *fleetReplica) epoch() *fleetEpoch { return r.epochs[len(r.epochs)-1] }

// fleetReport is what the test measured, logged and written to
// $CODERUN_FLEET_REPORT when set.
type fleetReport struct {
	CPUs        int            `json:"cpus"`
	LoadAverage string         `json:"load_average_before,omitempty"` // /proc/loadavg: what else the machine ran
	One         fleetFigures   `json:"one_replica"`
	Three       fleetFigures   `json:"three_replicas"`
	Ratio       float64        `json:"throughput_ratio"`
	Faults      fleetFigures   `json:"during_faults"`
	KillFailed  map[string]int `json:"failed_in_flight_on_killed_replica"` // by backend
	KilledRun   string         `json:"run_held_on_killed_replica"`
	DrainPolls  int            `json:"readyz_503_polls_while_draining"`
	DrainSeenMS float64        `json:"haproxy_saw_drain_after_ms"`
	Retried     int            `json:"retried_by_haproxy"`
	NoServer    int            `json:"answered_by_haproxy_without_a_server"`
	TestSeconds float64        `json:"test_seconds"`
}

// TestFleet runs three `coderun mcp --http --stateless` replicas behind
// HAProxy, health-checking /readyz, under a load of concurrent MCP clients
// (the Go SDK's) running a mix of programs that call an upstream: (a) 1
// replica, then (b) 3, measured; (c) with half the clients through each
// of fleetBackends, one replica is killed (SIGKILL) during the load,
// another drained (SIGTERM), and both restarted on their ports. See
// fleetFaults, fleetDrain and fleetCheck for what must hold.
func TestFleet(t *testing.T) {
	haproxy := testenv.HAProxy(t)
	began := time.Now()
	d := fleetDurationsFor(os.Getenv("CODERUN_LONG") == "1")
	exe, err := os.Executable()
	require.NoError(t, err)
	f := &fleet{bin: coderunBin, upstream: exe}
	reps := []*fleetReplica{{name: "r0"}, {name: "r1"}, {name: "r2"}}
	rep := fleetReport{CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.LoadAverage = strings.TrimSpace(string(b))
	}

	f.start(t, reps[0])
	h := fleetStartHAProxy(t, haproxy, []string{"r0"}, []string{reps[0].addr})
	rep.One = fleetPhase(t, h, reps[:1], d.measure)
	h.proc.stop(t)

	f.start(t, reps[1])
	f.start(t, reps[2])
	names, addrs := []string{"r0", "r1", "r2"}, []string{reps[0].addr, reps[1].addr, reps[2].addr}
	h = fleetStartHAProxy(t, haproxy, names, addrs)
	rep.Three = fleetPhase(t, h, reps, d.measure)
	rep.Ratio = rep.Three.RunsPerSec / rep.One.RunsPerSec

	var stops []func(time.Duration) ([]fleetRecord, error)
	for i, be := range fleetBackends { // half the clients through each backend
		load := &fleetLoad{backend: be.name, url: h.urls[i], client: fleetHTTPClient(), budget: fleetCallBudget, maxPer: fleetMaxPer}
		stops = append(stops, load.run(fleetClients/len(fleetBackends)))
	}
	phaseStart := time.Now()
	tl := fleetFaults(t, f, h, reps, d)
	var records []fleetRecord
	for _, stop := range stops {
		recs, err := stop(2 * fleetCallBudget)
		require.NoError(t, err)
		records = append(records, recs...)
	}
	rep.Faults = fleetMeasure(records, 3, fleetClients, time.Since(phaseStart))
	rep.KillFailed, rep.DrainPolls = fleetCheck(t, records, reps, tl)
	rep.KilledRun = tl.killedRun
	rep.DrainSeenMS = float64(tl.drainSeen.Microseconds()) / 1000
	rep.Retried, rep.NoServer = fleetRetried(h.proc.stderr.String())
	rep.TestSeconds = time.Since(began).Seconds()

	out, err := json.MarshalIndent(rep, "", "  ")
	require.NoError(t, err)
	t.Logf("fleet figures (%d CPUs; 3 replicas, HAProxy, %d clients and the upstreams share them):\n%s", rep.CPUs, fleetClients, out)
	if path := os.Getenv("CODERUN_FLEET_REPORT"); path != "" {
		require.NoError(t, os.WriteFile(path, append(out, '\n'), 0o644))
	}
}

// fleetPhase drives h, in front of reps, with the load for d and returns
// its figures; no call may fail, since nothing does.
func fleetPhase(t *testing.T, h *fleetHAProxy, reps []*fleetReplica, d time.Duration) fleetFigures {
	t.Helper()
	replicas := len(reps)
	var pgids []int
	for _, r := range reps {
		pgids = append(pgids, r.proc.cmd.Process.Pid)
	}
	hap := h.proc.cmd.Process.Pid
	load := &fleetLoad{backend: fleetBackends[0].name, url: h.urls[0], client: fleetHTTPClient(), budget: fleetCallBudget, maxPer: fleetMaxPer}
	cpu0, hap0, self0, begin := fleetGroupCPU(pgids...), fleetGroupCPU(hap), fleetSelfCPU(), time.Now()
	stop := load.run(fleetClients)
	time.Sleep(d)
	records, err := stop(2 * fleetCallBudget)
	require.NoError(t, err)
	figs := fleetMeasure(records, replicas, fleetClients, time.Since(begin))
	if cpu := fleetGroupCPU(pgids...) - cpu0; cpu > 0 && figs.Runs > 0 {
		figs.CPUSeconds = cpu.Seconds()
		figs.CPUMillisPerRun = cpu.Seconds() * 1000 / float64(figs.Runs)
	}
	figs.HAProxyCPUSeconds, figs.ClientsCPUSeconds = (fleetGroupCPU(hap) - hap0).Seconds(), (fleetSelfCPU() - self0).Seconds()
	for _, r := range records {
		require.True(t, r.ok, "with %d replica(s) and no fault, a %s call failed: %s", replicas, r.kind, r.err)
		require.True(t, r.replica != "" && r.session != "", "HAProxy names the replica of every response")
	}
	require.NotZero(t, figs.Runs, "with %d replica(s), no call was answered", replicas)
	if replicas > 1 { // stateless: a session initialized on one replica calls on the others
		elsewhere := 0
		for _, r := range records {
			if r.replica != r.session {
				elsewhere++
			}
		}
		require.NotZero(t, elsewhere, "every call went to the replica that initialized its session")
	}
	return figs
}

// fleetTimeline is when phase c's faults happened.
type fleetTimeline struct {
	killAt     time.Time     // SIGKILL sent to r1
	killSeenAt time.Time     // HAProxy saw r1 down
	killedRun  string        // what the run held on r1 when it was killed answered
	allUpAt    time.Time     // HAProxy saw every replica up again
	drained    string        // what the run held on r2 through its drain answered
	drainPolls int           // /readyz answers 503 while r2 drained
	drainSeen  time.Duration // from r2's first /readyz 503 to HAProxy seeing it down
}

// fleetFaults runs phase c's faults while the load goes on: after d.warm,
// SIGKILL r1 (its process group, as a crash of its container would) while
// a run is held on it, wait until HAProxy sees it down and restart it; then drain r2 (fleetDrain)
// and restart it, and let the load go on for d.after once HAProxy sees all
// three up.
func fleetFaults(t *testing.T, f *fleet, h *fleetHAProxy, reps []*fleetReplica, d fleetDurations) fleetTimeline {
	t.Helper()
	var tl fleetTimeline
	time.Sleep(d.warm)
	r1, r2 := reps[1], reps[2]
	killed, _ := fleetHoldRun(t, r1)
	tl.killAt = time.Now()
	r1.epoch().end = tl.killAt
	r1.proc.stop(t)
	tl.killSeenAt, _ = h.waitStatus(t, "r1", "DOWN")
	select { // its client gets an error, before the call's deadline
	case tl.killedRun = <-killed:
	case <-time.After(fleetCallBudget):
		t.Fatal("the run held on the killed replica got no answer")
	}
	require.True(t, strings.HasPrefix(tl.killedRun, "error: ") && !strings.Contains(tl.killedRun, "deadline exceeded"),
		"the run held on the killed replica: %s", tl.killedRun)
	f.start(t, r1)
	h.waitStatus(t, "r1", "UP")

	fleetDrain(t, h, r2, &tl)
	f.start(t, r2)
	h.waitStatus(t, "r2", "UP")
	tl.allUpAt = time.Now()
	time.Sleep(d.after)
	return tl
}

// fleetDrain holds a run on r, sends r SIGTERM, and while its /readyz is
// polled directly (fleetPollDrain) waits until HAProxy sees it down and
// /readyz has answered 503; then it lets the held run end, and waits for
// its answer and r's exit. From the moment HAProxy saw r down until r
// exited, HAProxy must have given r no request.
func fleetDrain(t *testing.T, h *fleetHAProxy, r *fleetReplica, tl *fleetTimeline) {
	t.Helper()
	held, release := fleetHoldRun(t, r)
	e := r.epoch()
	firstBusy, polled := make(chan struct{}), make(chan fleetDrainPolls, 1)
	go func() { polled <- fleetPollDrain(r, firstBusy) }()
	require.NoError(t, r.proc.cmd.Process.Signal(syscall.SIGTERM))
	downAt, atDown := h.waitStatus(t, r.name, "DOWN")
	select { // the drain lasts until both were seen: the held run goes on until then
	case <-firstBusy:
	case p := <-polled:
		require.NoError(t, p.err)
		t.Fatalf("%s stopped draining before its /readyz answered 503", r.name)
	}
	release()
	p := <-polled
	require.NoError(t, p.err)
	e.notReady, e.end, tl.drainPolls = p.first, time.Now(), p.n
	tl.drainSeen = downAt.Sub(p.first)
	select {
	case tl.drained = <-held:
	case <-time.After(fleetCallBudget):
		t.Fatal("the run held on the drained replica did not answer")
	}
	require.NoError(t, r.proc.err, "the drained replica exits 0")
	_, atExit := h.waitStatus(t, r.name, "DOWN")
	require.Equal(t, atDown, atExit, "HAProxy gave %s requests after it saw it down (its sessions in all then, and at its exit)", r.name)
}

// fleetHoldRun starts, directly on r, a run that is under way (it has
// called the upstream) when fleetHoldRun returns, and goes on until
// release is called (within its wall time); the channel gets what it
// answered.
func fleetHoldRun(t *testing.T, r *fleetReplica) (answer <-chan string, release func()) {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "fleet-hold", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: r.url()}, nil)
	require.NoError(t, err)
	dir := t.TempDir()
	mark, done := filepath.Join(dir, "held"), filepath.Join(dir, "release")
	code := fmt.Sprintf(`await data.touch({path: %q});
while (!(await data.exists({path: %q})).exists) await new Promise(r => setTimeout(r, 20));
return "drained";`, mark, done)
	out := make(chan string, 1)
	go func() {
		defer func() { _ = cs.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), fleetCallBudget)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		out <- fleetText(res)
	}()
	release = func() { require.NoError(t, os.WriteFile(done, nil, 0o600)) }
	deadline := time.Now().Add(fleetStartWait)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(mark); err == nil {
			return out, release
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the held run did not reach the upstream within %v", fleetStartWait)
	return nil, nil
}

// fleetDrainPolls is what polling a draining replica's /readyz saw.
type fleetDrainPolls struct {
	first time.Time // the first 503
	n     int       // 503s
	err   error     // what went wrong
}

// fleetPollDrain polls r's /readyz directly, on a new connection each
// time as a health check does, from its SIGTERM until nothing answers and
// r has exited; it closes firstBusy at the first 503. Once /readyz
// answered 503 it must never answer 200 again, and it must answer 503 at
// least once: r drains a run held on it.
func fleetPollDrain(r *fleetReplica, firstBusy chan<- struct{}) fleetDrainPolls {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var p fleetDrainPolls
	for deadline := time.Now().Add(fleetStartWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		switch code := fleetReadyz(client, r.url()); {
		case code == http.StatusServiceUnavailable:
			if p.n++; p.first.IsZero() {
				p.first = time.Now()
				close(firstBusy)
			}
		case code == 0:
			select {
			case <-r.proc.exited:
				if p.n == 0 {
					p.err = fmt.Errorf("%s exited without /readyz answering 503 while it drained", r.name)
				}
			case <-time.After(fleetStartWait):
				p.err = fmt.Errorf("%s refused connections but did not exit", r.name)
			}
			return p
		case code == http.StatusOK:
			if !p.first.IsZero() {
				p.err = fmt.Errorf("%s answered /readyz 200 after 503 while draining", r.name)
				return p
			}
		default:
			p.err = fmt.Errorf("%s answered /readyz %d while draining", r.name, code)
			return p
		}
	}
	p.err = fmt.Errorf("%s did not finish draining within %v", r.name, fleetStartWait)
	return p
}
