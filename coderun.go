// Package coderun runs model-written TypeScript and JavaScript programs safely.
//
// A program is the body of an async function. It runs in QuickJS-NG compiled to
// WebAssembly, hosted by wazero, in a fresh wasm instance for every run. It may
// call host functions that the caller declares as namespaces of async
// functions, and reports what it returned (as lossless JSON), what it printed,
// and, as data rather than as a Go error, how it failed.
//
//	rt, err := coderun.New(coderun.DefaultConfig())
//	res, err := rt.Run(ctx, coderun.Request{Program: `return [1, 2, 3].map(x => x * 2)`})
//	// res.Value == `[2,4,6]`
package coderun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/runtime"
)

// Request is one program to run, with the host functions it may call.
type Request struct {
	// Program is TypeScript (a superset of JavaScript): the body of an async
	// function in strict mode, so top-level await and return work.
	Program string
	// Bindings are the namespaces of host functions visible to the program.
	Bindings []Namespace
	// Input, when not empty, is data for the program: lossless JSON (the
	// rules of a binding's result, see Func) of at most
	// Config.MaxInputBytes, which the program reads as the global `input`,
	// deeply frozen. Without it `input` is undefined. It is not part of the
	// program's text, so it counts against neither MaxProgramBytes nor the
	// compiled-program cache: one program run with many inputs compiles
	// once. It is parsed in the run's instance, so its text and its value
	// count against MemoryBytes, and parsing and freezing it spend fuel. An
	// input that is too big or not lossless JSON is misuse: Run returns an
	// error wrapping ErrInvalidInput and runs nothing.
	Input json.RawMessage
	// OnLog, when set, is called with each log entry the run keeps, in
	// order and as Result.Logs will have it (an entry trimmed by
	// MaxOutputBytes is passed trimmed; one dropped is not passed), while
	// the run goes on: to report progress, or to stream logs. It is called
	// synchronously on the goroutine that runs the program, which is not
	// necessarily the caller's, and the program waits for it: it must be
	// fast (hand the entry to a channel or a buffered writer rather than
	// block), must not call Close on the Runtime (Close waits for this
	// run), and must not call runtime.Goexit. A panic in it is recovered
	// and ends the run as worker-exit with a message that blames the host.
	OnLog func(entry string)
}

// Namespace is one program-visible object whose members are async functions.
//
// Several namespaces may share one error class by pointing at the same
// *ErrorClass: it is injected once and all of them reject with it. Two
// distinct ErrorClass values with the same Name are a duplicate declaration.
type Namespace struct {
	// Global is the identifier the program uses, e.g. "tools".
	Global string
	// Functions maps member names (arbitrary strings) to host functions.
	Functions map[string]Func
	// Docs optionally documents members, by the same names, for
	// Declarations (see Describe); it plays no part in running.
	Docs map[string]Doc
	// ErrorClass, when set, makes rejected calls instances of an injected
	// error class instead of plain Errors.
	ErrorClass *ErrorClass
	// Secret marks the namespace's results secret: the trace of a recorded
	// run (Runtime.Record) holds that each call was made, with its
	// argument's digest, but neither its value nor its error message, and a
	// replay of it stops at its first call with a message that says so.
	Secret bool
}

// ErrorClass describes the error class injected for a namespace's rejections.
type ErrorClass struct {
	// Name is the constructor's name and the errors' name property.
	Name string
	// MemberNameProperty is the own property set to the rejected member's
	// name, e.g. "toolName".
	MemberNameProperty string
}

// Func is a host function. It receives the program's single argument as
// lossless JSON and returns the resolution as lossless JSON. A non-nil error
// rejects the call in the program with err.Error() as the message. It receives
// the ctx passed to Run and may outlive the run: late results are dropped.
// Calls overlap (each on a goroutine of its own) when the program has more
// than one in flight, so a Func must be safe for concurrent use; a call that
// is all the program waits for runs on the run's own goroutine instead.
type Func func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// Result is everything a run produced.
type Result struct {
	// Value is the program's completion value as compact JSON: nil when the
	// program returned nothing (or failed), "null" when it returned null.
	Value json.RawMessage `json:"value,omitempty"`
	// Logs holds one entry per console call or guest write; never nil.
	Logs []string `json:"logs"`
	// Error says how the run failed, or is nil.
	Error *Failure `json:"error,omitempty"`
	// Usage is what the run cost; it is zero only for a run that never
	// started (its ctx was already done).
	Usage Usage `json:"usage,omitzero"`
}

// Err returns r.Error as an error, or a nil error when the run succeeded.
// Use it rather than assigning r.Error to an error variable: a nil *Failure
// stored in an error is not a nil error (see the Go FAQ,
// https://go.dev/doc/faq#nil_error).
func (r Result) Err() error {
	if r.Error == nil {
		return nil
	}
	return r.Error
}

// Usage is what one run cost, guest and host, measured against the
// budgets of Config; hosts bill and rate-limit on it.
type Usage struct {
	// Fuel is the fuel the program spent (see Config.Fuel), the fuel
	// compiling it spent included, on every run of it. It depends only on
	// the program and the binding results it saw.
	Fuel uint64
	// ComputeTime is the guest's busy time (see Config.ComputeTime).
	ComputeTime time.Duration
	// WallTime is the run's wall time, from the start of Run to its outcome.
	WallTime time.Duration
	// PeakMemoryBytes is the most memory the run held at once: the guest's
	// linear memory plus the host's share that MemoryBytes bounds (logs,
	// copies of values and arguments, and compiling the program).
	PeakMemoryBytes int64
	// Calls is the number of binding calls the program made.
	Calls int
	// LogBytes is what the logs cost against MaxOutputBytes.
	LogBytes int64
}

// usageJSON is Usage's JSON form: times in milliseconds.
type usageJSON struct {
	Fuel            uint64  `json:"fuel"`
	ComputeTimeMs   float64 `json:"computeTimeMs"`
	WallTimeMs      float64 `json:"wallTimeMs"`
	PeakMemoryBytes int64   `json:"peakMemoryBytes"`
	Calls           int     `json:"calls"`
	LogBytes        int64   `json:"logBytes"`
}

// MarshalJSON writes the usage as an object whose times are in
// milliseconds (computeTimeMs, wallTimeMs).
func (u Usage) MarshalJSON() ([]byte, error) {
	return json.Marshal(usageJSON{
		Fuel: u.Fuel, ComputeTimeMs: ms(u.ComputeTime), WallTimeMs: ms(u.WallTime),
		PeakMemoryBytes: u.PeakMemoryBytes, Calls: u.Calls, LogBytes: u.LogBytes,
	})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (u *Usage) UnmarshalJSON(b []byte) error {
	var j usageJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*u = Usage{
		Fuel: j.Fuel, ComputeTime: fromMs(j.ComputeTimeMs), WallTime: fromMs(j.WallTimeMs),
		PeakMemoryBytes: j.PeakMemoryBytes, Calls: j.Calls, LogBytes: j.LogBytes,
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fromMs(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// Failure is how a run failed.
type Failure struct {
	// Kind classifies the failure.
	Kind Kind `json:"kind"`
	// Budget names the limit that ended the run, or the fault (of the
	// engine, of the host) that did: code can switch on it rather than on
	// Message. It is empty when the program itself (an exception, an
	// invalid value) or the caller (an abort) ended the run.
	Budget Budget `json:"budget,omitempty"`
	// Message says what failed, for a person or a model to act on.
	Message string `json:"message"`
}

// Error implements error, so that a Failure can be returned or wrapped by
// callers that want one.
func (f *Failure) Error() string { return string(f.Kind) + ": " + f.Message }

// Kind classifies a failure. Kinds are orthogonal: the first settling event
// of a run decides its kind.
type Kind string

// The failure kinds.
const (
	// Exception: the program threw, or its source did not compile.
	Exception Kind = runtime.KindException
	// Timeout: a budget ran out (fuel, compute time or wall time);
	// Failure.Budget and the message name which.
	Timeout Kind = runtime.KindTimeout
	// Abort: the caller's ctx was cancelled, or the Runtime was closed.
	Abort Kind = runtime.KindAbort
	// WorkerExit: the instance died (memory cap, an engine fault, a host
	// fault); Failure.Budget says which.
	WorkerExit Kind = runtime.KindWorkerExit
	// InvalidOutput: the completion value is not lossless JSON.
	InvalidOutput Kind = runtime.KindInvalidOutput
	// OutputLimit: logs plus value (or message) exceeded MaxOutputBytes.
	OutputLimit Kind = runtime.KindOutputLimit
)

// Budget names what ended a run that a limit, or a fault outside the
// program, ended (Failure.Budget). Each goes with one Kind.
type Budget string

// The budgets and faults that end runs.
const (
	// BudgetFuel: Config.Fuel was spent (Timeout).
	BudgetFuel Budget = runtime.BudgetFuel
	// BudgetCompute: Config.ComputeTime was spent, the guest busy (Timeout).
	BudgetCompute Budget = runtime.BudgetCompute
	// BudgetWall: Config.WallTime was reached (Timeout).
	BudgetWall Budget = runtime.BudgetWall
	// BudgetMemory: Config.MemoryBytes was reached, by the guest or by
	// what the host holds for the run (WorkerExit).
	BudgetMemory Budget = runtime.BudgetMemory
	// BudgetStack: the guest's native stack, of a fixed size, is full
	// (WorkerExit); a deep recursion normally fails first as a
	// RangeError the program can catch.
	BudgetStack Budget = runtime.BudgetStack
	// BudgetOutput: the logs plus the value or the message exceeded
	// Config.MaxOutputBytes (OutputLimit).
	BudgetOutput Budget = runtime.BudgetOutput
	// BudgetProgram: the program's source is over Config.MaxProgramBytes
	// (Exception).
	BudgetProgram Budget = runtime.BudgetProgram
	// BudgetEngine: the JavaScript engine faulted, a bug of coderun's, not
	// of the program (WorkerExit).
	BudgetEngine Budget = runtime.BudgetEngine
	// BudgetHost: a host function called runtime.Goexit, or the OnLog hook
	// panicked: a bug of the host, not of the program (WorkerExit).
	BudgetHost Budget = runtime.BudgetHost
)

// ErrClosed is returned by Run after Close.
var ErrClosed = runtime.ErrClosed

// ErrInvalidBinding is wrapped by every error about a binding declaration.
var ErrInvalidBinding = hostcalls.ErrInvalidBinding

// ErrInvalidInput is wrapped by Run's error for a Request.Input that is not
// lossless JSON or is over Config.MaxInputBytes; the error says which, and
// where in the text.
var ErrInvalidInput = runtime.ErrInvalidInput

// DefaultFuel is DefaultConfig's fuel: about 60 seconds of CPU-bound work
// on the reference machine (docs/performance.md gives the fuel rates of
// typical work). See Config.Fuel for what a unit is.
const DefaultFuel = budget.DefaultFuel

// DefaultConfig returns the default budgets: about 60 s of computation in
// fuel, 60 s of compute time, a 10 minute wall-clock ceiling, 256 MiB of
// memory, 64 MiB of output and 16 concurrent binding calls; no cache
// directory, so nothing is written to disk. The budgets' defaults are
// budget.Fields'.
func DefaultConfig() Config {
	var c Config
	budget.Defaults().CopyTo(&c)
	c.MaxTraceBytes = DefaultMaxTraceBytes
	return c
}

// DefaultMaxTraceBytes is DefaultConfig's MaxTraceBytes: 64 MiB.
const DefaultMaxTraceBytes = runtime.DefaultMaxTraceBytes

// configError words a field error of runtime.New (a budget's, or
// Prewarm's) as the Config field it names: "coderun: Config.WallTime must
// be positive, got -1s". Other errors are returned as they are.
func configError(err error) error {
	if fe, ok := errors.AsType[*budget.FieldError](err); ok {
		return fmt.Errorf("coderun: Config.%w", fe)
	}
	return err
}

// Runtime runs programs, each in a fresh wasm instance. It is safe for
// concurrent use by many goroutines.
type Runtime struct {
	engine *runtime.Engine
}

// New validates cfg, its zero fields taken as their defaults (see Config),
// and makes a Runtime. The engine is compiled once per
// process (per CacheDir, and per whether Prewarm is set) and shared by every
// Runtime, whatever its budgets: the first New pays for compiling it, or for
// loading it from CacheDir, and later ones take microseconds, so a host may
// keep a Runtime per tenant tier. The error names the invalid field and its
// value.
func New(cfg Config) (*Runtime, error) {
	limits := budget.From(cfg).WithDefaults()
	e, err := runtime.New(context.Background(), runtime.Options{Limits: limits, CacheDir: cfg.CacheDir, Prewarm: cfg.Prewarm,
		MaxTraceBytes: cfg.MaxTraceBytes})
	if err != nil {
		return nil, configError(err)
	}
	return &Runtime{engine: e}, nil
}

// Language is the language programs are written in: "typescript".
func (r *Runtime) Language() string { return "typescript" }

// Isolation names the isolation boundary, as a diagnostic label: "wasm".
func (r *Runtime) Isolation() string { return "wasm" }

// Run runs one program in a fresh instance and reports what it returned,
// what it printed and how it failed. It returns a Go error only for misuse:
// ErrClosed after Close, an invalid binding declaration (wrapping
// ErrInvalidBinding) or an invalid Request.Input (wrapping
// ErrInvalidInput), both checked before anything runs.
func (r *Runtime) Run(ctx context.Context, req Request) (Result, error) {
	o, err := r.engine.RunWith(ctx, req.Program, runtimeBindings(req.Bindings), runtime.RunOptions{OnLog: req.OnLog, Input: req.Input})
	if err != nil {
		return Result{}, err
	}
	return result(o), nil
}

// runtimeBindings is the runtime's declaration of bindings.
func runtimeBindings(namespaces []Namespace) []runtime.Binding {
	bindings := make([]runtime.Binding, len(namespaces))
	classes := map[*ErrorClass]bool{}
	for i, ns := range namespaces {
		b := runtime.Binding{Global: ns.Global, Functions: make(map[string]runtime.Func, len(ns.Functions)), Secret: ns.Secret}
		for name, f := range ns.Functions {
			b.Functions[name] = f
		}
		if ns.ErrorClass != nil {
			b.ErrorClass, b.MemberProperty = ns.ErrorClass.Name, ns.ErrorClass.MemberNameProperty
			b.SharesErrorClass = classes[ns.ErrorClass]
			classes[ns.ErrorClass] = true
		}
		bindings[i] = b
	}
	return bindings
}

// result is the Result of a run's outcome.
func result(o runtime.Outcome) Result {
	res := Result{Logs: o.Logs, Usage: Usage{
		Fuel: o.FuelUsed, ComputeTime: o.Busy, WallTime: o.Wall,
		PeakMemoryBytes: o.PeakMemory, Calls: o.Calls, LogBytes: o.LogBytes,
	}}
	if res.Logs == nil {
		res.Logs = []string{}
	}
	if o.Kind != "" {
		res.Error = &Failure{Kind: Kind(o.Kind), Budget: Budget(o.Budget), Message: o.Message}
	} else if o.Value != nil {
		res.Value = json.RawMessage(o.Value)
	}
	return res
}

// Close ends every run in flight as an abort with the message "runtime
// disposed", returns once nothing is left running, and makes later Runs
// return ErrClosed. It is idempotent.
func (r *Runtime) Close(ctx context.Context) error { return r.engine.Close(ctx) }
