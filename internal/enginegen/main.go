// Command enginegen generates coderun's engine: it makes the module every
// run instantiates from the pristine QuickJS-NG module in wasm/upstream
// (after checking its pin), with runtime.BuildEngine, and writes it to
// wasm/engine.wasm.gz with its manifest wasm/engine.json. `go generate
// ./wasm` runs it, as does `go run ./internal/enginegen` from the module's
// root; a test (TestEngineUpToDate) fails when the checked-in files are not
// what it would write.
//
// It lives outside wasm/ because it imports runtime: the artifact's package
// stays below runtime, and only this command sees both.
//
// Run it again after changing anything the engine is made of: the passes in
// wasm/, the prelude and the snapshot code in runtime/, internal/quickjs's
// start-up (Init), the guest printers in serialize/, or the pristine module.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coderun/coderun/internal/genfile"
	"github.com/coderun/coderun/runtime"
	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
)

func main() {
	dir := flag.String("dir", "wasm", "the directory to write the engine to (package wasm's)")
	flag.Parse()
	if err := generate(context.Background(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "enginegen:", err)
		os.Exit(1)
	}
}

// generate builds the engine and writes its two files to dir.
func generate(ctx context.Context, dir string) error {
	module, manifest, err := build(ctx)
	if err != nil {
		return err
	}
	gz, err := compress(module)
	if err != nil {
		return err
	}
	if err := genfile.Write(filepath.Join(dir, wasm.EngineModuleFile), gz); err != nil {
		return err
	}
	return genfile.Write(filepath.Join(dir, wasm.EngineManifestFile), manifest)
}

// build returns the engine module and its manifest, encoded.
func build(ctx context.Context) (module, manifest []byte, err error) {
	pristine := upstream.Module()
	if err := upstream.Check(pristine); err != nil {
		return nil, nil, err
	}
	module, state, err := runtime.BuildEngine(ctx, pristine)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(module)
	m := wasm.EngineManifest{
		QuickJS: wasm.Provenance{Version: upstream.Version(), Commit: upstream.Commit(), Edits: upstream.Edits(), Toolchain: upstream.Toolchain(),
			SHA256: upstream.SHA256(), Source: upstream.Source},
		ModuleSHA256: hex.EncodeToString(sum[:]),
		ModuleBytes:  len(module),
		State:        state,
	}
	manifest, err = json.MarshalIndent(m, "", "\t")
	if err != nil {
		return nil, nil, err
	}
	return module, append(manifest, '\n'), nil
}

// compress gzips b with no name and no time in the header. The bytes may
// differ between Go versions; the manifest's digest is of b.
func compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
