package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/runtime/internal/transpile"
)

// compileCacheBytes bounds what the engine's cache of compiled programs holds: their JavaScript,
// line tables, source maps and engine bytecode (see transpile.Cache).
const compileCacheBytes = 64 << 20

// compileCacheEntries bounds the number of cached programs.
const compileCacheEntries = 256

// Causes given to a compilation that the run stopped waiting for.
var (
	errCompileDisposed = errors.New("runtime disposed")
	errCompileWall     = errors.New("wall-clock ceiling reached")
)

// compile returns the run's compiled program, or ends the run and returns nil.
//
// A program over MaxProgramBytes fails before anything reads it further. A cached program is
// returned at once. Otherwise the program compiles on a goroutine of its own while the run
// watches its context, Close and WallTime: when one of them ends the run, the run returns at once
// and the compilation stops at its next look at its context, which it takes every few thousand
// tokens of its own passes and before each call to esbuild (see transpile.CompileContext; the
// nesting limits keep each phase linear in the program, which MaxProgramBytes bounds, the
// diagnostics bound keeps esbuild's error reports linear too, and the compile-work limits, which
// scale with MaxProgramBytes, keep each esbuild call short). An esbuild call already running is
// not interrupted: what an abandoned compilation still costs is bounded by one such call, so
// compilations are not otherwise limited in number. Close waits for them (Engine.compiling).
func (r *run) compile() *transpile.Program {
	if err := transpile.CheckSize(r.source, r.limits.MaxProgramBytes); err != nil {
		r.end(KindException, err.Error())
		return nil
	}
	opts := transpile.Options{OnPhase: r.e.compilePhase, MaxProgramBytes: r.limits.MaxProgramBytes}
	if prog, err, ok := r.e.programs.Lookup(r.source, opts); ok {
		if r.compiled(prog, err) == nil || r.interrupted() {
			return nil
		}
		return prog
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	type result struct {
		prog *transpile.Program
		err  error
	}
	done := make(chan result, 1)
	r.e.compiling.Add(1)
	go func() {
		defer r.e.compiling.Done()
		prog, err := r.e.programs.Compile(ctx, r.source, opts)
		done <- result{prog, err}
	}()
	wall := time.NewTimer(time.Until(r.meter.WallDeadline()))
	defer wall.Stop()
	select {
	case res := <-done:
		if res.err != nil && ctx.Err() != nil {
			r.end(KindAbort, context.Cause(r.ctx).Error())
			return nil
		}
		if r.compiled(res.prog, res.err) == nil || r.interrupted() {
			return nil
		}
		return res.prog
	case <-r.ctx.Done():
		cancel(context.Cause(r.ctx))
		r.end(KindAbort, context.Cause(r.ctx).Error())
	case <-r.e.closing:
		cancel(errCompileDisposed)
		r.end(KindAbort, "runtime disposed")
	case <-wall.C:
		cancel(errCompileWall)
		r.end(KindTimeout, budget.WallMessage(r.limits.WallTime))
	}
	return nil
}

// compiled ends the run if compiling failed.
func (r *run) compiled(prog *transpile.Program, err error) *transpile.Program {
	if err != nil {
		r.end(KindException, err.Error())
		return nil
	}
	return prog
}
