// Command coderun runs a TypeScript or JavaScript program in coderun's wasm
// sandbox and prints its Result as JSON, or serves the same as an MCP tool.
//
//	coderun run [flags] FILE   (FILE "-" reads standard input; --input FILE gives the program data)
//	coderun run [flags] -e CODE (or coderun -e CODE [flags]: a one-liner)
//	coderun mcp [flags]        (an MCP server; see mcp.go)
//	coderun replay [flags] TRACE (replay a trace of run --record; see replay.go)
//	coderun version            (also --version and -v)
//	coderun help [COMMAND]
//
// The budgets of a run are flags derived from coderun.Config (--wall-time
// 30s, --memory 64MiB, …; see flags.go). Upstream MCP servers are given
// with --upstream NAME=COMMAND or --config FILE (the mcpServers file of MCP
// clients); run binds their tools as namespaces, as mcp does.
//
// Exit status: 0 when the program succeeded (and for help), 1 when
// Result.Error is set, 2 on misuse (an unknown command, bad flags, an
// unreadable file, an invalid configuration), 130 on SIGINT and 143 on
// SIGTERM (which abort the run; its Result is printed first).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usage is the top-level usage.
const usage = `coderun runs model-written TypeScript in a fresh QuickJS wasm sandbox.

usage: coderun run [flags] FILE      run FILE ("-" reads standard input), print the Result as JSON
       coderun run [flags] -e CODE   run the one-liner CODE (also: coderun -e CODE [flags])
       coderun mcp [flags]           serve run_code, with upstream MCP servers as namespaces, over MCP
       coderun replay [flags] TRACE  replay a run recorded with run --record, calling no tool, print the Result
       coderun version               print the versions of coderun and of its engine (also --version, -v)
       coderun help [COMMAND]        print this, or the usage and flags of COMMAND

Run 'coderun help run' or 'coderun help mcp' for the flags, among them the
budgets of a run (--wall-time 30s, --memory 64MiB, --max-output 1MiB, …).
`

const runUsage = `usage: coderun run [flags] FILE
       coderun run [flags] -e CODE

Runs FILE (TypeScript or JavaScript, the body of an async function; "-" reads
standard input), or CODE given with -e, in a fresh QuickJS wasm instance and
prints the Result as JSON. Flags may come before or after FILE; "--" ends
them. The program has no command-line arguments: nothing may follow FILE but
flags. With --input FILE ("-" reads standard input), the program reads the
JSON in FILE as the frozen global input. With --upstream or --config, the
tools of those MCP servers are namespaces of async functions in the
program, as in coderun mcp.

With --stream, the program's logs go to standard error as it makes them.

With --record FILE, the run is recorded: FILE gets its trace (a JSON
document, see docs/replay.md), for coderun replay. A trace over --max-trace
is not written: coderun says so on standard error and exits 2 after the
Result.

SIGINT (Ctrl-C) or SIGTERM aborts the run: the Result, whose error has the
kind abort, is printed as usual, then coderun exits 130 or 143 (128 plus the
signal's number). A second signal ends coderun at once.

Exit status: 0 on success, 1 when the Result has an error, 2 on misuse, 130
on SIGINT and 143 on SIGTERM.

Flags:
`

// run is the command line: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runRun(args[1:], stdin, stdout, stderr)
	case "mcp":
		return runMCP(args[1:], stdin, stdout, stderr)
	case "replay":
		return runReplay(args[1:], stdin, stdout, stderr)
	case "version", "--version", "-version", "-v":
		return runVersion(args[1:], stdout, stderr)
	case "help":
		return runHelp(args[1:], stdout, stderr)
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	if isEvalFlag(args[0]) { // coderun -e CODE [flags], as node -e
		return runRun(args, stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "coderun: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// runHelp is `coderun help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	commands := map[string]func() *command{
		"run":     func() *command { return newRunCommand(&runOptions{cfg: defaultConfig()}) },
		"mcp":     func() *command { return newMCPCommand(&mcpOptions{cfg: defaultConfig()}) },
		"replay":  func() *command { return newReplayCommand(&replayOptions{cfg: defaultConfig()}) },
		"version": newVersionCommand,
	}
	newCmd, ok := commands[args[0]]
	if len(args) > 1 || !ok {
		fmt.Fprintf(stderr, "coderun help: unknown command %q\n\n%s", strings.Join(args, " "), usage)
		return 2
	}
	newCmd().printUsage(stdout)
	return 0
}

// command is a subcommand's flags and usage.
type command struct {
	fs     *flag.FlagSet
	usage  string // the text before the flags
	footer string // the text after them
}

// newCommand returns the command `coderun name`, with no flags yet.
func newCommand(name, usage string) *command {
	fs := flag.NewFlagSet("coderun "+name, flag.ContinueOnError)
	fs.Usage = func() {} // parse prints what is needed
	return &command{fs: fs, usage: usage}
}

// printUsage writes the usage and the flags to w.
func (c *command) printUsage(w io.Writer) {
	fmt.Fprint(w, c.usage)
	printFlags(w, c.fs)
	fmt.Fprint(w, c.footer)
}

// parse parses args, flags and positional arguments in any order (see
// interspersed). On -h or --help it writes the usage to stdout and
// returns (0, false); on a bad flag, which the flag package has reported on
// stderr, it adds how to get the usage and returns (2, false).
func (c *command) parse(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	c.fs.SetOutput(stderr)
	args, err := interspersed(c.fs, args)
	if err != nil {
		fmt.Fprintln(stderr, err)
		c.misuse(stderr)
		return 2, false
	}
	err = c.fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		c.printUsage(stdout)
		return 0, false
	}
	c.misuse(stderr)
	return 2, false
}

// misuse writes the usage lines (the first paragraph of the usage) to
// stderr, and how to get the rest.
func (c *command) misuse(stderr io.Writer) {
	first, _, _ := strings.Cut(c.usage, "\n\n")
	fmt.Fprintf(stderr, "%s\nRun '%s --help' for its flags.\n", first, c.fs.Name())
}

// runOptions are the flags of `coderun run`.
type runOptions struct {
	cfg       coderun.Config
	upstreams upstreamSources
	input     string   // --input: the file of Request.Input, "-" for stdin
	eval      evalFlag // -e CODE, --eval CODE
	stream    bool     // --stream
	record    string   // --record FILE: where the run's trace goes
}

// inputUsage documents --input.
const inputUsage = "`FILE` of JSON data for the program, which reads it as the frozen global input (\"-\" reads standard input; " +
	"at most --max-input)"

// newRunCommand returns `coderun run`, parsing into o.
func newRunCommand(o *runOptions) *command {
	c := newCommand("run", runUsage)
	c.footer = unitsNote
	registerConfigFlags(c.fs, &o.cfg)
	o.upstreams.register(c.fs)
	c.fs.StringVar(&o.input, "input", "", inputUsage)
	o.eval.register(c.fs)
	c.fs.StringVar(&o.record, "record", "", "record the run: write its trace to `FILE`, for coderun replay")
	c.fs.BoolVar(&o.stream, "stream", false, "write the program's logs to standard error as it makes them, one a line (the Result, on standard output at the end, has them too)")
	return c
}

// runRun is `coderun run`.
func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := runOptions{cfg: defaultConfig()}
	c := newRunCommand(&o)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if o.input == "-" && !o.eval.set && c.fs.NArg() == 1 && c.fs.Arg(0) == "-" {
		fmt.Fprintln(stderr, `coderun run: --input - and FILE - both read standard input: give the program or the input as a file`)
		return 2
	}
	src, err := o.program(c.fs, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "coderun run: %v\n", err)
		if errors.Is(err, errArguments) {
			c.misuse(stderr)
		}
		return 2
	}
	input, err := readInput(o.input, stdin, o.cfg.MaxInputBytes)
	if err != nil {
		fmt.Fprintf(stderr, "coderun run: --input %s: %v\n", o.input, err)
		return 2
	}
	ups, err := o.upstreams.upstreams(stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "coderun: %v\n", err)
		return 2
	}
	rt, err := newRuntime(o.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 2
	}
	ctx, in := onInterrupt(context.Background())
	res, err := o.execute(ctx, rt, coderun.Request{Program: src, Input: input}, ups, stderr)
	defer func() { _ = mcp.CloseAll(ups) }()
	_ = rt.Close(context.Background())
	code := 2
	switch {
	case errors.Is(err, coderun.ErrInvalidInput):
		fmt.Fprintf(stderr, "coderun run: --input %s: %v\n", o.input, flagError(err))
	case err != nil:
		fmt.Fprintf(stderr, "coderun: %v\n", err)
	default:
		code = printResult(res.Result, stdout, stderr)
		if o.record != "" && o.writeTrace(res.trace, res.traceErr, stderr) != nil {
			code = 2
		}
	}
	if status := in.stop(); status != 0 {
		return status // 130 or 143, after the Result of the run the signal aborted
	}
	return code
}

// execute starts ups and runs req with them as bindings, streaming its
// logs to stderr with --stream. The caller closes ups.
func (o *runOptions) execute(ctx context.Context, rt *coderun.Runtime, req coderun.Request, ups []*mcp.Upstream, stderr io.Writer) (recorded, error) {
	if err := mcp.StartAll(ctx, ups); err != nil {
		return recorded{}, err
	}
	req.Bindings = mcp.Bindings(ups)
	if o.stream {
		logs := newLogStream(stderr)
		defer logs.close()
		req.OnLog = logs.add
	}
	if o.record == "" {
		res, err := rt.Run(ctx, req)
		return recorded{Result: res}, err
	}
	res, trace, err := rt.Record(ctx, req)
	if errors.Is(err, coderun.ErrTraceTooBig) {
		return recorded{Result: res, traceErr: err}, nil
	}
	return recorded{Result: res, trace: trace}, err
}

// recorded is a run's Result, and its trace when it was recorded (or why
// there is none).
type recorded struct {
	coderun.Result
	trace    *coderun.Trace
	traceErr error
}

// writeTrace writes the trace of --record, or reports why there is none.
func (o *runOptions) writeTrace(trace *coderun.Trace, traceErr error, stderr io.Writer) error {
	err := traceErr
	if err == nil {
		err = writeTraceFile(o.record, trace)
	}
	if err != nil {
		fmt.Fprintf(stderr, "coderun run: --record %s: %v\n", o.record, flagError(err))
	}
	return err
}

// writeTraceFile writes trace to the file name.
func writeTraceFile(name string, trace *coderun.Trace) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := trace.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printResult writes res as indented JSON and returns the exit status.
func printResult(res coderun.Result, stdout, stderr io.Writer) int {
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		fmt.Fprintf(stderr, "coderun: %v\n", err)
		return 2
	}
	if res.Error != nil {
		return 1
	}
	return 0
}

// readInput reads the --input file name ("-": stdin), of at most limit
// bytes, which Run checks; "" is no input.
func readInput(name string, stdin io.Reader, limit int64) (json.RawMessage, error) {
	if name == "" {
		return nil, nil
	}
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("it is over the limit of %d bytes (--max-input)", limit)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("it is empty: give it a JSON value, such as null")
	}
	return b, nil
}

// errArguments marks an error of program that is misuse of the positional
// arguments.
var errArguments = errors.New("want one FILE or -e CODE")

// program returns the program to run: CODE of -e, else the text of the
// one positional argument of fs, FILE ("-" reads stdin).
func (o *runOptions) program(fs *flag.FlagSet, stdin io.Reader) (string, error) {
	switch {
	case o.eval.set && fs.NArg() > 0:
		return "", fmt.Errorf("%w, not both: -e gives the program, and so does %q", errArguments, fs.Arg(0))
	case o.eval.set:
		return o.eval.code, nil
	case fs.NArg() != 1:
		return "", fmt.Errorf("%w, got %d arguments", errArguments, fs.NArg())
	}
	return readProgram(fs.Arg(0), stdin)
}

// readProgram reads the program in the file name, or stdin for "-".
func readProgram(name string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}
