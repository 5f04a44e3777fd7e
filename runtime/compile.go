package runtime

import (
	"context"
	"errors"
	"fmt"
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
		r.exhaust(BudgetProgram, err.Error())
		return nil
	}
	reserved := &compileReservation{mem: r.mem}
	opts := transpile.Options{OnPhase: r.e.compilePhase, MaxProgramBytes: r.limits.MaxProgramBytes, Reserve: reserved.reserve}
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
		reserved.release()
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
		r.exhaust(BudgetWall, budget.WallMessage(r.limits.WallTime))
	}
	return nil
}

// compiled ends the run if compiling failed.
func (r *run) compiled(prog *transpile.Program, err error) *transpile.Program {
	var tooBig *compileMemoryError
	switch {
	case errors.As(err, &tooBig):
		r.exhaust(BudgetMemory, r.mem.CompileExceeded(tooBig.need))
		return nil
	case err != nil:
		r.end(KindException, err.Error())
		return nil
	}
	return prog
}

// compileReservation charges a compilation's host memory to the run's account, as
// transpile.Options.Reserve asks for it, until the compilation returns: a compilation
// allocates tens of bytes (esbuild, hundreds per unit of compile work) for every byte of the
// program, garbage that no budget would otherwise see. The run's guest does not exist yet while
// its program compiles, so the whole of MemoryBytes is there for it.
type compileReservation struct {
	mem  *budget.Memory
	held int64
}

// reserve charges n more bytes, or returns a *compileMemoryError when they do not fit.
func (c *compileReservation) reserve(n int64) error {
	if !c.mem.Charge(n) {
		return &compileMemoryError{need: c.held + n}
	}
	c.held += n
	return nil
}

// release gives back what the compilation held.
func (c *compileReservation) release() {
	c.mem.Release(c.held)
	c.held = 0
}

// compileMemoryError refuses a compilation that would take more host memory than the run's
// budget holds.
type compileMemoryError struct{ need int64 }

func (e *compileMemoryError) Error() string {
	return fmt.Sprintf("compiling needs about %d bytes of host memory", e.need)
}
