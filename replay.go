package coderun

import (
	"context"
	"io"

	"github.com/coderun/coderun/runtime"
)

// Trace is a recorded run (see Runtime.Record): everything the run got
// from outside its program's text, in the order the program observed it,
// and what it produced. Its JSON form, written by WriteTo and read by
// ReadTrace, is documented in docs/replay.md; it is versioned (Format,
// Version) and identifies the engine that recorded it.
type Trace = runtime.Trace

// TraceEvent, Delivery, TraceBinding, TraceEngine and TraceOutcome are the
// parts of a Trace (docs/replay.md).
type (
	TraceEvent   = runtime.TraceEvent
	Delivery     = runtime.Delivery
	TraceBinding = runtime.TraceBinding
	TraceEngine  = runtime.TraceEngine
	TraceOutcome = runtime.TraceOutcome
)

// ErrInvalidTrace is wrapped by the error of ReadTrace and Replay for a
// trace they cannot read or replay: not a trace, another format version,
// budgets over the Runtime's, invalid declarations or input.
var ErrInvalidTrace = runtime.ErrInvalidTrace

// ErrTraceTooBig is wrapped by Record's error when the run's trace passed
// Config.MaxTraceBytes: the Result is the run's, complete; there is no trace.
var ErrTraceTooBig = runtime.ErrTraceTooBig

// BudgetReplay: a replayed run's program did something its trace does not
// hold at that point (a different call, argument or order, more calls or
// clock readings than recorded, a call whose results are secret), or waited
// for what the recording did not (WorkerExit). The message names what the
// program did (a call, a clock reading, a random read, a time zone) and
// where in its source (program.ts:LINE:COLUMN), or says that it was waiting,
// at no position, when the divergence is in what a turn delivers; and what
// the recording did there.
const BudgetReplay Budget = runtime.BudgetReplay

// Record runs req as Run does and also records it: the returned trace holds
// every binding call (namespace, function, the SHA-256 of its argument), each
// turn of the run loop with the results and timers it delivered, every clock
// reading, Math.random's seed, every random byte and time zone the program
// read, a stop from outside (a cancel, a timeout of time, a host fault), the
// input, the declarations, the budgets and the outcome. Replay answers the
// program from it without calling a binding.
//
// A trace is bounded by Config.MaxTraceBytes: a run whose trace passes it
// still runs to its end, and Record returns its Result with a nil trace and
// an error wrapping ErrTraceTooBig. Other errors are Run's.
func (r *Runtime) Record(ctx context.Context, req Request) (Result, *Trace, error) {
	o, err := r.engine.RunWith(ctx, req.Program, runtimeBindings(req.Bindings),
		runtime.RunOptions{OnLog: req.OnLog, Input: req.Input, Record: true})
	if err != nil {
		return Result{}, nil, err
	}
	return result(o), o.Trace, o.TraceErr
}

// ReplayOptions change what Replay runs.
type ReplayOptions struct {
	// Program, when not empty, is run instead of the trace's program: an
	// edited program, answered from the trace as long as it does what the
	// recording did (the same calls with the same arguments in the same
	// order, the same clock and random reads); its first departure ends the
	// run as WorkerExit, BudgetReplay.
	Program string
}

// Replay runs a trace's program again, with the trace's budgets (time
// budgets excepted: they are the Runtime's), input and binding
// declarations, answering every binding call, turn of the run loop, clock,
// random read and time zone from the trace, in its order, and never calling
// a binding. A replay of the recorded program returns the recorded Result:
// its value, logs, failure and Usage.Fuel (times, peak memory and the like
// are the replay's own). A recording that was stopped from outside (a
// cancel, a timeout of time, a host fault) is stopped at the same point,
// with the recorded failure and fuel.
//
// Replay returns an error wrapping ErrInvalidTrace for a trace it cannot
// replay, among them one whose budgets are over this Runtime's, or
// ErrClosed after Close.
func (r *Runtime) Replay(ctx context.Context, t *Trace, opts ReplayOptions) (Result, error) {
	o, err := r.engine.Replay(ctx, t, opts.Program)
	if err != nil {
		return Result{}, err
	}
	return result(o), nil
}

// ReadTrace reads a trace written by Trace.WriteTo, of at most maxBytes
// bytes, and checks its format and version.
func ReadTrace(rd io.Reader, maxBytes int64) (*Trace, error) { return runtime.ReadTrace(rd, maxBytes) }

// TraceConfig returns the Config a trace was recorded with (its budgets),
// for a Runtime to replay it on.
func TraceConfig(t *Trace) Config {
	var c Config
	t.Config.CopyTo(&c)
	return c
}
