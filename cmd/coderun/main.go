// Command coderun runs a TypeScript or JavaScript program in coderun's wasm
// sandbox and prints its Result as JSON.
//
//	coderun run [flags] FILE   (FILE "-" reads standard input)
//	coderun mcp [flags] --upstream NAME=COMMAND ...   (an MCP server; see mcp.go)
//
// With --upstream NAME=COMMAND (repeatable), run binds the tools of the MCP
// server COMMAND as the namespace NAME, as coderun mcp does.
//
// Exit status: 0 when the program succeeded, 1 when Result.Error is set, 2 on
// misuse (bad flags, unreadable file, invalid configuration).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: coderun run [flags] FILE
       coderun mcp [flags] --upstream NAME=COMMAND ...   (coderun mcp -h for its flags)

Runs FILE (TypeScript or JavaScript, the body of an async function; "-" reads
standard input) in a fresh QuickJS wasm instance and prints the Result as JSON.

Flags:
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "mcp" {
		return runMCP(args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cfg := defaultConfig()
	fs := flag.NewFlagSet("coderun run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	registerConfigFlags(fs, &cfg)
	var upstreams upstreamFlags
	fs.Var(&upstreams, "upstream", upstreamUsage)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	src, err := readProgram(fs.Arg(0), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "coderun: %v\n", err)
		return 2
	}
	rt, err := coderun.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var bindings []coderun.Namespace
	if len(upstreams) > 0 {
		ups, err := upstreams.upstreams(stderr, nil)
		if err == nil {
			err = startUpstreams(ctx, ups)
		}
		if err != nil {
			_ = rt.Close(context.Background())
			fmt.Fprintf(stderr, "coderun: %v\n", err)
			return 2
		}
		defer func() { _ = mcp.CloseAll(ups) }()
		bindings = mcp.Bindings(ups)
	}
	res, err := rt.Run(ctx, coderun.Request{Program: src, Bindings: bindings})
	_ = rt.Close(context.Background())
	if err != nil {
		fmt.Fprintf(stderr, "coderun: %v\n", err)
		return 2
	}
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
