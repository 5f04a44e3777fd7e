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

// sharedEngine is the compiled engine that every Engine of the process with
// the same cache directory and pool behaviour uses (see engineFor): the
// module compiled by wazero, the image its instances share, the memory pool
// and what New learns from an instance once. None of it depends on a
// Config's budgets: each instance's memory cap is set when it is made
// (quickjs.Engine.InstantiateCapped), and everything else a budget covers is
// the run's. It lives as long as the process, like the compiled code it
// holds; an Engine's Close leaves it to the next New.
type sharedEngine struct {
	qe               *quickjs.Engine
	snap             snapshotState
	interruptCounter uint32
	// through is the cache directory the compiled code came through: read
	// from it or written to it; "" when it was compiled in memory only.
	through string
}

// engineKey tells shared engines apart: the compilation cache they were
// compiled through, and whether their pool scrubs a memory when it is
// reused (for prewarmed instances, made off the request path) or when it
// is given back.
type engineKey struct {
	dir   string
	scrub bool
}

// engineFor returns the process's shared engine for opts, compiling it on
// first use (compileEngine). A failed compilation is not kept: the next New
// tries again.
func engineFor(ctx context.Context, opts Options) (*sharedEngine, error) {
	key := engineKey{dir: opts.CacheDir, scrub: opts.Prewarm > 0}
	// One compilation at a time in the process: wazero 1.12 publishes a
	// module read from its file cache before it has compiled the module's
	// entry preambles, so an engine compiling beside another could be
	// instantiated half-made and panic (wazero issue #2547).
	caches.compiling.Lock()
	defer caches.compiling.Unlock()
	if sh := caches.engines[key]; sh != nil && !opts.private {
		return sh, nil
	}
	snap, err := embeddedSnapshot()
	if err != nil {
		return nil, err
	}
	qe, through, err := compileEngine(ctx, snap, key)
	if err != nil {
		return nil, err
	}
	sh := &sharedEngine{qe: qe, snap: snap.state, interruptCounter: findInterruptCounter(ctx, qe, snap.state), through: through}
	if !opts.private {
		caches.engines[key] = sh
	}
	return sh, nil
}

// compileEngine compiles the engine module with wazero, on every processor
// the Go scheduler may use, through a compilation cache shared by every
// engine of the process (see compilationCache): the module is compiled once
// per process, or not at all when the cache directory already holds its
// compiled code. wazero keys that code on the module's digest, wazero's
// version, the platform and the CPU's features: the module is the generated
// engine, so its digest covers everything that determines it. A cache
// directory that cannot be created, read or written never fails New: the
// module is then compiled with the in-memory cache only. It returns the
// cache directory the compiled code came through ("" in memory only).
//
// The snapshot's image is shared by every instance rather than copied into
// each (quickjs.Options.ShareImage). No memory cap is set here: wasm32's
// own 4 GiB is the engine's, and each instance gets its run's.
func compileEngine(ctx context.Context, snap *snapshot, key engineKey) (*quickjs.Engine, string, error) {
	ctx = experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0))
	qopts := quickjs.Options{
		Wasm:       snap.module,
		ShareImage: true,
		// Prewarmed instances are made off the request path: let them pay
		// for scrubbing the memories that runs give back.
		ScrubOnAllocate: key.scrub,
		Cache:           compilationCache(key.dir),
	}
	qe, err := quickjs.NewEngine(ctx, qopts)
	if err == nil && qopts.Cache != compilationCache("") {
		return qe, key.dir, nil
	}
	if err == nil || key.dir == "" {
		return qe, "", err
	}
	// A miss in a directory that cannot be written (see
	// newCompilationCache) compiled the module, kept it in the cache's
	// memory, and failed only to write it: a second try takes it from
	// there instead of compiling it again.
	if qe, err = quickjs.NewEngine(ctx, qopts); err == nil {
		return qe, "", nil
	}
	qopts.Cache = compilationCache("")
	qe, err = quickjs.NewEngine(ctx, qopts)
	return qe, "", err
}

// caches holds the process's wazero compilation caches, by cache directory
// ("": in memory only), and its shared engines. Compiled code is shared by
// every Engine of the process and kept for its lifetime: it depends only on
// the embedded module and the platform, and compiling it again for each New
// would cost far more than keeping it (and, for a cache of its own per
// Engine, never be freed).
var caches = struct {
	sync.Mutex
	byDir map[string]wazero.CompilationCache
	// compiling serializes engineFor, and guards engines.
	compiling sync.Mutex
	engines   map[engineKey]*sharedEngine
}{byDir: map[string]wazero.CompilationCache{}, engines: map[engineKey]*sharedEngine{}}

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
// nil when dir is "" or the directory neither can be written to nor exists.
// A directory that exists but cannot be written to (a cache baked into a
// container image on a read-only root filesystem) is used to read: a hit
// loads the compiled code, and a miss compiles it, keeps it in the cache's
// memory and fails to write it, which compileEngine then tries again.
func newCompilationCache(dir string) wazero.CompilationCache {
	if dir == "" {
		return nil
	}
	dir = filepath.Join(dir, "wazero")
	if !writableDir(dir) {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil
		}
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return cache
}

// writableDir reports whether dir exists, or can be made, and a file can be
// created in it.
func writableDir(dir string) bool {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return false
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	return true
}
