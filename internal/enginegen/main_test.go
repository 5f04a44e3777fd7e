package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/wasm"
)

// TestEngineUpToDate regenerates the engine into a temporary directory and
// compares it with the one embedded in package wasm: the manifest byte for
// byte (it holds the module's digest and the snapshot state), and the module
// by digest (its gzip bytes may differ between Go versions). Generation is
// deterministic, so any difference means the checked-in engine is stale.
func TestEngineUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the engine takes seconds")
	}
	dir := t.TempDir()
	require.NoError(t, generate(context.Background(), dir))

	manifest, err := os.ReadFile(filepath.Join(dir, wasm.EngineManifestFile))
	require.NoError(t, err)
	var m wasm.EngineManifest
	require.NoError(t, json.Unmarshal(manifest, &m))
	gz, err := os.ReadFile(filepath.Join(dir, wasm.EngineModuleFile))
	require.NoError(t, err)
	module, err := wasm.Gunzip(gz, m.ModuleBytes)
	require.NoError(t, err)
	sum := sha256.Sum256(module)
	require.Equal(t, m.ModuleSHA256, hex.EncodeToString(sum[:]), "the generator's manifest must describe its module")

	checkedIn, err := os.ReadFile(filepath.Join("..", "..", "wasm", wasm.EngineManifestFile))
	require.NoError(t, err)
	embedded, _, err := wasm.Engine()
	if err != nil || string(checkedIn) != string(manifest) {
		t.Fatalf("the checked-in engine (wasm/%s, wasm/%s) is stale: run go generate ./wasm (loading it: %v)\nchecked in:\n%s\nregenerated:\n%s",
			wasm.EngineModuleFile, wasm.EngineManifestFile, err, checkedIn, manifest)
	}
	require.Len(t, embedded, len(module))
}
