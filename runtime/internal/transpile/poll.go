package transpile

import (
	"context"
	"fmt"
)

// pollEvery is the number of steps (a token, a line) a pass of the compilation takes between two
// looks at its context: often enough that a pass over a program as large as MaxProgramBytes
// allows stops within a fraction of a millisecond of a cancel, rarely enough that looking costs
// nothing measurable.
const pollEvery = 1 << 12

// poller tells the passes of a compilation that its context is done, so that no pass of coderun's
// own runs long after a cancel: CompileContext looks before each phase (and before each esbuild
// call, which cannot be interrupted), and the scan's passes every pollEvery steps. Once the
// context is done, every later look reports it. A nil poller never stops (tokenize).
type poller struct {
	ctx  context.Context
	left int   // steps until the next look
	err  error // why the compilation stopped, once it has
	// reserve, when set, is asked for perLook bytes of host memory at every look, for the steps
	// until the next one (see compilation.tokenize and memory.go).
	reserve func(int64) error
	perLook int64
}

func newPoller(ctx context.Context) *poller { return &poller{ctx: ctx, left: pollEvery} }

// stop counts one step and reports whether the compilation must stop.
func (p *poller) stop() bool {
	if p == nil {
		return false
	}
	if p.left--; p.left > 0 {
		return false
	}
	return p.check()
}

// check looks at the context now and reports whether the compilation must stop.
func (p *poller) check() bool {
	if p.err == nil {
		if p.ctx.Err() == nil {
			p.left = pollEvery
			return p.charge()
		}
		p.err = fmt.Errorf("transpile: compilation stopped: %w", context.Cause(p.ctx))
	}
	return true
}

// charge asks reserve for the memory of the next pollEvery steps, if it is set, and reports
// whether the compilation must stop because it was refused.
func (p *poller) charge() bool {
	if p.reserve == nil || p.perLook == 0 {
		return false
	}
	if err := p.reserve(p.perLook); err != nil {
		p.err = err
		return true
	}
	return false
}
