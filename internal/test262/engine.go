package test262

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime"
	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
)

// The instance setup coderun's snapshot has (runtime/engine.go and
// runtime/snapshot.go): the same guest stack, interrupt handler and cycle
// collector setting, and the same fuel pass.
const (
	stackBytes  = 2 << 20
	stackMargin = 64 << 10
	memoryPages = 4096 // 256 MiB, coderun's default MemoryBytes
)

// engineFuel bounds one run of the engine alone, like coderun's DefaultFuel.
const engineFuel = 4_000_000_000

// fuelSlice is what every fuel yield of the engine alone hands out.
const fuelSlice = 1 << 24

// maxOutput bounds what a run of the engine alone may print.
const maxOutput = 1 << 20

// helperJS is evaluated before anything else in every instance of the
// engine alone (it defines no global): it names thrown values, and reports
// how the program's promise settled, with the intrinsics of a fresh
// context.
//
//go:embed helper.js
var helperJS string

// engine runs tests on the engine alone: the hardened QuickJS-NG module
// coderun uses, without coderun's prelude, transpiler or host.
type engine struct {
	qe *quickjs.Engine
}

// newEngine hardens and compiles the module; cacheDir, when set, keeps
// wazero's compiled code between processes.
func newEngine(ctx context.Context, cacheDir string) (*engine, error) {
	hardened, err := wasm.Harden(upstream.Module(), wasm.FuelConfig{InterruptCost: budget.InterruptCost, BackEdges: true})
	if err != nil {
		return nil, err
	}
	opts := quickjs.Options{Wasm: hardened, MemoryLimitPages: memoryPages}
	if cacheDir != "" {
		if opts.Cache, err = wazero.NewCompilationCacheWithDir(cacheDir); err != nil {
			return nil, fmt.Errorf("test262: compilation cache: %w", err)
		}
	}
	qe, err := quickjs.NewEngine(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &engine{qe: qe}, nil
}

// Close releases the engine.
func (e *engine) Close(ctx context.Context) error { return e.qe.Close(ctx) }

// status is how a run ended.
type status int

// The statuses of a run.
const (
	// completed: the script ran, or the program's promise resolved.
	completed status = iota
	// threw: the script or the program threw (or did not compile).
	threw
	// pending: the program's promise never settled.
	pending
	// fault: the instance failed (a trap, the fuel or memory ran out), or
	// coderun ended the run other than by an exception.
	fault
)

func (s status) String() string {
	return [...]string{"completed", "threw", "pending", "fault"}[s]
}

// outcome is what one run of a test did.
type outcome struct {
	Status status
	// Name is the thrown value's constructor name (Threw).
	Name string
	// Detail is the thrown value's message, the fault, or the value.
	Detail string
	// Output is what the run printed (async tests print their completion).
	Output string
}

// runScript evaluates src as one global script (strict when it starts with
// a "use strict" directive), then runs every pending job.
//
// The script's completion value is made undefined: the module's eval
// export awaits a promise completion value, and a test whose last
// statement makes a promise that never settles would wait forever.
func (e *engine) runScript(ctx context.Context, src string) outcome {
	return e.run(ctx, true, func(r *engineRun) outcome {
		o := r.script(src)
		o.Output = r.host.out.String()
		return o
	})
}

func (r *engineRun) script(src string) outcome {
	v, err := r.in.Eval(src+"\n;void 0;\n", "test.js", quickjs.EvalGlobal)
	if err != nil {
		return r.fault(err)
	}
	if v.IsException() {
		return r.thrown()
	}
	return r.drain(outcome{Status: completed})
}

// runBody evaluates body as coderun evaluates a program: the function
// expression it is wrapped in is evaluated as a script, called, and its
// promise watched while every pending job runs.
func (e *engine) runBody(ctx context.Context, body string) outcome {
	return e.run(ctx, false, func(r *engineRun) outcome {
		o := r.body(body)
		out := r.host.out.String()
		// The helper printed how the promise settled, after what the
		// program printed.
		i := strings.LastIndex(out, settledMark)
		if o.Status != pending || i < 0 {
			o.Output = out
			return o
		}
		verdict, rest, _ := strings.Cut(strings.TrimSuffix(out[i+len(settledMark):], "\n"), " ")
		if verdict == "ok" {
			return outcome{Status: completed, Detail: rest, Output: out[:i]}
		}
		name, msg, _ := strings.Cut(rest, "\x01")
		return outcome{Status: threw, Name: name, Detail: msg, Output: out[:i]}
	})
}

func (r *engineRun) body(body string) outcome {
	fn, err := r.in.Eval(wrapBody(body), "program.ts", quickjs.EvalGlobal)
	if err != nil {
		return r.fault(err)
	}
	if fn.IsException() {
		return r.thrown()
	}
	p, err := r.in.Call(fn, quickjs.Undefined)
	if err != nil {
		return r.fault(err)
	}
	if p.IsException() {
		return r.thrown()
	}
	if v, err := r.in.Call(r.helper, quickjs.Undefined, quickjs.Int(1), p); err != nil {
		return r.fault(err)
	} else if v.IsException() {
		return r.thrown()
	}
	return r.drain(outcome{Status: pending})
}

// settledMark starts the line helper.js prints when the program settled.
const settledMark = "\x02test262:settled "

// wrapBody places body where coderun places a program (runtime/internal/transpile).
func wrapBody(body string) string {
	return "0, async function __dsh_main__() { \"use strict\";\n" + body + "\n}"
}

// engineRun is one instance of the engine alone.
type engineRun struct {
	in     *quickjs.Instance
	host   *engineHost
	helper quickjs.Value
}

func (e *engine) run(ctx context.Context, globalPrint bool, f func(*engineRun) outcome) outcome {
	h := &engineHost{}
	in, err := e.qe.Instantiate(ctx, h)
	if err != nil {
		return outcome{Status: fault, Detail: err.Error()}
	}
	defer in.Close(context.Background())
	r := &engineRun{in: in, host: h}
	if err := r.init(globalPrint); err != nil {
		return outcome{Status: fault, Detail: "setting up the instance: " + err.Error()}
	}
	return f(r)
}

// importError is what coderun's snapshot answers every import() with.
const importError = "modules are not available"

func (r *engineRun) init(globalPrint bool) error {
	if err := r.in.Warm(false); err != nil {
		return err
	}
	if err := r.in.Init(quickjs.InitOptions{
		StackBytes: stackBytes, StackMargin: stackMargin,
		GCThreshold: runtime.CycleGC,
	}); err != nil {
		return err
	}
	p, err := r.in.CString(importError)
	if err != nil {
		return err
	}
	if !r.in.SetGlobalValue(wasm.ImportErrorExport, uint64(p)) {
		return errors.New("no import error global")
	}
	factory, err := r.in.Eval(helperJS, "test262:helper", quickjs.EvalGlobal)
	if err != nil {
		return err
	}
	if factory.IsException() {
		return fmt.Errorf("the helper threw: %s", r.exceptionText())
	}
	wrapper, err := r.in.NewFunctionProxy(0)
	if err != nil {
		return err
	}
	v, err := r.in.Call(factory, quickjs.Undefined, wrapper, quickjs.Bool(globalPrint))
	if err != nil {
		return err
	}
	if v.IsException() {
		return fmt.Errorf("the helper threw: %s", r.exceptionText())
	}
	r.helper = v
	return nil
}

// exceptionText takes the pending exception and returns its text.
func (r *engineRun) exceptionText() string {
	exc, err := r.in.TakeException()
	if err != nil {
		return err.Error()
	}
	s, err := r.in.String(exc)
	if err != nil {
		return err.Error()
	}
	return s
}

// thrown takes the pending exception and names it.
func (r *engineRun) thrown() outcome {
	exc, err := r.in.TakeException()
	if err != nil {
		return r.fault(err)
	}
	v, err := r.in.Call(r.helper, quickjs.Undefined, quickjs.Int(0), exc)
	if err != nil {
		return r.fault(err)
	}
	if v.IsException() {
		return outcome{Status: threw, Name: "?", Detail: "naming the thrown value threw"}
	}
	s, err := r.in.String(v)
	if err != nil {
		return r.fault(err)
	}
	name, msg, _ := strings.Cut(s, "\x01")
	return outcome{Status: threw, Name: name, Detail: msg}
}

// drain runs every pending job; o is the outcome when none throws.
func (r *engineRun) drain(o outcome) outcome {
	exc, err := r.in.RunJobs()
	if err != nil {
		return r.fault(err)
	}
	if exc {
		return r.thrown()
	}
	return o
}

func (r *engineRun) fault(err error) outcome {
	s := err.Error()
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if r.in != nil && errors.Is(err, errFuel) {
		s = "fuel exhausted"
	}
	return outcome{Status: fault, Detail: s}
}

// errFuel ends a run of the engine alone that spent engineFuel.
var errFuel = errors.New("test262: fuel exhausted")

// engineHost serves an instance of the engine alone: it keeps what the
// guest prints (print writes to fd 1), and bounds its fuel.
type engineHost struct {
	out   strings.Builder
	spent int64
}

// Call prints its one argument, a string, and a line break (the helper's
// print is the only caller).
func (h *engineHost) Call(in *quickjs.Instance, args []quickjs.Value) quickjs.Value {
	if len(args) == 1 && args[0].IsString() {
		if s, err := in.String(args[0]); err == nil {
			h.Write(1, []byte(s+"\n"))
		}
	}
	return quickjs.Undefined
}

func (h *engineHost) Write(_ uint32, p []byte) {
	if h.out.Len()+len(p) <= maxOutput {
		h.out.Write(p)
	}
}

func (h *engineHost) Sleep(time.Duration) {}

func (h *engineHost) Exit(uint32) {}

func (h *engineHost) FuelYield(_ *quickjs.Instance, left int64) int64 {
	h.spent += fuelSlice - left
	if h.spent > engineFuel {
		panic(errFuel)
	}
	return fuelSlice
}
