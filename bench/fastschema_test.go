package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fastschemaDir is the peer program for fastschema/qjs, a module of its own
// because it needs an older wazero than coderun (see its doc comment).
const fastschemaDir = "peers/fastschema"

// fastschemaEngine builds the fastschema peer into a temporary directory,
// starts it on w and returns an engine whose samples are taken by the
// subprocess, one per request, so that they interleave with the other
// engines'. The subprocess times each sample itself; the pipe is not timed.
// It is stopped when b ends.
func fastschemaEngine(b *testing.B, w workload) engine {
	b.Helper()
	return buildFastschema(b).engine(b, w)
}

// fastschemaPeer is the fastschema peer, built.
type fastschemaPeer struct {
	bin string // the executable
	dir string // a temporary directory for its scripts
}

// buildFastschema builds the fastschema peer into a temporary directory,
// removed when b ends.
func buildFastschema(b *testing.B) fastschemaPeer {
	b.Helper()
	dir := b.TempDir()
	bin := filepath.Join(dir, "fastschema")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		b.Fatalf("building the fastschema peer needs the go command: %v", err)
	}
	build := exec.Command(gotool, "build", "-o", bin, ".")
	build.Dir = filepath.FromSlash(fastschemaDir)
	build.Env = append(os.Environ(), "GOWORK=off") // its own module, whatever the caller's workspace
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", fastschemaDir, err, out)
	}
	return fastschemaPeer{bin: bin, dir: dir}
}

// engine starts the peer on w, with the mode that w's host function needs
// and the extra flags given, and returns an engine whose samples the
// subprocess takes. The subprocess is stopped when b ends.
func (f fastschemaPeer) engine(b *testing.B, w workload, flags ...string) engine {
	b.Helper()
	mode := "eval"
	if w.host != "" {
		mode = w.host
	}
	p := f.start(b, w, append([]string{"-mode", mode}, flags...)...)
	return engine{name: "fastschema", sample: func() (time.Duration, error) {
		a, err := p.request()
		if err != nil {
			return 0, err
		}
		if a.NS == nil {
			return 0, fmt.Errorf("fastschema peer answered %+v, want a time", a)
		}
		return time.Duration(*a.NS), nil
	}}
}

// start starts the peer on w's script with the flags given; it is stopped
// when b ends.
func (f fastschemaPeer) start(b *testing.B, w workload, flags ...string) *fastschemaProcess {
	b.Helper()
	script, err := os.CreateTemp(f.dir, "script*.js")
	if err == nil {
		_, err = script.WriteString(w.script())
		if cerr := script.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(f.bin, append([]string{"-script", script.Name(), "-want", w.want}, flags...)...)
	cmd.Dir = f.dir
	p := &fastschemaProcess{}
	cmd.Stderr = &p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p.stdin, p.stdout = stdin, bufio.NewReader(stdout)
	b.Cleanup(func() {
		_ = stdin.Close()
		_, _ = io.Copy(io.Discard, stdout) // the summary line
		if err := cmd.Wait(); err != nil {
			b.Errorf("fastschema peer: %v\n%s", err, p.stderr.String())
		}
	})
	return p
}

// fastschemaProcess is the pipe to a running fastschema peer. Its requests
// may be made from several goroutines at once: the peer serves each on a
// goroutine of its own, and as all of them ask for the same kind of sample,
// any answer will do for any request.
type fastschemaProcess struct {
	wmu    sync.Mutex // guards stdin
	stdin  io.Writer
	rmu    sync.Mutex // guards stdout
	stdout *bufio.Reader
	stderr bytes.Buffer
}

// fastschemaAnswer is the peer's answer to one request.
type fastschemaAnswer struct {
	NS        *int64   `json:"ns"`
	HeapBytes *float64 `json:"heap_bytes"`
	RSSBytes  *float64 `json:"rss_bytes"`
	PSSBytes  *float64 `json:"pss_bytes"`
	Error     string   `json:"error"`
}

// request asks for one sample and reads the subprocess's answer.
func (p *fastschemaProcess) request() (fastschemaAnswer, error) {
	var a fastschemaAnswer
	p.wmu.Lock()
	_, err := io.WriteString(p.stdin, "run\n")
	p.wmu.Unlock()
	if err != nil {
		return a, err
	}
	p.rmu.Lock()
	line, err := p.stdout.ReadBytes('\n')
	p.rmu.Unlock()
	if err != nil {
		return a, fmt.Errorf("reading from the fastschema peer: %w\n%s", err, strings.TrimSpace(p.stderr.String()))
	}
	if err := json.Unmarshal(line, &a); err != nil {
		return a, fmt.Errorf("fastschema peer answered %q: %w", line, err)
	}
	if a.Error != "" {
		return a, errors.New("fastschema: " + a.Error)
	}
	return a, nil
}
