package coderun_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

// With DefaultConfig, coderun writes nothing to disk: not under the user's
// cache or home directory, not in the temporary directory.
func TestDefaultConfigWritesNothing(t *testing.T) {
	dirs := map[string]string{"HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir(), "TMPDIR": t.TempDir()}
	for k, v := range dirs {
		t.Setenv(k, v)
	}
	rt, err := coderun.New(coderun.DefaultConfig())
	require.NoError(t, err)
	res, err := rt.Run(context.Background(), coderun.Request{Program: "console.log('hi'); return 1+1"})
	require.NoError(t, err)
	require.Equal(t, "2", string(res.Value))
	require.NoError(t, rt.Close(context.Background()))
	for k, dir := range dirs {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "%s (%s) must stay empty", k, dir)
	}
}

// A cache directory that cannot be written to does not fail New.
func TestNewWithUnwritableCacheDir(t *testing.T) {
	file := t.TempDir() + "/file"
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	cfg := coderun.DefaultConfig()
	cfg.CacheDir = file + "/coderun"
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	res, err := rt.Run(context.Background(), coderun.Request{Program: "return 1+1"})
	require.NoError(t, err)
	require.Equal(t, "2", string(res.Value))
	require.NoError(t, rt.Close(context.Background()))
}
