package runtime

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/coderun/coderun/runtime/quickjs"
)

// compileEngine compiles the engine module with wazero, on every processor
// the Go scheduler may use. With opts.CacheDir set and usable, wazero's
// compiled code is kept there (under "wazero"), keyed by wazero itself on
// the module's digest, wazero's version, the platform and the CPU's
// features: the module is the generated engine, so its digest covers
// everything that determines it. A cache that cannot be created, read or
// written never fails New: the module is then compiled without it.
func compileEngine(ctx context.Context, module []byte, opts Options) (*quickjs.Engine, error) {
	ctx = experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0))
	qopts := quickjs.Options{
		Wasm:             module,
		MemoryLimitPages: opts.Limits.MemoryPages(),
		// Prewarmed instances are made off the request path: let them pay
		// for scrubbing the memories that runs give back.
		ScrubOnAllocate: opts.Prewarm > 0,
	}
	if cache := compilationCache(opts.CacheDir); cache != nil {
		qopts.Cache = cache
		if qe, err := quickjs.NewEngine(ctx, qopts); err == nil {
			return qe, nil
		}
		_ = cache.Close(ctx)
		qopts.Cache = nil
	}
	return quickjs.NewEngine(ctx, qopts)
}

// compilationCache returns a wazero compilation cache in dir/wazero, or nil
// when dir is "" or the directory cannot be created or written to.
func compilationCache(dir string) wazero.CompilationCache {
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
