package wasm

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/wasm/upstream"
)

// QuickJS returns the QuickJS-NG module built by wasm/upstream/build.sh,
// which the passes' tests rewrite.
func QuickJS() []byte { return upstream.Module() }

func TestEngineEmbedded(t *testing.T) {
	module, m, err := Engine()
	require.NoError(t, err)
	require.Equal(t, []byte("\x00asm"), module[:4])
	require.Len(t, module, m.ModuleBytes)
	require.Equal(t, Provenance{
		Version:   upstream.Version(),
		Commit:    upstream.Commit(),
		Edits:     upstream.Edits(),
		Toolchain: upstream.Toolchain(),
		SHA256:    upstream.SHA256(),
		Source:    upstream.Source,
	}, m.QuickJS, "the engine was generated from another module than wasm/upstream's: run go generate ./wasm")
	require.NoError(t, upstream.Check(QuickJS()))
	require.NotEmpty(t, m.State)

	again, _, err := Engine()
	require.NoError(t, err)
	require.True(t, bytes.Equal(module, again))
	again[0] = 'x'
	fresh, _, err := Engine()
	require.NoError(t, err)
	require.Equal(t, byte(0), fresh[0], "every call returns its own copy")
}

func TestGunzipRejects(t *testing.T) {
	_, err := Gunzip([]byte("not gzip"), 10)
	require.Error(t, err)
	_, err = Gunzip(engineModule, 10)
	require.ErrorContains(t, err, "want 10", "a module longer than the manifest says")
	_, err = Gunzip(engineModule[:len(engineModule)/2], 1<<30)
	require.Error(t, err, "a truncated stream")
}
