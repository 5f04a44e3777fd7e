package runtime

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/coderun/coderun/internal/quickjs"
)

// compileEngine compiles the engine module with wazero, on every processor
// the Go scheduler may use, through a compilation cache shared by every
// Engine of the process (see compilationCache): the module is compiled once
// per process, or not at all when opts.CacheDir already holds its compiled
// code. wazero keys that code on the module's digest, wazero's version, the
// platform and the CPU's features: the module is the generated engine, so
// its digest covers everything that determines it. A cache directory that
// cannot be created, read or written never fails New: the module is then
// compiled with the in-memory cache only.
//
// The snapshot's image is shared by every instance rather than copied into
// each (quickjs.Options.ShareImage).
func compileEngine(ctx context.Context, snap *snapshot, opts Options) (*quickjs.Engine, error) {
	ctx = experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0))
	qopts := quickjs.Options{
		Wasm:             snap.module,
		ShareImage:       true,
		MemoryLimitPages: opts.Limits.MemoryPages(),
		// Prewarmed instances are made off the request path: let them pay
		// for scrubbing the memories that runs give back.
		ScrubOnAllocate: opts.Prewarm > 0,
		Cache:           compilationCache(opts.CacheDir),
	}
	// One compilation at a time in the process: wazero 1.12 publishes a
	// module read from its file cache before it has compiled the module's
	// entry preambles, so an Engine compiling beside another could
	// instantiate it half-made and panic (wazero issue #2547).
	caches.compiling.Lock()
	defer caches.compiling.Unlock()
	qe, err := quickjs.NewEngine(ctx, qopts)
	if err != nil && opts.CacheDir != "" {
		qopts.Cache = compilationCache("")
		return quickjs.NewEngine(ctx, qopts)
	}
	return qe, err
}

// caches holds the process's wazero compilation caches, by cache directory
// ("": in memory only). Compiled code is shared by every Engine of the
// process and kept for its lifetime: it depends only on the embedded module
// and the platform, and compiling it again for each New would cost far more
// than keeping it (and, for a cache of its own per Engine, never be freed).
var caches = struct {
	sync.Mutex
	byDir map[string]wazero.CompilationCache
	// compiling serializes compileEngine (see there).
	compiling sync.Mutex
}{byDir: map[string]wazero.CompilationCache{}}

// compilationCache returns the process's compilation cache for dir: in
// memory when dir is "" or cannot be used (created and written to), else
// backed by dir/wazero.
func compilationCache(dir string) wazero.CompilationCache {
	caches.Lock()
	defer caches.Unlock()
	if c, ok := caches.byDir[dir]; ok {
		return c
	}
	c := newCompilationCache(dir)
	if c == nil {
		if c = caches.byDir[""]; c == nil {
			c = wazero.NewCompilationCache()
			caches.byDir[""] = c
		}
	}
	caches.byDir[dir] = c
	return c
}

// newCompilationCache returns a wazero compilation cache for dir/wazero, or
// nil when dir is "" or the directory cannot be created or written to.
func newCompilationCache(dir string) wazero.CompilationCache {
	if dir == "" {
		return nil
	}
	dir = filepath.Join(dir, "wazero")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return cache
}
