package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/wasm"
)

// fuelConfig is the fuel pass configuration of every engine.
var fuelConfig = wasm.FuelConfig{InterruptCost: budget.InterruptCost, BackEdges: true}

// hardenedModule returns the QuickJS module rewritten by wasm.Harden. With a
// cache directory, the result is kept there, keyed by wasm.PassesDigest (the
// pristine module and the passes' source) and the fuel configuration, so
// that later processes skip the rewrite and never reuse a stale one.
func hardenedModule(cacheDir string) ([]byte, error) {
	// Every pass and every discovered offset is written against one build.
	if sum := sha256.Sum256(wasm.QuickJS()); hex.EncodeToString(sum[:]) != wasm.QuickJSSHA256 {
		return nil, fmt.Errorf("coderun: the QuickJS-NG module is not the pinned build (sha256 %x, want %s)", sum, wasm.QuickJSSHA256)
	}
	if cacheDir == "" {
		return wasm.Harden(wasm.QuickJS(), fuelConfig)
	}
	key := sha256.Sum256([]byte(wasm.PassesDigest() + "/" + fmt.Sprint(fuelConfig)))
	path := filepath.Join(cacheDir, "quickjs-"+hex.EncodeToString(key[:12])+".wasm")
	if b, err := os.ReadFile(path); err == nil && len(b) > 8 && string(b[:4]) == "\x00asm" {
		return b, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("coderun: reading cached module: %w", err)
	}
	b, err := wasm.Harden(wasm.QuickJS(), fuelConfig)
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(path, b); err != nil {
		return nil, fmt.Errorf("coderun: caching module: %w", err)
	}
	return b, nil
}

// writeAtomic writes b to path through a temporary file and a rename, so
// that concurrent processes never see a partial file.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
