package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dop251/goja"
	"modernc.org/quickjs"

	"github.com/coderun/coderun"
)

// An engine runs a workload once in a fresh VM and reports how long that
// took: creating the VM, compiling and running the program, reading its
// completion value back and disposing of the VM. It fails if the value is
// not the workload's.
type engine struct {
	name   string
	sample func() (time.Duration, error)
}

// coderunEngine runs w with rt, one Run per sample. A program's
// compilation is cached by rt after its first run, which the harness's
// warm-up takes.
func coderunEngine(rt *coderun.Runtime, w workload) engine {
	return engine{name: "coderun", sample: timedSample(w.want, func() (string, error) { return runCoderun(rt, w) })}
}

// coderunNewEngine is coderunEngine with a program text coderun has not
// seen in every sample (w's body with a numbered comment appended), so that
// every run compiles it, as a run of an agent's new program does.
func coderunNewEngine(rt *coderun.Runtime, w workload) engine {
	n := 0
	return engine{name: "coderun", sample: timedSample(w.want, func() (string, error) {
		n++
		v := w
		v.body = w.body + "\n// sample " + strconv.Itoa(n)
		return runCoderun(rt, v)
	})}
}

// runCoderun runs w with rt and returns its value.
func runCoderun(rt *coderun.Runtime, w workload) (string, error) {
	req := coderun.Request{Program: w.body}
	if w.host != "" {
		req.Bindings = []coderun.Namespace{{Global: "tools", Functions: map[string]coderun.Func{w.host: w.fn}}}
	}
	res, err := rt.Run(context.Background(), req)
	switch {
	case err != nil:
		return "", err
	case res.Error != nil:
		return "", res.Error
	}
	return string(res.Value), nil
}

// gojaEngine runs w in goja: goja.New, RunString, and for a workload with a
// host function the event loop until the script's promise settles.
func gojaEngine(w workload) engine {
	return engine{name: "goja", sample: timedSample(w.want, func() (string, error) { return runGoja(w) })}
}

// timedSample returns a sample function that times run and checks that its
// completion value is want.
func timedSample(want string, run func() (string, error)) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		start := time.Now()
		got, err := run()
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		if got != want {
			return 0, fmt.Errorf("completion value %s, want %s", got, want)
		}
		return d, nil
	}
}

// runGoja evaluates w's script in a fresh goja runtime and returns its
// completion value as JSON. With a host function, the runtime has it as a
// global function and a promise completion value is awaited.
func runGoja(w workload) (string, error) {
	vm := goja.New()
	loop := newGojaLoop(vm)
	defer loop.close()
	if w.host != "" {
		if err := vm.Set(w.host, loop.asyncFunc(w.fn)); err != nil {
			return "", err
		}
	}
	v, err := vm.RunString(w.script())
	if err != nil {
		return "", err
	}
	if p, ok := v.Export().(*goja.Promise); ok {
		if v, err = loop.await(p); err != nil {
			return "", err
		}
	}
	out, err := json.Marshal(v.Export())
	return string(out), err
}

// hostLoop is the part of a minimal event loop that the peers linked into
// this package share: host functions run on goroutines of their own and
// hand their results back through settled, so that the engine, which is
// not safe for concurrent use, is used only on the loop's goroutine.
type hostLoop struct {
	settled  chan func() error
	inflight int
	done     chan struct{}
}

func newHostLoop() hostLoop {
	return hostLoop{settled: make(chan func() error), done: make(chan struct{})}
}

// call runs fn on a goroutine of its own; settle, which gets fn's result,
// runs on the loop's goroutine, in run.
func (l *hostLoop) call(fn coderun.Func, args json.RawMessage, settle func(json.RawMessage, error) error) {
	l.inflight++
	go func() {
		out, err := fn(context.Background(), args)
		select {
		case l.settled <- func() error { return settle(out, err) }:
		case <-l.done:
		}
	}()
}

// run runs settlements while pending reports true.
func (l *hostLoop) run(pending func() bool) error {
	for pending() {
		if l.inflight == 0 {
			return errors.New("the promise can never settle: no host call is pending")
		}
		settle := <-l.settled
		l.inflight--
		if err := settle(); err != nil {
			return err
		}
	}
	return nil
}

// close releases host goroutines whose results will never be delivered.
func (l *hostLoop) close() { close(l.done) }

// gojaLoop is a minimal event loop for one goja runtime, which has none of
// its own.
type gojaLoop struct {
	hostLoop
	vm        *goja.Runtime
	stringify goja.Callable
	parse     goja.Callable
}

func newGojaLoop(vm *goja.Runtime) *gojaLoop {
	l := &gojaLoop{hostLoop: newHostLoop(), vm: vm}
	j := vm.Get("JSON").ToObject(vm)
	l.stringify, _ = goja.AssertFunction(j.Get("stringify"))
	l.parse, _ = goja.AssertFunction(j.Get("parse"))
	return l
}

// asyncFunc makes fn a JavaScript async function of one argument, which
// crosses to fn as JSON text; fn's result is parsed back as the resolution.
func (l *gojaLoop) asyncFunc(fn coderun.Func) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		p, resolve, reject := l.vm.NewPromise()
		arg, err := l.stringify(goja.Undefined(), call.Argument(0))
		if err != nil {
			_ = reject(err)
			return l.vm.ToValue(p)
		}
		l.call(fn, json.RawMessage(arg.String()), func(out json.RawMessage, err error) error {
			if err != nil {
				return reject(l.vm.NewGoError(err))
			}
			v, err := l.parse(goja.Undefined(), l.vm.ToValue(string(out)))
			if err != nil {
				return reject(err)
			}
			return resolve(v)
		})
		return l.vm.ToValue(p)
	}
}

// await runs settlements until p settles. Resolving a promise from Go runs
// the reactions it unblocks before returning.
func (l *gojaLoop) await(p *goja.Promise) (goja.Value, error) {
	if err := l.run(func() bool { return p.State() == goja.PromiseStatePending }); err != nil {
		return nil, err
	}
	if p.State() == goja.PromiseStateRejected {
		return nil, fmt.Errorf("promise rejected: %v", p.Result())
	}
	return p.Result(), nil
}

// moderncEngine runs w in modernc.org/quickjs: NewVM, Eval (EvalValue and
// the event loop until the promise settles, for a workload with a host
// function), Close.
func moderncEngine(w workload) engine {
	return engine{name: "modernc", sample: timedSample(w.want, func() (string, error) { return runModernc(w) })}
}

// runModernc evaluates w's script in a fresh modernc VM and returns its
// completion value as JSON.
func runModernc(w workload) (out string, err error) {
	vm, err := quickjs.NewVM()
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := vm.Close(); err == nil {
			err = cerr
		}
	}()
	if w.host == "" {
		v, err := vm.Eval(w.script(), quickjs.EvalGlobal)
		if err != nil {
			return "", err
		}
		out, err := json.Marshal(v)
		return string(out), err
	}
	loop, err := newModerncLoop(vm)
	if err != nil {
		return "", err
	}
	defer loop.close()
	if err := vm.RegisterFunc(w.host, loop.asyncFunc(w.fn), false); err != nil {
		return "", err
	}
	p, err := vm.EvalValue(w.script(), quickjs.EvalGlobal)
	if err != nil {
		return "", err
	}
	defer p.Free()
	return loop.await(p)
}

// moderncLoop is a minimal event loop for one modernc VM, which has none of
// its own: it drains the VM's job queue after every settlement.
type moderncLoop struct {
	hostLoop
	vm    *quickjs.VM
	parse quickjs.Value // JSON.parse
}

func newModerncLoop(vm *quickjs.VM) (*moderncLoop, error) {
	parse, err := vm.EvalValue("JSON.parse", quickjs.EvalGlobal)
	if err != nil {
		return nil, err
	}
	return &moderncLoop{hostLoop: newHostLoop(), vm: vm, parse: parse}, nil
}

// asyncFunc makes fn a JavaScript function of one argument that returns a
// promise; the argument crosses to fn as JSON text and fn's result is
// parsed back as the resolution. It panics if the VM cannot make a promise
// (out of memory), which modernc passes on to the Go code that called
// JavaScript.
func (l *moderncLoop) asyncFunc(fn coderun.Func) func(quickjs.Value) quickjs.Value {
	return func(arg quickjs.Value) quickjs.Value {
		pc, err := l.vm.NewPromiseCapability()
		if err != nil {
			panic(err)
		}
		settle := func(out json.RawMessage, err error) error {
			defer pc.Resolve.Free()
			defer pc.Reject.Free()
			if err == nil {
				var v quickjs.Value
				if v, err = l.parse.CallValue(quickjs.UndefinedValue, string(out)); err == nil {
					_, err = pc.Resolve.Call(quickjs.UndefinedValue, v)
					v.Free()
				}
			}
			if err != nil {
				if _, err := pc.Reject.Call(quickjs.UndefinedValue, err.Error()); err != nil {
					return err
				}
			}
			_, err = l.vm.ExecutePendingJobs()
			return err
		}
		call := fn
		args, err := arg.MarshalJSON()
		if err != nil { // rejected through the loop, like a failed call
			call = func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, err }
		}
		l.call(call, args, settle)
		return pc.Promise
	}
}

// await drains the job queue and runs settlements until p settles, and
// returns its value as JSON.
func (l *moderncLoop) await(p quickjs.Value) (string, error) {
	var out string
	var failure error
	settled := false
	then, err := p.Then(func(v quickjs.Value) {
		var b []byte
		b, failure = v.MarshalJSON()
		out, settled = string(b), true
	}, func(v quickjs.Value) {
		s, _ := v.Any()
		failure, settled = fmt.Errorf("promise rejected: %v", s), true
	})
	if err != nil {
		return "", err
	}
	then.Free()
	if _, err := l.vm.ExecutePendingJobs(); err != nil {
		return "", err
	}
	if err := l.run(func() bool { return !settled }); err != nil {
		return "", err
	}
	return out, failure
}

// close releases JSON.parse and the host goroutines whose results will
// never be delivered.
func (l *moderncLoop) close() {
	l.parse.Free()
	l.hostLoop.close()
}
