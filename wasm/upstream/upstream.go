// Package upstream holds the QuickJS-NG module coderun's engine is generated
// from, and its build record: QuickJS-NG's C sources at a pinned commit,
// compiled for wasm32-wasi with coderun's own glue (glue/glue.c) by build.sh with
// Debian's clang, recorded in build.json (the commit, the SHA-256 of every
// source read, the toolchain's package versions, every flag, and the
// SHA-256 of the module written). See README.md beside this file.
//
// Only the generator (internal/enginegen) and tests import it: at run time
// coderun uses the generated module embedded in package wasm, never this one.
//
// Package upstream is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun.
package upstream

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Record is build.json: how quickjs-ng.wasm was built.
type Record struct {
	QuickJSNG struct {
		Repository string `json:"repository"`
		Commit     string `json:"commit"`
		Version    string `json:"version"`
	} `json:"quickjs_ng"`
	// Sources and Glue map each file the build read to its SHA-256.
	Sources map[string]string `json:"sources"`
	// Edits are the lines of the sources the build replaced before
	// compiling them (Sources has the SHA-256 of the files before).
	Edits []Edit            `json:"edits"`
	Glue  map[string]string `json:"glue"`
	// Toolchain maps each Debian package of the toolchain to its version.
	Toolchain map[string]string `json:"toolchain"`
	CFlags    []string          `json:"cflags"`
	LDFlags   []string          `json:"ldflags"`
	Module    struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
		Bytes  int    `json:"bytes"`
	} `json:"module"`
}

// Edit is one line of a source file replaced by another.
type Edit struct {
	File string `json:"file"`
	From string `json:"from"`
	To   string `json:"to"`
}

// String shows the edit as "file: from → to", runs of spaces in either
// line collapsed to one.
func (e Edit) String() string {
	return e.File + ": " + strings.Join(strings.Fields(e.From), " ") + " → " + strings.Join(strings.Fields(e.To), " ")
}

//go:embed quickjs-ng.wasm
var module []byte

//go:embed build.json
var record []byte

//go:embed glue/glue.c
var glue []byte

// Build returns the build record. It panics if build.json is malformed,
// which TestBuildRecord rules out.
func Build() Record {
	var r Record
	if err := json.Unmarshal(record, &r); err != nil {
		panic(fmt.Sprintf("upstream: build.json: %v", err))
	}
	return r
}

// Version is the QuickJS-NG version the module was built from.
func Version() string { return Build().QuickJSNG.Version }

// Commit is the QuickJS-NG commit the module was built from.
func Commit() string { return Build().QuickJSNG.Commit }

// Edits describes the edits made to the sources before they were
// compiled, separated by "; " (empty when there were none).
func Edits() string {
	r := Build()
	parts := make([]string, len(r.Edits))
	for i, e := range r.Edits {
		parts[i] = e.String()
	}
	return strings.Join(parts, "; ")
}

// Toolchain describes the compiler the module was built with, as
// "package version" pairs in name order.
func Toolchain() string {
	r := Build()
	names := make([]string, 0, len(r.Toolchain))
	for n := range r.Toolchain {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + r.Toolchain[n]
	}
	return strings.Join(parts, ", ")
}

// SHA256 returns the hex SHA-256 of the module, as build.json records it.
func SHA256() string { return Build().Module.SHA256 }

// Module returns the module bytes. The slice is shared: callers must not
// modify it.
func Module() []byte { return module }

// Check reports an error when b is not the module build.json records, or
// when the glue it records is not glue.c as checked in (the module is then
// stale: run build.sh).
func Check(b []byte) error {
	r := Build()
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != r.Module.SHA256 || len(b) != r.Module.Bytes {
		return fmt.Errorf("upstream: the QuickJS-NG module is not the one build.json records (sha256 %x, want %s)", got, r.Module.SHA256)
	}
	if got := sha256.Sum256(glue); hex.EncodeToString(got[:]) != r.Glue["glue/glue.c"] {
		return fmt.Errorf("upstream: glue/glue.c changed since the module was built (sha256 %x, build.json has %s): run wasm/upstream/build.sh", got, r.Glue["glue/glue.c"])
	}
	return nil
}

// Source says where the module comes from, for the engine's manifest.
const Source = "wasm/upstream/build.sh: QuickJS-NG's sources at the commit, one line edited, with coderun's glue"
