package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/coderun/coderun"
)

const replayUsage = `usage: coderun replay [flags] TRACE

Replays the run recorded in TRACE (by coderun run --record, or coderun mcp
--record-dir): runs its program again with the recorded budgets, input and
tool declarations, answering every tool call, timer, clock reading and random
read from the trace, never calling a tool, and prints the Result as JSON: the
recorded one (value, logs, error and usage's fuel). With --program FILE, the
program in FILE runs instead, against the recorded data: a fix can be tried
on what failed. A program that departs from the recording (another call,
argument or order, more calls or clock readings than recorded) fails as
worker-exit with the budget replay, naming the call and where it was made.

Exit status: 0 on success, 1 when the Result has an error, 2 on misuse (an
unreadable or invalid trace), 130 on SIGINT and 143 on SIGTERM.

Flags:
`

// replayOptions are the flags of `coderun replay`.
type replayOptions struct {
	cfg     coderun.Config // only CacheDir and MaxTraceBytes are read: the budgets are the trace's
	program string         // --program FILE
}

// newReplayCommand returns `coderun replay`, parsing into o.
func newReplayCommand(o *replayOptions) *command {
	c := newCommand("replay", replayUsage)
	c.fs.StringVar(&o.program, "program", "", "run the program in `FILE` instead of the recorded one (\"-\" reads standard input)")
	c.fs.StringVar(&o.cfg.CacheDir, "cache-dir", o.cfg.CacheDir, hostUsage()["CacheDir"])
	c.fs.Var(fieldValueOf(&o.cfg.MaxTraceBytes), "max-trace", "cap on the `SIZE` of TRACE")
	return c
}

// runReplay is `coderun replay`.
func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := replayOptions{cfg: defaultConfig()}
	c := newReplayCommand(&o)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.fs.NArg() != 1 {
		fmt.Fprintf(stderr, "coderun replay: want one TRACE, got %d arguments\n", c.fs.NArg())
		c.misuse(stderr)
		return 2
	}
	trace, err := readTraceFile(c.fs.Arg(0), o.cfg.MaxTraceBytes)
	if err != nil {
		fmt.Fprintf(stderr, "coderun replay: %s: %v\n", c.fs.Arg(0), err)
		return 2
	}
	var program string
	if o.program != "" {
		if program, err = readProgram(o.program, stdin); err != nil {
			fmt.Fprintf(stderr, "coderun replay: --program %s: %v\n", o.program, err)
			return 2
		}
	}
	// The Runtime's budgets are the trace's, so that the replay runs within
	// what the recording did.
	cfg := coderun.TraceConfig(trace)
	cfg.CacheDir, cfg.MaxTraceBytes = o.cfg.CacheDir, o.cfg.MaxTraceBytes
	rt, err := newRuntime(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "coderun replay: %s: %v\n", c.fs.Arg(0), err)
		return 2
	}
	defer rt.Close(context.Background())
	ctx, in := onInterrupt(context.Background())
	res, err := rt.Replay(ctx, trace, coderun.ReplayOptions{Program: program})
	code := 2
	switch {
	case errors.Is(err, coderun.ErrInvalidTrace):
		fmt.Fprintf(stderr, "coderun replay: %s: %v\n", c.fs.Arg(0), err)
	case err != nil:
		fmt.Fprintf(stderr, "coderun: %v\n", err)
	default:
		code = printResult(res, stdout, stderr)
	}
	if status := in.stop(); status != 0 {
		return status
	}
	return code
}

// readTraceFile reads the trace in the file name, of at most max bytes.
func readTraceFile(name string, max int64) (*coderun.Trace, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return coderun.ReadTrace(f, max)
}
