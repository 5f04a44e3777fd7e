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
	scriptFile := filepath.Join(dir, "script.js")
	if err := os.WriteFile(scriptFile, []byte(w.script()), 0o600); err != nil {
		b.Fatal(err)
	}
	mode := "eval"
	if w.async {
		mode = "echo"
	}
	cmd := exec.Command(bin, "-mode", mode, "-script", scriptFile, "-want", w.want)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	p := &fastschemaProcess{stdin: stdin, stdout: bufio.NewReader(stdout)}
	b.Cleanup(func() {
		_ = stdin.Close()
		_, _ = io.Copy(io.Discard, stdout) // the summary line
		if err := cmd.Wait(); err != nil {
			b.Errorf("fastschema peer: %v\n%s", err, stderr.String())
		}
	})
	return engine{name: "fastschema", sample: func() (time.Duration, error) {
		d, err := p.sample()
		if err != nil {
			return 0, fmt.Errorf("%w\n%s", err, strings.TrimSpace(stderr.String()))
		}
		return d, nil
	}}
}

// fastschemaProcess is the pipe to a running fastschema peer.
type fastschemaProcess struct {
	stdin  io.Writer
	stdout *bufio.Reader
}

// sample asks for one sample and reads the subprocess's answer.
func (p *fastschemaProcess) sample() (time.Duration, error) {
	if _, err := io.WriteString(p.stdin, "run\n"); err != nil {
		return 0, err
	}
	line, err := p.stdout.ReadBytes('\n')
	if err != nil {
		return 0, fmt.Errorf("reading from the fastschema peer: %w", err)
	}
	var answer struct {
		NS    *int64 `json:"ns"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &answer); err != nil {
		return 0, fmt.Errorf("fastschema peer answered %q: %w", line, err)
	}
	if answer.Error != "" {
		return 0, errors.New("fastschema: " + answer.Error)
	}
	if answer.NS == nil {
		return 0, fmt.Errorf("fastschema peer answered %q", line)
	}
	return time.Duration(*answer.NS), nil
}
