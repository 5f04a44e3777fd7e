package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
)

// runCase is a case of coderun run: its arguments and standard input, the
// exit status, and what stdout's Result or stderr must show.
type runCase struct {
	name     string
	args     []string
	stdin    string
	code     int
	value    string // expected JSON value, if any
	logs     []string
	kind     string
	stderrHa string
}

func TestRunCommand(t *testing.T) {
	testRun(t, []runCase{
		{name: "example", args: []string{"run", "../../examples/hello.ts"}, code: 0,
			value: `{"revenue":510.5,"top":"linus","byCustomer":{"ada":120.5,"grace":80,"linus":310}}`, logs: []string{"live orders 3"}},
		{name: "stdin", args: []string{"run", "-"}, stdin: `console.log("hi"); return [1, "two"]`, code: 0, value: `[1,"two"]`, logs: []string{"hi"}},
		{name: "failure", args: []string{"run", "-"}, stdin: `throw new TypeError("nope")`, code: 1, kind: "exception"},
		{name: "budget flag", args: []string{"run", "--fuel", "100000", "-"}, stdin: `for(;;){}`, code: 1, kind: "timeout"},
		{name: "flag after FILE", args: []string{"run", "-", "--fuel", "100000"}, stdin: `for(;;){}`, code: 1, kind: "timeout"},
		{name: "-- ends the flags", args: []string{"run", "--", "--fuel"}, code: 2, stderrHa: "open --fuel: no such file"},
		{name: "flag without its value", args: []string{"run", "x.ts", "--fuel"}, code: 2, stderrHa: "flag needs an argument: --fuel\nusage: coderun run"},
		{name: "-e", args: []string{"run", "-e", "return 1+1"}, code: 0, value: `2`, logs: []string{}},
		{name: "--eval=", args: []string{"run", "--eval=console.log('x'); return 'y'"}, code: 0, value: `"y"`, logs: []string{"x"}},
		{name: "-e without run", args: []string{"-e", "return [1]", "--fuel", "100000"}, code: 0, value: `[1]`},
		{name: "--eval without run", args: []string{"--eval", "for(;;){}", "--fuel", "100000"}, code: 1, kind: "timeout"},
		{name: "-e empty", args: []string{"run", "-e", ""}, code: 0, logs: []string{}},
		{name: "-e failure", args: []string{"-e", "throw new Error('no')"}, code: 1, kind: "exception"},
		{name: "-e and FILE", args: []string{"run", "-e", "return 1", "x.ts"}, code: 2,
			stderrHa: "coderun run: want one FILE or -e CODE, not both: -e gives the program, and so does \"x.ts\"\nusage: coderun run [flags] FILE\n       coderun run [flags] -e CODE\nRun 'coderun run --help'"},
		{name: "FILE and -e", args: []string{"-", "-e", "return 1"}, code: 2, stderrHa: "unknown command \"-\""},
		{name: "-e without CODE", args: []string{"run", "-e"}, code: 2, stderrHa: "flag needs an argument: -e"},
		{name: "no FILE", args: []string{"run", "--fuel", "1"}, code: 2, stderrHa: "coderun run: want one FILE or -e CODE, got 0 arguments"},
		{name: "size flag", args: []string{"run", "-max-output", "1KiB", "-"}, stdin: `console.log("x".repeat(2000))`, code: 1, kind: "output-limit"},
		{name: "no subcommand", args: nil, code: 2, stderrHa: "usage"},
		{name: "missing file", args: []string{"run", "/nonexistent/prog.ts"}, code: 2, stderrHa: "no such file"},
		{name: "bad flag", args: []string{"run", "-Bogus", "1", "x.ts"}, code: 2, stderrHa: "flag provided but not defined: -Bogus\nusage: coderun run [flags] FILE\n       coderun run [flags] -e CODE\nRun 'coderun run --help' for its flags."},
		{name: "old flag spelling", args: []string{"run", "-WallTime", "5s", "x.ts"}, code: 2, stderrHa: "flag provided but not defined: -WallTime"},
		{name: "two files", args: []string{"run", "a.ts", "b.ts"}, code: 2, stderrHa: "coderun run: want one FILE or -e CODE, got 2 arguments"},
		{name: "invalid config", args: []string{"run", "--max-output", "2", "-"}, stdin: "return 1", code: 2,
			stderrHa: "coderun: --max-output (Config.MaxOutputBytes) must be at least 4, got 2"},
		{name: "zero budget flag", args: []string{"run", "--fuel", "0", "-"}, stdin: "return 1", code: 2,
			stderrHa: "coderun: --fuel (Config.Fuel) must be positive, got 0"},
		{name: "zero duration flag", args: []string{"run", "--wall-time", "0s", "-"}, stdin: "return 1", code: 2,
			stderrHa: "coderun: --wall-time (Config.WallTime) must be positive, got 0s"},
		{name: "unknown command", args: []string{"runn", "x.ts"}, code: 2, stderrHa: "coderun: unknown command \"runn\"\n\ncoderun runs"},
	})
}

// --input gives the program JSON from a file or standard input, checked as
// Request.Input is.
func TestRunInput(t *testing.T) {
	testRun(t, []runCase{
		{name: "input file", args: []string{"run", "--input", "testdata/orders.json", "-"}, stdin: `return input.orders.length`, code: 0, value: `3`},
		{name: "input stdin", args: []string{"run", "--input", "-", "testdata/total.ts"}, stdin: `{"orders": [{"amount": 2.5}, {"amount": 4}]}`,
			code: 0, value: `6.5`},
		{name: "no input", args: []string{"run", "-"}, stdin: `return typeof input`, code: 0, value: `"undefined"`},
		{name: "input frozen", args: []string{"run", "--input", "-", "testdata/mutate.ts"}, stdin: `{"orders": []}`, code: 1, kind: "exception"},
		{name: "both stdin", args: []string{"run", "--input", "-", "-"}, stdin: `{}`, code: 2,
			stderrHa: "coderun run: --input - and FILE - both read standard input: give the program or the input as a file"},
		{name: "input missing", args: []string{"run", "--input", "/nonexistent/in.json", "-"}, stdin: `return 1`, code: 2,
			stderrHa: "coderun run: --input /nonexistent/in.json: open /nonexistent/in.json: no such file"},
		{name: "input not JSON", args: []string{"run", "--input", "-", "testdata/total.ts"}, stdin: `{orders: []}`, code: 2,
			stderrHa: "coderun run: --input -: coderun: invalid Request.Input: it must be lossless JSON, as a binding's result must: invalid JSON"},
		{name: "input beyond 2^53", args: []string{"run", "--input", "-", "testdata/total.ts"}, stdin: `{"id": 9007199254740993}`, code: 2,
			stderrHa: "integer beyond ±2^53: 9007199254740993 at offset 7"},
		{name: "input empty", args: []string{"run", "--input", "-", "testdata/total.ts"}, stdin: ``, code: 2,
			stderrHa: "coderun run: --input -: it is empty: give it a JSON value, such as null"},
		{name: "input over max", args: []string{"run", "--max-input", "10", "--input", "-", "testdata/total.ts"}, stdin: `{"orders": []}`, code: 2,
			stderrHa: "coderun run: --input -: it is over the limit of 10 bytes (--max-input)"},
		{name: "-e with input stdin", args: []string{"-e", "return input.n", "--input", "-"}, stdin: `{"n": 7}`, code: 0, value: `7`},
	})
}

// testRun runs each case through run, as the binary's main does.
func testRun(t *testing.T, tests []runCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			require.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			if tc.stderrHa != "" {
				require.Contains(t, stderr.String(), tc.stderrHa)
				return
			}
			var res struct {
				Value json.RawMessage `json:"value"`
				Logs  []string        `json:"logs"`
				Error *struct{ Kind, Message string }
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), stdout.String())
			if tc.value != "" {
				require.JSONEq(t, tc.value, string(res.Value))
			}
			if tc.logs != nil {
				require.Equal(t, tc.logs, res.Logs)
			}
			if tc.kind != "" {
				require.NotNil(t, res.Error)
				require.Equal(t, tc.kind, res.Error.Kind)
			}
		})
	}
}

// Help goes to standard output with status 0; misuse to standard error with
// status 2.
func TestHelp(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout []string // substrings, in order
		stderr string
	}{
		{args: []string{"--help"}, stdout: []string{"usage: coderun run [flags] FILE", "coderun run [flags] -e CODE", "coderun -e CODE [flags]",
			"coderun version", "(also --version, -v)", "coderun help [COMMAND]"}},
		{args: []string{"-h"}, stdout: []string{"usage: coderun run"}},
		{args: []string{"help"}, stdout: []string{"usage: coderun run"}},
		{args: []string{"help", "run"}, stdout: []string{"usage: coderun run [flags] FILE", "--cache-dir DIR", "caching wazero's compiled code of the engine between processes", "--memory SIZE", "(default 256MiB)", "--wall-time DURATION", "(default 10m0s)", "A SIZE is"}},
		{args: []string{"run", "--help"}, stdout: []string{"usage: coderun run [flags] FILE", "coderun run [flags] -e CODE",
			"Flags may come before or after FILE", "--stream, the program's logs go to standard error", "kind abort", "130\non SIGINT and 143 on SIGTERM",
			"-e CODE\n", "--eval CODE\n", "--max-output SIZE", "--stream\n"}},
		{args: []string{"-e", "x", "--help"}, stdout: []string{"usage: coderun run [flags] FILE"}},
		{args: []string{"run", "-h", "x.ts"}, stdout: []string{"usage: coderun run"}},
		{args: []string{"help", "mcp"}, stdout: []string{"usage: coderun mcp", "--config FILE", "--http ADDR", "--max-concurrent-calls N", "--upstream NAME=COMMAND"}},
		{args: []string{"mcp", "--help"}, stdout: []string{"usage: coderun mcp"}},
		{args: []string{"help", "version"}, stdout: []string{"usage: coderun version"}},
		{args: []string{"version", "-h"}, stdout: []string{"usage: coderun version"}},
		{args: nil, code: 2, stderr: "usage: coderun run"},
		{args: []string{"help", "bogus"}, code: 2, stderr: `coderun help: unknown command "bogus"`},
		{args: []string{"help", "run", "mcp"}, code: 2, stderr: `coderun help: unknown command "run mcp"`},
		{args: []string{"bogus"}, code: 2, stderr: `coderun: unknown command "bogus"`},
		{args: []string{"version", "extra"}, code: 2, stderr: `coderun version: unexpected argument "extra"`},
		{args: []string{"--version", "extra"}, code: 2, stderr: `coderun version: unexpected argument "extra"`},
		{args: []string{"-v", "-h"}, stdout: []string{"usage: coderun version"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			if tc.code == 0 {
				require.Empty(t, stderr.String())
				out := stdout.String()
				for _, s := range tc.stdout {
					i := strings.Index(out, s)
					require.GreaterOrEqual(t, i, 0, "stdout lacks %q:\n%s", s, stdout.String())
					out = out[i+len(s):]
				}
				return
			}
			require.Empty(t, stdout.String())
			require.Contains(t, stderr.String(), tc.stderr)
		})
	}
}

func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"version"}, strings.NewReader(""), &stdout, &stderr), stderr.String())
	for _, spelling := range []string{"--version", "-version", "-v"} {
		var out bytes.Buffer
		require.Equal(t, 0, run([]string{spelling}, strings.NewReader(""), &out, &stderr), stderr.String())
		require.Equal(t, stdout.String(), out.String(), "coderun %s prints what coderun version prints", spelling)
	}
	require.Empty(t, stderr.String())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 5, stdout.String())
	require.Equal(t, "coderun (devel)", lines[0], "a test binary has no module version")
	require.Equal(t, "QuickJS-NG "+upstream.Version()+" (commit "+upstream.Commit()+"; edited: "+upstream.Edits()+")", lines[1])
	require.Regexp(t, `^QuickJS-NG \d+\.\d+\.\d+\S* \(commit [0-9a-f]{40}; edited: quickjs.c: .* JS_ARENA_SIZE \d+\)$`, lines[1])
	require.Equal(t, "built with "+upstream.Toolchain(), lines[2])
	require.Contains(t, lines[2], "clang-19 ")
	module, _, err := wasm.Engine()
	require.NoError(t, err)
	sum := sha256.Sum256(module)
	require.Equal(t, "wasm sha256 "+hex.EncodeToString(sum[:]), lines[3], "the printed SHA-256 is that of the module that runs")
	require.Regexp(t, `^go1\.\d+.* \w+/\w+$`, lines[4])
}
