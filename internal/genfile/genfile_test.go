package genfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Writing what a file already holds does not touch it; other bytes replace
// it; a missing file is created.
func TestWriteLeavesUpToDateFilesAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, Write(path, []byte("a")))
	old := time.Unix(1_000_000_000, 0)
	require.NoError(t, os.Chtimes(path, old, old))
	require.NoError(t, Write(path, []byte("a")))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, fi.ModTime().Equal(old))
	require.NoError(t, Write(path, []byte("b")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "b", string(b))
}
