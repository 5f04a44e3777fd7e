// Package runtime is coderun's engine: one wazero runtime and one compiled,
// hardened and pre-initialized QuickJS module (generated into package wasm)
// per Engine, a fresh instance for every run, the
// host-driven event loop that runs a program to completion, and the
// lifecycle that lets Close stop every run in flight.
//
// Package runtime is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun.
package runtime

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime/internal/transpile"
)

//go:embed prelude.js
var preludeJS string

// webGlobalsJS is the web globals' installer, which the prelude calls.
//
//go:embed webglobals.js
var webGlobalsJS string

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("coderun: runtime closed")

// Kinds of failure: the one set of failure kinds. Package coderun exports
// them as its Kind constants (coderun.Exception, …) without copying them.
const (
	KindException     = "exception"
	KindTimeout       = "timeout"
	KindAbort         = "abort"
	KindWorkerExit    = "worker-exit"
	KindInvalidOutput = "invalid-output"
	KindOutputLimit   = "output-limit"
)

// Budgets: what ended a run that a limit or a fault rather than the program
// ended (Outcome.Budget). Each goes with one kind (see budgetKind). Package
// coderun exports them as its Budget constants without copying them.
const (
	BudgetFuel    = "fuel"    // timeout: Fuel spent
	BudgetCompute = "compute" // timeout: ComputeTime spent
	BudgetWall    = "wall"    // timeout: WallTime reached
	BudgetMemory  = "memory"  // worker-exit: MemoryBytes reached
	BudgetStack   = "stack"   // worker-exit: the guest's native stack is full
	BudgetOutput  = "output"  // output-limit: MaxOutputBytes reached
	BudgetProgram = "program" // exception: the program is over MaxProgramBytes
	BudgetEngine  = "engine"  // worker-exit: the engine faulted
	BudgetHost    = "host"    // worker-exit: a host function or hook broke the run
)

// budgetKind is the kind of failure a run that budget b ended has.
func budgetKind(b string) string {
	switch b {
	case BudgetFuel, BudgetCompute, BudgetWall:
		return KindTimeout
	case BudgetOutput:
		return KindOutputLimit
	case BudgetProgram:
		return KindException
	}
	return KindWorkerExit
}

// tripBudget is the budget of a Meter's trip.
func tripBudget(t budget.Trip) string {
	switch t {
	case budget.TripFuel:
		return BudgetFuel
	case budget.TripCompute:
		return BudgetCompute
	}
	return BudgetWall
}

// Guest stack: room for about 6,300 frames of a simple recursive function
// (about 316 bytes each with QuickJS-NG 0.16; the contract asks for 5,000
// at the default MemoryBytes), so that QuickJS's own limit, a catchable
// RangeError, fires far below wazero's native call-stack ceiling (400 MB
// before its last doubling; 25 native bytes per guest byte at most, see
// budget.nativePerGuestByte). Below the default MemoryBytes the run's account,
// not this size, sets the depth (docs/performance.md, "Recursion depth").
const (
	stackBytes  = 2 << 20
	stackMargin = 64 << 10
)

// Options configure an Engine.
type Options struct {
	Limits budget.Limits
	// CacheDir, when not empty, keeps wazero's compiled code of the engine
	// on disk so that later processes start fast. Nothing is written to disk
	// without it; one that exists but cannot be written is only read; a
	// cache that cannot be used is not used.
	CacheDir string
	// Prewarm is how many never-used instances are kept instantiated ahead
	// of time, off the request path; 0 disables the pool.
	Prewarm int
	// MaxTraceBytes bounds the trace of a recorded run (RunOptions.Record);
	// 0 is DefaultMaxTraceBytes.
	MaxTraceBytes int64
	// private gives the Engine a compiled engine of its own, which its
	// Close closes, instead of the process's (engineFor): for tests that
	// measure memories no other Engine has used.
	private bool
}

// Engine runs programs. It is safe for concurrent use.
type Engine struct {
	ownsQE   bool // qe is the Engine's own (Options.private), not the process's
	limits   budget.Limits
	maxTrace int64 // Options.MaxTraceBytes
	qe       *quickjs.Engine
	programs *transpile.Cache
	snap     snapshotState
	web      webCache   // the web globals' bytecode (web.go)
	input    inputCache // the input installer's bytecode (input.go)
	zones    zoneCache  // the time zones runs asked for (timezone.go)
	// codeThrough is the cache directory the engine's compiled code came
	// through, "" when it was compiled in memory only (for tests).
	codeThrough string
	// compilePhase, when set (by tests), is called before each phase of a compilation.
	compilePhase func(transpile.Phase)

	mu      sync.Mutex
	closed  bool
	closing chan struct{}
	active  sync.WaitGroup
	// compiling tracks the goroutines of compilations, which outlive a run that stops waiting
	// for them (see run.compile) until their step in flight ends.
	compiling sync.WaitGroup

	// ready holds prewarmed instances, each used by exactly one run; filler
	// tracks the goroutine that refills it; running counts runs in flight
	// (the filler waits for none, so that it never competes with a run).
	ready   chan *quickjs.Instance
	filler  sync.WaitGroup
	running atomic.Int64
	// fillPolls counts the filler's wake-ups (for tests: an idle engine's
	// cost).
	fillPolls atomic.Int64

	hooks testHooks // for this package's tests only

	// interruptCounter is the offset in JSContext of QuickJS's interrupt
	// counter, 0 if unknown (see findInterruptCounter).
	interruptCounter uint32

	// giveBack returns to the OS the host memory deep runs took.
	giveBack *giveBack
}

// New validates the limits and compiles the engine. An invalid limit, or
// Prewarm, is reported as a *budget.FieldError.
func New(ctx context.Context, opts Options) (*Engine, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, err
	}
	if opts.Prewarm < 0 {
		return nil, &budget.FieldError{Field: "Prewarm", Value: opts.Prewarm, Reason: "must not be negative"}
	}
	if opts.MaxTraceBytes == 0 {
		opts.MaxTraceBytes = DefaultMaxTraceBytes
	}
	if opts.MaxTraceBytes < MinTraceBytes {
		return nil, &budget.FieldError{Field: "MaxTraceBytes", Value: opts.MaxTraceBytes, Reason: "must be at least 1 KiB (1024)"}
	}
	sh, err := engineFor(ctx, opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		ownsQE:           opts.private,
		limits:           opts.Limits,
		qe:               sh.qe,
		programs:         transpile.NewCache(compileCacheEntries, compileCacheBytes),
		snap:             sh.snap,
		closing:          make(chan struct{}),
		interruptCounter: sh.interruptCounter,
		maxTrace:         opts.MaxTraceBytes,
		codeThrough:      sh.through,
	}
	e.giveBack = newGiveBack(e.closing)
	if opts.Prewarm > 0 {
		e.ready = make(chan *quickjs.Instance, opts.Prewarm)
		e.filler.Add(1)
		go e.fill()
	}
	return e, nil
}

// idleHost serves a prewarmed instance until a run takes it; nothing calls
// into the instance before then.
type idleHost struct{ templateHost }

// fill keeps the pool of prewarmed instances full until the engine closes.
// It instantiates only while no run is in flight: on a small machine a
// refill running beside a run slows that run down more than the prewarmed
// instance saved it. It polls rather than blocking on a full channel, so a
// run that takes an instance never wakes it on the request path; and it
// grows each instance's native stack (quickjs.Instance.Warm) in advance.
// The poll backs off while there is nothing it may do (the pool is full,
// or a run is in flight), fillPollMin doubling up to fillPollMax, so an
// idle engine, or one whose runs wait for slow bindings, wakes it a few
// dozen times a second, not a thousand; each refill brings it back to
// fillPollMin.
func (e *Engine) fill() {
	defer e.filler.Done()
	poll := time.NewTimer(fillPollMin)
	defer poll.Stop()
	interval := fillPollMin
	for {
		for e.running.Load() > 0 || len(e.ready) == cap(e.ready) {
			poll.Reset(interval)
			select {
			case <-poll.C:
				e.fillPolls.Add(1)
			case <-e.closing:
				return
			}
			interval = min(2*interval, fillPollMax)
		}
		interval = fillPollMin
		select {
		case <-e.closing:
			return
		default:
		}
		in, err := e.qe.InstantiateCapped(context.Background(), idleHost{}, uint64(e.limits.MemoryBytes))
		if err != nil {
			return // the engine is closing or broken; runs instantiate their own
		}
		// Deep: the instance may serve a run with bindings (see instance).
		if err := in.Warm(true); err != nil {
			_ = in.Close(context.Background())
			return
		}
		e.ready <- in // never blocks: this goroutine is the only sender, and there is room
	}
}

// The prewarm pool's poll (see fill): every fillPollMin after a refill,
// backing off to fillPollMax while there is nothing to do. fillPollMax is
// then the longest the pool waits to start refilling after a run ends (a
// run in that time takes the pool's next instance, if it has one).
const (
	fillPollMin = time.Millisecond
	fillPollMax = 32 * time.Millisecond
)

// instance returns a prewarmed instance if one is ready, else a new one,
// whose native stack is warmed deep when the run has bindings: their setup
// at the start of the run nests more calls than the shallow size holds.
func (e *Engine) instance(h quickjs.Host, deep bool) (*quickjs.Instance, error) {
	select {
	case in := <-e.ready:
		in.SetHost(h)
		return in, nil
	default:
		// Warmed like a prewarmed instance: see quickjs.Instance.Warm for
		// why every instance must be.
		in, err := e.qe.InstantiateCapped(context.Background(), h, uint64(e.limits.MemoryBytes))
		if err != nil {
			return nil, err
		}
		if err := in.Warm(deep); err != nil {
			_ = in.Close(context.Background())
			return nil, err
		}
		return in, nil
	}
}

// Binding is one namespace of host functions.
type Binding struct {
	Global         string
	Functions      map[string]Func
	ErrorClass     string
	MemberProperty string
	// SharesErrorClass: ErrorClass is an earlier binding's class, injected
	// once (see hostcalls.Decl).
	SharesErrorClass bool
	// Secret: a recorded run's trace holds none of the namespace's results
	// (see RunOptions.Record), and its replay stops at its first call.
	Secret bool
}

// Func is a host function; see coderun.Func, whose values are Funcs
// without conversion.
type Func = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// Outcome is what a run produced.
type Outcome struct {
	Value []byte // compact JSON, nil when absent
	Logs  []string
	Kind  string // "" on success
	// Budget is the limit or fault that ended the run (BudgetFuel, …), ""
	// when the program itself or the caller ended it.
	Budget  string
	Message string
	// FuelUsed is the fuel the run spent (see budget.fuelUnit).
	FuelUsed uint64
	// Busy is the guest's compute time and Wall the run's wall time.
	Busy, Wall time.Duration
	// PeakMemory is the most memory the run held at once, guest and host
	// (see budget.Memory).
	PeakMemory int64
	// Calls is the number of binding calls the program made.
	Calls int
	// LogBytes is what the logs cost in the output ledger.
	LogBytes int64
	// Trace is a recorded run's trace (RunOptions.Record), nil when
	// TraceErr, which wraps ErrTraceTooBig, says why there is none.
	Trace    *Trace
	TraceErr error
}

// RunOptions are a run's optional callbacks and data.
type RunOptions struct {
	// OnLog, when set, is called with the text of each log entry the run
	// keeps, as Outcome.Logs will have it, synchronously on the goroutine
	// that runs the program, before the program continues (see
	// coderun.Request.OnLog). A panic in it ends the run as a worker exit.
	OnLog func(entry string)
	// Input, when not empty, is the run's input: lossless JSON of at most
	// MaxInputBytes, which the program reads as the frozen global `input`
	// (see coderun.Request.Input). RunWith checks it before anything runs.
	Input []byte
	// Record makes RunWith record the run: Outcome.Trace is its trace, or
	// Outcome.TraceErr says why there is none (record.go).
	Record bool
}

// run runs one program in a fresh instance. It returns an error only for
// misuse: a closed engine, an invalid binding declaration or an invalid
// input.
func (e *Engine) run(ctx context.Context, program string, bindings []Binding) (Outcome, error) {
	return e.RunWith(ctx, program, bindings, RunOptions{})
}

// RunWith is Run with per-run options.
func (e *Engine) RunWith(ctx context.Context, program string, bindings []Binding, opts RunOptions) (Outcome, error) {
	decls := make([]hostcalls.Decl, len(bindings))
	for i, b := range bindings {
		d := hostcalls.Decl{Global: b.Global, ErrorClass: b.ErrorClass, MemberProperty: b.MemberProperty, SharesErrorClass: b.SharesErrorClass}
		for name := range b.Functions {
			d.Members = append(d.Members, name)
		}
		decls[i] = d
	}
	if err := hostcalls.Validate(decls); err != nil {
		return Outcome{}, err
	}
	if err := checkInput(opts.Input, e.limits.MaxInputBytes); err != nil {
		return Outcome{}, err
	}
	if err := e.enter(); err != nil {
		return Outcome{}, err
	}
	defer e.leave()
	if !opts.Record {
		return e.runWith(ctx, program, bindings, opts, nil), nil
	}
	rec := newRecorder(e, program, opts.Input, bindings, e.maxTrace)
	o := e.runWith(ctx, program, bindings, opts, rec)
	o.Trace, o.TraceErr = rec.finish(o), rec.err()
	if o.TraceErr != nil {
		o.Trace = nil
	}
	return o, nil
}

// runWith runs the program, recording it into rec unless rec is nil.
func (e *Engine) runWith(ctx context.Context, program string, bindings []Binding, opts RunOptions, rec *recorder) Outcome {
	if ctx.Err() != nil {
		if rec != nil {
			rec.stop(StopAtStart, KindAbort, "", context.Cause(ctx).Error(), 0, 0, 0)
		}
		return Outcome{Logs: []string{}, Kind: KindAbort, Message: context.Cause(ctx).Error()}
	}
	r := newRun(ctx, e, program, bindings)
	r.onLog = opts.OnLog
	if len(opts.Input) > 0 {
		r.input = opts.Input
	}
	if rec != nil {
		r.rec = rec
		r.initCalls()
	}
	if len(bindings) == 0 {
		return r.execute()
	}
	return r.executeDetached()
}

// enter admits a run, or returns ErrClosed; leave ends it.
func (e *Engine) enter() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	e.active.Add(1)
	e.running.Add(1)
	return nil
}

// leave ends a run that enter admitted.
func (e *Engine) leave() {
	e.running.Add(-1)
	e.active.Done()
}

// Close ends every run in flight as an abort ("runtime disposed"), waits
// until all of them have returned and the compilations they started have
// stopped (a compilation stops after its step in flight: see run.compile),
// then releases the engine. Later Runs return ErrClosed. Close is
// idempotent.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	first := !e.closed
	if first {
		e.closed = true
		close(e.closing)
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		e.active.Wait()
		// Runs start compilations (compiling.Add) only while active, so none starts now.
		e.compiling.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("coderun: close: %w", context.Cause(ctx))
	}
	if first {
		e.giveBack.wait()
		e.filler.Wait()
		if e.ready != nil {
			for len(e.ready) > 0 {
				_ = (<-e.ready).Close(ctx)
			}
		}
		if e.ownsQE {
			return e.qe.Close(ctx)
		}
		// The compiled engine is the process's (engineFor): the next New uses it.
	}
	return nil
}
