// Command fetch copies the pristine QuickJS-NG module out of
// github.com/fastschema/qjs into wasm/upstream/quickjs-ng.wasm, after
// checking it against the pin in wasm/upstream/quickjs-ng.wasm.sha256.
//
// It is a module of its own, so that coderun's module does not require
// fastschema/qjs: `go generate ./wasm` runs it first, then the generator
// (wasm/internal/gen) that makes the engine from the copied bytes.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	_ "unsafe" // for go:linkname

	_ "github.com/fastschema/qjs" // embeds the QuickJS-NG build
)

// wasmBytes is fastschema's embedded qjs.wasm, which it does not export.
//
//go:linkname wasmBytes github.com/fastschema/qjs.wasmBytes
var wasmBytes []byte

func main() {
	dir := flag.String("dir", "..", "the wasm/upstream directory")
	flag.Parse()
	if err := fetch(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "fetch:", err)
		os.Exit(1)
	}
}

// fetch checks wasmBytes against dir's pin and writes them to dir unless
// the file there already holds them.
func fetch(dir string) error {
	pin, err := os.ReadFile(filepath.Join(dir, "quickjs-ng.wasm.sha256"))
	if err != nil {
		return err
	}
	fields := strings.Fields(string(pin))
	if len(fields) != 2 {
		return fmt.Errorf("malformed pin %q", pin)
	}
	sum := sha256.Sum256(wasmBytes)
	if got := hex.EncodeToString(sum[:]); got != fields[0] {
		return fmt.Errorf("fastschema/qjs's module has sha256 %s, pinned %s: every pass and offset is written against the pinned build", got, fields[0])
	}
	path := filepath.Join(dir, fields[1])
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, wasmBytes) {
		return nil
	}
	return os.WriteFile(path, wasmBytes, 0o644)
}
