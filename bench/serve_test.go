package bench

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/internal/testenv"
)

// BenchmarkServeReady measures what a new replica (a new pod) takes to
// serve: from the exec of `coderun mcp --http 127.0.0.1:0 --stateless` to
// its first GET /readyz answered 200, polled every millisecond. "baked
// cache" gives it --cache-dir of a directory one earlier process filled and
// that is then read-only, as in the container image (deploy/Containerfile);
// "baked cache, other CPU" one with wazero's directories but not the
// compiled engine, read-only (what a replica on a CPU whose features differ
// from the build machine's finds: it compiles in memory); "no cache" gives
// it --cache-dir "", so that it compiles the engine. It
// reports the median (ms/ready) and the resident memory of the server once
// ready (MiB-rss, read from /proc/PID/status), the overhead a replica
// needs besides its runs' memory. Issue 32's goal: well under a second with
// the baked cache.
func BenchmarkServeReady(b *testing.B) {
	bin, cache := buildServer(b)
	cases := []struct{ name, cacheDir string }{{"baked cache", cache}, {"baked cache, other CPU", missCache(b, cache)}, {"no cache", ""}}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			var rss int64
			for b.Loop() {
				d, r, err := timeReady(bin, c.cacheDir)
				if err != nil {
					b.Fatal(err)
				}
				times, rss = append(times, d), max(rss, r)
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/ready")
			b.ReportMetric(float64(rss)/(1<<20), "MiB-rss")
		})
	}
}

// buildServer builds coderun, fills a cache directory by one run and makes
// it read-only, as deploy/build-image.sh does for the image; it returns the
// binary and the directory.
func buildServer(b *testing.B) (bin, cache string) {
	dir := b.TempDir()
	bin, cache = filepath.Join(dir, "coderun"), filepath.Join(dir, "cache")
	// In the repository's module: bench's does not require the server's
	// dependencies.
	build := exec.Command("go", "build", "-o", bin, "./cmd/coderun")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	fill := exec.Command(bin, "run", "--cache-dir", cache, "-e", "return 1")
	if out, err := fill.CombinedOutput(); err != nil {
		b.Fatalf("filling the cache: %v\n%s", err, out)
	}
	readOnly(b, cache)
	return bin, cache
}

// missCache returns a read-only cache directory with the directories of
// cache (wazero's, by version and platform) and none of its files.
func missCache(b *testing.B, cache string) string {
	miss := filepath.Join(b.TempDir(), "miss")
	err := filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(cache, path)
		if err != nil {
			return err
		}
		return os.MkdirAll(filepath.Join(miss, rel), 0o755)
	})
	if err != nil {
		b.Fatal(err)
	}
	readOnly(b, miss)
	return miss
}

// readOnly makes every file and directory under dir read-only: by their
// permissions, and, for root, whom they do not bind, by the immutable
// attribute of the directories (chattr +i), so that the server finds the
// cache as a read-only file system would have it. Its cleanup undoes both.
func readOnly(b *testing.B, dir string) {
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o444)
		if d.IsDir() {
			mode = 0o555
			dirs = append(dirs, path)
		}
		return os.Chmod(path, mode)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		for _, d := range dirs {
			_ = testenv.SetImmutable(d, false)
		}
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil {
				_ = os.Chmod(path, 0o755)
			}
			return nil
		})
	})
	if os.Geteuid() != 0 {
		return
	}
	for _, d := range dirs {
		if err := testenv.SetImmutable(d, true); err != nil {
			b.Fatalf("as root, a read-only cache needs the immutable attribute: %v", err)
		}
	}
}

var servingAt = regexp.MustCompile(`at (http://\S+)/`)

// serving is a `coderun mcp --http` process: its base URL, and a stop
// function that kills it.
type serving struct {
	cmd  *exec.Cmd
	base string
	stop func()
}

// serve starts `coderun mcp` on a loopback port with the flags args and
// returns once it prints its address.
func serve(bin string, args ...string) (*serving, error) {
	cmd := exec.Command(bin, append([]string{"mcp", "--http", "127.0.0.1:0", "--stateless"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serving{cmd: cmd, stop: func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }}
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := servingAt.FindStringSubmatch(lines.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	base, ok := <-addr
	if !ok {
		s.stop()
		return nil, fmt.Errorf("the server exited before serving")
	}
	s.base = base
	return s, nil
}

// timeReady starts the server and returns the time from its exec to its
// first /readyz 200, and its resident memory then; it kills the server.
func timeReady(bin, cacheDir string) (time.Duration, int64, error) {
	start := time.Now()
	s, err := serve(bin, "--cache-dir", cacheDir)
	if err != nil {
		return 0, 0, err
	}
	defer s.stop()
	client := &http.Client{Timeout: time.Second}
	for deadline := start.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		resp, err := client.Get(s.base + "/readyz")
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			d := time.Since(start)
			rss, err := procStatus(s.cmd.Process.Pid, "VmRSS")
			return d, rss, err
		}
	}
	return 0, 0, fmt.Errorf("%s/readyz never answered 200", s.base)
}

// procStatus returns the field (in kB there, such as VmRSS or VmHWM) of
// /proc/PID/status, in bytes.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// BenchmarkServeMemory measures the memory a replica needs besides its
// runs': a server with deploy/kubernetes' --memory 256MiB and --max-runs 4
// is sent 4 run_code calls at once, each allocating 1 MiB typed arrays
// until its memory budget ends it, for b.N rounds; it reports the
// process's peak resident memory (MiB-peak, VmHWM) and that peak less 4 ×
// 256 MiB (MiB-beyond-budgets: negative when the 4 runs did not all peak
// at once), with the baked cache and with none (the engine compiled in
// memory, as on a CPU the cache was not built for).
func BenchmarkServeMemory(b *testing.B) {
	bin, cache := buildServer(b)
	const runs, perRun = 4, 256 << 20
	for _, c := range []struct{ name, cacheDir string }{{"baked cache", cache}, {"no cache", ""}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := serve(bin, "--cache-dir", c.cacheDir, "--memory", "256MiB", "--max-runs", strconv.Itoa(runs))
			if err != nil {
				b.Fatal(err)
			}
			defer s.stop()
			for b.Loop() {
				errs := make(chan error, runs)
				for range runs {
					go func() { errs <- fillMemory(s.base) }()
				}
				for range runs {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
			}
			peak, err := procStatus(s.cmd.Process.Pid, "VmHWM")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(peak)/(1<<20), "MiB-peak")
			b.ReportMetric(float64(peak-runs*perRun)/(1<<20), "MiB-beyond-budgets")
		})
	}
}

// fillMemory calls run_code (stateless MCP over HTTP, no session) with a
// program that allocates until its memory budget ends it, and checks that
// the budget did.
func fillMemory(base string) error {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"const a = []; for (;;) a.push(new Uint8Array(1 << 20));"}}}`
	req, err := http.NewRequest(http.MethodPost, base+"/", strings.NewReader(call))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !strings.Contains(string(body), "memory limit of 256 MiB exceeded") {
		return fmt.Errorf("the run did not end at its memory budget: %s", body)
	}
	return nil
}
