//go:build linux

package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Runs that recurse as deep as their budget allows and then sleep at the
// bottom of an async recursion hold no more host memory than MemoryBytes
// (plus 16 MiB) each, and once they have ended the process goes back near
// its size before them without the test forcing a collection (quiet, within
// a second: docs/performance.md; the test waits up to 30 s, a watchdog that
// load cannot reach). It runs in a child process, whose RSS is its own.
func TestDeepRunsHostMemory(t *testing.T) {
	if os.Getenv("CODERUN_MEMORY_CHILD") != "" {
		deepRunsChild(t)
		return
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes RSS meaningless")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDeepRunsHostMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "CODERUN_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestDeepRunsHostMemory", "child:\n%s", out)
	t.Logf("child:\n%s", out)
}

const deepSleeper = `let max = 0
function probe(n) { max = n; probe(n + 1) }
try { probe(0) } catch {}
async function down(n) { if (n === 0) return await tools.wait(0); return await down(n - 1) }
await down(Math.floor(max / 3))
return max`

func deepRunsChild(t *testing.T) {
	const (
		memoryBytes = 32 << 20
		runs        = 8
		slack       = 16 << 20
	)
	e, err := New(context.Background(), Options{Limits: memoryLimits(memoryBytes), CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	defer e.Close(context.Background())

	var arrived atomic.Int32
	release := make(chan struct{})
	all := func(program string, wait bool) []Outcome {
		outs := make([]Outcome, runs)
		var wg sync.WaitGroup
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o, err := e.run(context.Background(), program, waitBindings(&arrived, release, wait))
				require.NoError(t, err)
				outs[i] = o
			}()
		}
		wg.Wait()
		return outs
	}
	// The steady state: as many shallow runs at once, with the same
	// binding, so that pools and caches are as full as they get.
	for range 3 {
		all(`await tools.wait(0); return 1`, false)
	}
	debug.FreeOSMemory()
	time.Sleep(100 * time.Millisecond)
	base := vmRSS(t)

	arrived.Store(0)
	var outs []Outcome
	done := make(chan struct{})
	go func() { outs = all(deepSleeper, true); close(done) }()
	for arrived.Load() < runs {
		select {
		case <-done:
			t.Fatalf("the runs ended before sleeping: %+v", outs)
		case <-time.After(5 * time.Millisecond):
		}
	}
	var peak int64
	for range 5 {
		peak = max(peak, vmRSS(t))
		time.Sleep(20 * time.Millisecond)
	}
	close(release)
	<-done
	ended := time.Now()
	for _, o := range outs {
		require.Empty(t, o.Kind, o.Message)
		var depth int
		require.NoError(t, json.Unmarshal(o.Value, &depth))
		require.Greater(t, depth, 300)
		require.LessOrEqual(t, o.PeakMemory, int64(memoryBytes))
	}
	perRun := (peak - base) / runs
	t.Logf("baseline %d MiB, %d runs sleeping %d MiB: %.1f MiB per run (MemoryBytes %d MiB)",
		base>>20, runs, peak>>20, float64(perRun)/(1<<20), memoryBytes>>20)
	require.LessOrEqual(t, perRun, int64(memoryBytes+slack), "host memory per run")

	// Back within 16 MiB of the baseline, no collection forced here. The
	// bound is the bytes; the 30 s is a watchdog (quiet, it takes well
	// under a second), so that load, which delays the release, cannot fail
	// it.
	rss := settledRSS(t, base+slack, ended)
	t.Logf("%v after the runs ended: %d MiB", time.Since(ended).Round(time.Millisecond), rss>>20)
	require.LessOrEqual(t, rss, base+slack, "RSS %d MiB 30 s after the runs ended, baseline %d MiB", rss>>20, base>>20)
}

// waitBindings is the binding tools.wait of deepRunsChild, which counts its
// calls in arrived and, if wait, returns when release is closed.
func waitBindings(arrived *atomic.Int32, release <-chan struct{}, wait bool) []Binding {
	return []Binding{{Global: "tools", Functions: map[string]Func{
		"wait": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			arrived.Add(1)
			if wait {
				<-release
			}
			return []byte("null"), nil
		},
	}}}
}

// settledRSS returns the resident set size once it is at most bound, or
// 30 s after since (a watchdog, not a bound).
func settledRSS(t *testing.T, bound int64, since time.Time) int64 {
	for {
		rss := vmRSS(t)
		if rss <= bound || time.Since(since) > 30*time.Second {
			return rss
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// vmRSS returns the process's resident set size from /proc/self/status.
func vmRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
