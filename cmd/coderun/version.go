package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/coderun/coderun/wasm"
)

const versionUsage = `usage: coderun version

Prints the version of coderun (the module version, "(devel)" when built from
a checkout), the version of QuickJS-NG it runs and the SHA-256 of that wasm
module, and the Go toolchain and platform.
`

// newVersionCommand returns `coderun version`, which has no flags.
func newVersionCommand() *command {
	return newCommand("version", versionUsage)
}

// runVersion is `coderun version`.
func runVersion(args []string, stdout, stderr io.Writer) int {
	c := newVersionCommand()
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.fs.NArg() != 0 {
		fmt.Fprintf(stderr, "coderun version: unexpected argument %q\n", c.fs.Arg(0))
		c.misuse(stderr)
		return 2
	}
	engineVersion, engineSHA256 := engine()
	fmt.Fprintf(stdout, "coderun %s\nQuickJS-NG %s\nwasm sha256 %s\n%s %s/%s\n",
		version(), engineVersion, engineSHA256, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}

// version is the module version the binary was built from: "(devel)" when
// built from a checkout (or unknown, as in tests).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// engine returns the version of QuickJS-NG that coderun runs and the
// SHA-256 of its wasm module, the one place the CLI reads them.
func engine() (version, sha256 string) {
	m, err := wasm.Manifest()
	if err != nil {
		return "unknown", err.Error()
	}
	return m.QuickJS.Version, m.QuickJS.SHA256
}
