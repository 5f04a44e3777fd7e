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
a checkout); the QuickJS-NG version and commit it runs, the toolchain that
compiled it, and the SHA-256 of the wasm module that runs (the engine as
generated, passes and snapshot included); and the Go toolchain and platform.
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
	e := engine()
	edits := ""
	if e.Edits != "" {
		edits = "; edited: " + e.Edits
	}
	fmt.Fprintf(stdout, "coderun %s\nQuickJS-NG %s (commit %s%s)\nbuilt with %s\nwasm sha256 %s\n%s %s/%s\n",
		version(), e.Version, e.Commit, edits, e.Toolchain, e.ModuleSHA256, runtime.Version(), runtime.GOOS, runtime.GOARCH)
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

// engineInfo is what `coderun version` says of the engine.
type engineInfo struct {
	Version, Commit, Edits, Toolchain, ModuleSHA256 string
}

// engine returns what the engine's manifest records: the QuickJS-NG
// version and commit, the lines of its sources the build edited, the toolchain, and the SHA-256 of the module that
// runs. It is the one place the CLI reads them.
func engine() engineInfo {
	m, err := wasm.Manifest()
	if err != nil {
		return engineInfo{Version: "unknown", Commit: "unknown", Toolchain: "unknown", ModuleSHA256: err.Error()}
	}
	return engineInfo{Version: m.QuickJS.Version, Commit: m.QuickJS.Commit, Edits: m.QuickJS.Edits,
		Toolchain: m.QuickJS.Toolchain, ModuleSHA256: m.ModuleSHA256}
}
