package deploy

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/testenv"
)

// fleetStartWait bounds how long the test waits for a process to start
// serving or for HAProxy to see a change: only a broken setup reaches it.
const fleetStartWait = 30 * time.Second

// fleetProc is a process the test started, in a process group of its own
// that t.Cleanup kills.
type fleetProc struct {
	name   string
	cmd    *exec.Cmd
	stderr *testenv.Buffer
	exited chan struct{} // closed once it has exited
	err    error         // its exit, once exited is closed
}

// fleetStart starts argv with env added to this process's, and waits until
// its stderr has a line matching ready (nil: does not wait); it returns
// the process and the line's first submatch.
func fleetStart(t *testing.T, name string, argv, env []string, ready *regexp.Regexp) (*fleetProc, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = io.Discard
	require.NoError(t, cmd.Start(), "starting %s", name)
	p := &fleetProc{name: name, cmd: cmd, stderr: &testenv.Buffer{}, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(pipe)
		for lines.Scan() {
			_, _ = fmt.Fprintln(p.stderr, lines.Text())
			if ready != nil {
				if m := ready.FindStringSubmatch(lines.Text()); m != nil {
					select {
					case found <- m[len(m)-1]:
					default:
					}
				}
			}
		}
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group: its upstreams too
		select {
		case <-p.exited:
		case <-time.After(fleetStartWait):
			t.Errorf("%s did not exit after SIGKILL", name)
		}
		if t.Failed() {
			t.Logf("%s stderr (last 4 KiB):\n%s", name, fleetTail(p.stderr.String(), 4096))
		}
	})
	if ready == nil {
		return p, ""
	}
	select {
	case m := <-found:
		return p, m
	case <-p.exited:
		t.Fatalf("%s exited before it was ready (%v): %s", name, p.err, p.stderr.String())
	case <-time.After(fleetStartWait):
		t.Fatalf("%s not ready after %v: %s", name, fleetStartWait, p.stderr.String())
	}
	return nil, ""
}

// stop kills p's process group and waits for p to exit.
func (p *fleetProc) stop(t *testing.T) {
	t.Helper()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(fleetStartWait):
		t.Fatalf("%s did not exit after SIGKILL", p.name)
	}
}

// fleetTail is the last n bytes of s.
func fleetTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// fleetFreePort returns a loopback port that was free a moment ago, below
// the range the kernel picks the local ports of outgoing connections from
// (Linux's ip_local_port_range): there, no connection takes it as its own
// while a killed replica's port waits for the replica's restart.
func fleetFreePort(t *testing.T) int {
	t.Helper()
	low := 32768 // Linux's default
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	const first = 10000
	for range 200 {
		if low <= first {
			break
		}
		port := first + rand.IntN(low-first)
		if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			require.NoError(t, ln.Close())
			return port
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // any, then
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// The health checks of the test's HAProxy: its figures are the ones
// docs/deploy.md ("N replicas behind a load balancer") recommends, scaled
// down so that a change is seen within a fraction of a second.
const (
	fleetCheckInter = 200 * time.Millisecond
	fleetServerWait = 15 * time.Second // HAProxy's timeout server: above a run's --wall-time
)

// fleetBackends are the backends of the test's HAProxy, in front of the
// same replicas: coderun retries as the configuration of docs/deploy.md
// ("N replicas behind a load balancer") does with empty-response and response-timeout added (a run that may
// have started is run again), coderun_safe only what never started a run
// (a connection refused, a 503).
var fleetBackends = []struct{ name, retryOn string }{
	{"coderun", "conn-failure empty-response response-timeout 503"},
	{"coderun_safe", "conn-failure 503"},
}

// fleetHAProxyConfig is the configuration of an HAProxy listening on
// 127.0.0.1 at ports (one per backend of fleetBackends) in front of
// servers (names at addrs), with its stats socket at sock. HAProxy names
// the server it chose in X-Replica, also on a response of its own (a 502
// when the server died mid-request).
func fleetHAProxyConfig(ports []int, sock string, names, addrs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
    stats socket %s mode 600 level admin
    maxconn 1000
    log stderr format raw local0

defaults
    mode http
    log global
    log-format "request %%b %%s %%ST %%rc"
    timeout connect 1s
    timeout client 30s
    timeout server %ds
    timeout queue 5s
    timeout http-request 5s
    timeout check 1s
    retries 2
    option redispatch 1
`, sock, int(fleetServerWait/time.Second))
	inter := fleetCheckInter.Milliseconds()
	for i, be := range fleetBackends {
		fmt.Fprintf(&b, `
frontend %s
    bind 127.0.0.1:%d
    default_backend %s

backend %s
    retry-on %s
    balance leastconn
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter %dms fastinter %dms downinter %dms fall 1 rise 2
    http-after-response set-header X-Replica %%s
`, be.name, ports[i], be.name, be.name, be.retryOn, inter, inter, inter)
		for j, name := range names {
			fmt.Fprintf(&b, "    server %s %s check\n", name, addrs[j])
		}
	}
	return b.String()
}

// fleetHAProxy is a running HAProxy.
type fleetHAProxy struct {
	urls []string // http://127.0.0.1:PORT/ of each of fleetBackends
	sock string   // its stats socket
	proc *fleetProc
}

// fleetStartHAProxy starts HAProxy in front of the replicas names at
// addrs, checks its configuration first, and waits until it sees every
// server up.
func fleetStartHAProxy(t *testing.T, bin string, names, addrs []string) *fleetHAProxy {
	t.Helper()
	dir := t.TempDir()
	h := &fleetHAProxy{sock: filepath.Join(dir, "stats.sock")}
	var ports []int
	for range fleetBackends {
		ports = append(ports, fleetFreePort(t))
		h.urls = append(h.urls, fmt.Sprintf("http://127.0.0.1:%d/", ports[len(ports)-1]))
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte(fleetHAProxyConfig(ports, h.sock, names, addrs)), 0o600))
	out, err := exec.Command(bin, "-c", "-f", cfg).CombinedOutput()
	require.NoError(t, err, "haproxy -c: %s", out)
	h.proc, _ = fleetStart(t, "haproxy", []string{bin, "-db", "-f", cfg}, nil, nil)
	for _, name := range names {
		h.waitStatus(t, name, "UP")
	}
	return h
}

// fleetServerStat is what HAProxy tells of a server in a backend.
type fleetServerStat struct {
	status   string // the state its health checks give it: "UP", "DOWN", "UP 1/2", …
	sessions int    // how many requests' connections it was given, in all (not the checks)
}

// status returns what HAProxy tells of each server ("BACKEND/SERVER").
func (h *fleetHAProxy) status() (map[string]fleetServerStat, error) {
	conn, err := net.DialTimeout("unix", h.sock, time.Second)
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "show stat\n"); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(conn)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(body), "# ")))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("show stat: %v: %q", err, body)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	got := map[string]fleetServerStat{}
	for _, row := range rows[1:] {
		if len(row) > max(col["status"], col["stot"]) && row[col["svname"]] != "BACKEND" && row[col["svname"]] != "FRONTEND" {
			n, _ := strconv.Atoi(row[col["stot"]])
			got[row[col["pxname"]]+"/"+row[col["svname"]]] = fleetServerStat{status: row[col["status"]], sessions: n}
		}
	}
	return got, nil
}

// waitStatus waits until every backend of HAProxy has server name in
// state want, and returns when it saw it and the server's sessions then,
// all backends together.
func (h *fleetHAProxy) waitStatus(t *testing.T, name, want string) (time.Time, int) {
	t.Helper()
	deadline := time.Now().Add(fleetStartWait)
	var last map[string]fleetServerStat
	var err error
	for time.Now().Before(deadline) {
		if last, err = h.status(); err == nil {
			sessions, all := 0, true
			for _, be := range fleetBackends {
				st := last[be.name+"/"+name]
				sessions += st.sessions
				all = all && st.status == want
			}
			if all {
				return time.Now(), sessions
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("HAProxy did not see %s %s within %v: %v %v", name, want, fleetStartWait, last, err)
	return time.Time{}, 0
}

// fleetReadyz returns the status of GET /readyz at base, or 0 when the
// request fails (nothing listens).
func fleetReadyz(client *http.Client, base string) int {
	resp, err := client.Get(strings.TrimSuffix(base, "/") + "/readyz")
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// fleetRetried returns, from HAProxy's log (the line it writes for each
// request: "request BACKEND SERVER STATUS RETRIES"), how many requests it sent to
// a server again after a failed try, and how many it answered with an
// error of its own (5xx, no server).
func fleetRetried(log string) (retried, unanswered int) {
	for _, m := range fleetLogLine.FindAllStringSubmatch(log, -1) {
		if m[3] != "0" {
			retried++
		}
		if m[1] == "<NOSRV>" && strings.HasPrefix(m[2], "5") { // not a 408 for an idle keep-alive connection
			unanswered++
		}
	}
	return retried, unanswered
}

var fleetLogLine = regexp.MustCompile(`(?m)^request \S+ (\S+) (-?\d+) (\+?\d+)$`)

// fleetGroupCPU returns the CPU time (user and system) the live processes
// of the process groups pgids have used, from /proc (Linux; 0 elsewhere):
// a replica and its upstream.
func fleetGroupCPU(pgids ...int) time.Duration {
	entries, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		pgrp, _ := strconv.Atoi(f[2])
		if !slices.Contains(pgids, pgrp) {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += utime + stime
	}
	return time.Duration(ticks) * (time.Second / fleetClockTicks)
}

// fleetClockTicks is Linux's USER_HZ, the unit of /proc's CPU times.
const fleetClockTicks = 100

// fleetSelfCPU returns the CPU time this process has used.
func fleetSelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
