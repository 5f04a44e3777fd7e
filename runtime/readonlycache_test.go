package runtime

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/coderun/coderun/internal/testenv"
	"github.com/stretchr/testify/require"
)

// A cache directory baked into a container image is read-only at run time.
// An Engine reads the engine's compiled code from it without compiling
// (seen by what New allocates: wazero's compiler allocates several times
// what loading its output does) and writes nothing there. When the
// directory lacks the entry (an image built on a CPU whose features differ,
// or by another wazero), New compiles in memory, once, and the Engine
// runs.
func TestReadOnlyCacheDir(t *testing.T) {
	if raceEnabled {
		t.Skip("compiling the engine through read-only caches: one goroutine, where -race finds nothing and makes wazero's compiler minutes slow (scripts/test runs it without)")
	}
	filled := t.TempDir()
	compiling, through := newAllocs(t, filled) // a miss: compiles, and writes the entry
	require.Equal(t, filled, through)
	require.NotEmpty(t, files(t, filled), "the compiled engine is cached")

	// The same directories wazero made, without the entry.
	versions, err := os.ReadDir(filepath.Join(filled, "wazero"))
	require.NoError(t, err)
	require.Len(t, versions, 1)
	empty := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(empty, "wazero", versions[0].Name()), 0o755))

	makeReadOnly(t, filled, empty)
	cases := []struct {
		name     string
		dir      string
		compiles bool
	}{
		{"holds the compiled engine", filled, false},
		{"lacks the compiled engine", empty, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := files(t, c.dir)
			// A path spelled differently, which the process's caches do
			// not share: the compiled code is read from the directory, as a
			// new process would.
			link := filepath.Join(t.TempDir(), "link")
			require.NoError(t, os.Symlink(c.dir, link))
			allocs, through := newAllocs(t, link)
			if c.compiles {
				require.Greater(t, allocs, compiling/2, "a miss compiles the engine")
				require.Less(t, allocs, compiling*3/2, "a miss compiles the engine once (compiling allocated %d bytes)", compiling)
				require.Empty(t, through, "a miss compiles in memory")
			} else {
				require.Less(t, allocs, compiling/3, "a hit loads the compiled engine without compiling it (compiling allocated %d bytes)", compiling)
				require.Equal(t, link, through, "a hit comes through the cache")
			}
			newAndRun(t, link)
			require.Equal(t, before, files(t, c.dir), "nothing is written to a read-only cache")
		})
	}
}

// newAllocs makes an Engine of its own with cacheDir and returns the bytes
// New allocated and the cache directory the Engine's compiled code came
// through, after checking that the Engine runs a program.
func newAllocs(t *testing.T, cacheDir string) (uint64, string) {
	t.Helper()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	e, err := New(context.Background(), Options{Limits: cacheTestLimits(), CacheDir: cacheDir, private: true})
	goruntime.ReadMemStats(&after)
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(context.Background())) }()
	out, err := e.run(context.Background(), "return 1+1", nil)
	require.NoError(t, err)
	require.Equal(t, "2", string(out.Value), "%s: %s", out.Kind, out.Message)
	return after.TotalAlloc - before.TotalAlloc, e.codeThrough
}

// makeReadOnly makes every directory under roots refuse new files, as a
// read-only file system would: by their permissions, or, for a user whom
// permissions do not bind (root), by the immutable attribute. Its cleanup
// undoes both, so that the test's directories can be removed. It skips the
// test when neither stops a write.
func makeReadOnly(t *testing.T, roots ...string) {
	t.Helper()
	var dirs []string
	for _, root := range roots {
		require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return err
		}))
	}
	for _, dir := range dirs {
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	}
	if canCreate(dirs) == "" {
		return
	}
	for _, dir := range dirs {
		if err := testenv.SetImmutable(dir, true); err != nil {
			t.Skipf("running as uid %d, whom permissions do not stop, and the immutable attribute cannot be set (it needs Linux, CAP_LINUX_IMMUTABLE and a file system that has it): %v", os.Getuid(), err)
		}
		t.Cleanup(func() { _ = testenv.SetImmutable(dir, false) })
	}
	if dir := canCreate(dirs); dir != "" {
		t.Skipf("running as uid %d, whom neither permissions nor the immutable attribute stop from writing in %s", os.Getuid(), dir)
	}
}

// canCreate returns the first of dirs in which a file can be created, or "".
func canCreate(dirs []string) string {
	for _, dir := range dirs {
		f, err := os.CreateTemp(dir, ".probe-*")
		if err == nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			return dir
		}
	}
	return ""
}
