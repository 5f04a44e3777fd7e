package runtime

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/coderun/coderun/budget"
)

func cacheTestLimits() budget.Limits {
	return budget.Limits{
		Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: time.Minute,
		MemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults()
}

// newAndRun makes an engine with cacheDir, runs `return 1+1` and closes it.
func newAndRun(t *testing.T, cacheDir string) {
	t.Helper()
	e, err := New(context.Background(), Options{Limits: cacheTestLimits(), CacheDir: cacheDir})
	require.NoError(t, err)
	out, err := e.run(context.Background(), "return 1+1", nil)
	require.NoError(t, err)
	require.Equal(t, "2", string(out.Value), "%s: %s", out.Kind, out.Message)
	require.NoError(t, e.Close(context.Background()))
}

// files lists the regular files under dir, with their sizes.
func files(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fi.Size()
		return nil
	})
	require.NoError(t, err)
	return out
}

// A cache directory that cannot be created or written to never fails New:
// the engine is compiled without it, and nothing is written there.
func TestNewWithUnusableCacheDir(t *testing.T) {
	if raceEnabled {
		t.Skip("compiling the engine with unusable cache directories: one goroutine, where -race finds nothing and makes wazero's compiler minutes slow (scripts/test runs it without)")
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, root string) string // returns CacheDir
	}{
		{"below a regular file", func(t *testing.T, root string) string {
			require.NoError(t, os.WriteFile(filepath.Join(root, "file"), nil, 0o644))
			return filepath.Join(root, "file", "cache")
		}},
		{"its wazero directory is a file", func(t *testing.T, root string) string {
			require.NoError(t, os.WriteFile(filepath.Join(root, "wazero"), nil, 0o644))
			return root
		}},
		{"wazero's version directory is a file", func(t *testing.T, root string) string {
			// Learn the name wazero gives it (it depends on how the
			// binary was built), then put a file there.
			scratch := t.TempDir()
			_, err := wazero.NewCompilationCacheWithDir(scratch)
			require.NoError(t, err)
			names, err := os.ReadDir(scratch)
			require.NoError(t, err)
			require.Len(t, names, 1)
			dir := filepath.Join(root, "wazero")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, names[0].Name()), nil, 0o644))
			return root
		}},
		{"on a read-only file system", func(t *testing.T, root string) string {
			if _, err := os.Stat("/proc/self"); err != nil {
				t.Skip("no /proc")
			}
			return "/proc/coderun-cache-test" // nobody, not even root, makes directories here
		}},
		{"read-only", func(t *testing.T, root string) string {
			makeReadOnly(t, root)
			return root
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := c.setup(t, root)
			before := files(t, root)
			newAndRun(t, dir)
			require.Equal(t, before, files(t, root), "nothing is written to an unusable cache")
			if !strings.HasPrefix(dir, root) {
				_, err := os.Stat(dir)
				require.ErrorIs(t, err, fs.ErrNotExist)
			}
		})
	}
}

// A usable cache directory receives wazero's compiled code once: an engine
// that reads it (as a later process would: here, through a path spelled
// differently, which the process's caches do not share) writes nothing
// new. When the cache's content cannot be read back (here: every entry
// overwritten with garbage), New compiles without it.
func TestNewCompilationCache(t *testing.T) {
	if raceEnabled {
		t.Skip("compiling the engine and its file cache: one goroutine, where -race finds nothing and makes wazero's compiler minutes slow (scripts/test runs it without)")
	}
	dir := t.TempDir()
	newAndRun(t, dir)
	first := files(t, dir)
	require.NotEmpty(t, first, "the compiled engine is cached")
	var total int64
	for path, size := range first {
		require.Contains(t, path, filepath.Join(dir, "wazero")+string(filepath.Separator))
		total += size
	}
	require.Greater(t, total, int64(1<<20), "the cache holds compiled code")

	link := func() string {
		l := filepath.Join(t.TempDir(), "link")
		require.NoError(t, os.Symlink(dir, l))
		return l
	}
	newAndRun(t, link())
	require.Equal(t, first, files(t, dir), "the second engine hits the cache")

	for path := range first {
		require.NoError(t, os.WriteFile(path, []byte("not compiled code"), 0o644))
	}
	newAndRun(t, link())
}

// Engines share compiled code within the process: with no cache directory,
// or one that cannot be used, they all get the in-memory cache.
func TestCompilationCacheShared(t *testing.T) {
	mem := compilationCache("")
	require.NotNil(t, mem)
	require.Same(t, mem, compilationCache(""))
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.Same(t, mem, compilationCache(filepath.Join(file, "cache")))
	dir := t.TempDir()
	onDisk := compilationCache(dir)
	require.NotSame(t, mem, onDisk)
	require.Same(t, onDisk, compilationCache(dir))
}

// Engines made at the same time from a warm cache directory all work:
// wazero 1.12 publishes a module read from its file cache before compiling
// its entry preambles, and an Engine that found it half-made panicked in
// its first instantiation (wazero issue #2547), until compileEngine
// compiled one at a time. Each round starts with no Engine alive, so that
// the compiled code is read from the directory again.
func TestConcurrentNewFromCacheDir(t *testing.T) {
	dir := testCacheDir(t)
	newAndRun(t, dir) // the directory holds the compiled engine
	const rounds, engines = 6, 4
	for range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, engines)
		made := make(chan *Engine, engines)
		for range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e, err := New(context.Background(), Options{Limits: cacheTestLimits(), CacheDir: dir})
				if err != nil {
					errs <- err
					return
				}
				made <- e
			}()
		}
		wg.Wait()
		close(errs)
		close(made)
		for err := range errs {
			require.NoError(t, err)
		}
		for e := range made {
			o, err := e.run(context.Background(), "return 1 + 1", nil)
			require.NoError(t, err)
			require.JSONEq(t, "2", string(o.Value))
			require.NoError(t, e.Close(context.Background()))
		}
	}
}
