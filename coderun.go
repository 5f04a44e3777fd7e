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
	"time"
)

// Config holds the budgets every run gets. It is validated by New; there are
// no per-request knobs and no hidden defaults inside Run.
type Config struct {
	// Fuel is the deterministic compute budget, in fuel units. See budget.FuelUnit.
	Fuel uint64
	// ComputeTime is the guest's busy time; time spent waiting on bindings and
	// timers is not charged.
	ComputeTime time.Duration
	// WallTime is the wall-clock ceiling for the whole run.
	WallTime time.Duration
	// MemoryBytes caps the guest's linear memory. It must be between 4 MiB and
	// 4 GiB.
	MemoryBytes int64
	// MaxOutputBytes is the combined cap on the logs and the value (or the
	// failure message), counted as compact JSON in UTF-8. At least 4.
	MaxOutputBytes int64
	// MaxConcurrentCalls is the number of binding calls a run may have in
	// flight; later calls wait their turn in submission order.
	MaxConcurrentCalls int
}

// Request is one program to run, with the host functions it may call.
type Request struct {
	// Program is TypeScript (a superset of JavaScript): the body of an async
	// function in strict mode, so top-level await and return work.
	Program string
	// Bindings are the namespaces of host functions visible to the program.
	Bindings []Namespace
}

// Namespace is one program-visible object whose members are async functions.
type Namespace struct {
	// Global is the identifier the program uses, e.g. "tools".
	Global string
	// Functions maps member names (arbitrary strings) to host functions.
	Functions map[string]Func
	// ErrorClass, when set, makes rejected calls instances of an injected
	// error class instead of plain Errors.
	ErrorClass *ErrorClass
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
}

// Failure is how a run failed.
type Failure struct {
	Kind    Kind   `json:"kind"`
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
	Exception Kind = "exception"
	// Timeout: a budget ran out (fuel, compute time or wall time); the
	// message names which.
	Timeout Kind = "timeout"
	// Abort: the caller's ctx was cancelled, or the Runtime was closed.
	Abort Kind = "abort"
	// WorkerExit: the instance died (memory cap, trap, guest exit).
	WorkerExit Kind = "worker-exit"
	// InvalidOutput: the completion value is not lossless JSON.
	InvalidOutput Kind = "invalid-output"
	// OutputLimit: logs plus value (or message) exceeded MaxOutputBytes.
	OutputLimit Kind = "output-limit"
)

var (
	// ErrClosed is returned by Run after Close.
	ErrClosed = errors.New("coderun: runtime closed")
)
