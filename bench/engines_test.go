package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	req := coderun.Request{Program: w.body}
	if w.async {
		req.Bindings = []coderun.Namespace{{Global: "tools", Functions: map[string]coderun.Func{"echo": echo}}}
	}
	ctx := context.Background()
	return engine{name: "coderun", sample: func() (time.Duration, error) {
		start := time.Now()
		res, err := rt.Run(ctx, req)
		d := time.Since(start)
		switch {
		case err != nil:
			return 0, err
		case res.Error != nil:
			return 0, res.Error
		case string(res.Value) != w.want:
			return 0, fmt.Errorf("completion value %s, want %s", res.Value, w.want)
		}
		return d, nil
	}}
}

// gojaEngine runs w in goja: goja.New, RunString, and for an async workload
// the event loop until the script's promise settles.
func gojaEngine(w workload) engine {
	script := w.script()
	return engine{name: "goja", sample: timedSample(w.want, func() (string, error) { return runGoja(script, w.async) })}
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

// runGoja evaluates script in a fresh goja runtime and returns its
// completion value as JSON. With async, the runtime has a global echo
// function and a promise completion value is awaited.
func runGoja(script string, async bool) (string, error) {
	vm := goja.New()
	loop := newGojaLoop(vm)
	defer loop.close()
	if async {
		if err := vm.Set("echo", loop.asyncFunc(echo)); err != nil {
			return "", err
		}
	}
	v, err := vm.RunString(script)
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

// gojaLoop is a minimal event loop for one goja runtime, which has none of
// its own. The runtime is used only on the goroutine that calls await;
// host functions run on goroutines of their own and hand their results
// back through settled, so that promises are resolved on the loop's
// goroutine.
type gojaLoop struct {
	vm        *goja.Runtime
	stringify goja.Callable
	parse     goja.Callable
	settled   chan func() error
	inflight  int
	done      chan struct{}
}

func newGojaLoop(vm *goja.Runtime) *gojaLoop {
	l := &gojaLoop{vm: vm, settled: make(chan func() error), done: make(chan struct{})}
	j := vm.Get("JSON").ToObject(vm)
	l.stringify, _ = goja.AssertFunction(j.Get("stringify"))
	l.parse, _ = goja.AssertFunction(j.Get("parse"))
	return l
}

// asyncFunc makes fn a JavaScript async function of one argument, which
// crosses to fn as JSON text; fn's result is parsed back as the resolution.
func (l *gojaLoop) asyncFunc(fn func(context.Context, json.RawMessage) (json.RawMessage, error)) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		p, resolve, reject := l.vm.NewPromise()
		arg, err := l.stringify(goja.Undefined(), call.Argument(0))
		if err != nil {
			_ = reject(err)
			return l.vm.ToValue(p)
		}
		args := json.RawMessage(arg.String())
		l.inflight++
		go func() {
			out, err := fn(context.Background(), args)
			settle := func() error {
				if err != nil {
					return reject(l.vm.NewGoError(err))
				}
				v, err := l.parse(goja.Undefined(), l.vm.ToValue(string(out)))
				if err != nil {
					return reject(err)
				}
				return resolve(v)
			}
			select {
			case l.settled <- settle:
			case <-l.done:
			}
		}()
		return l.vm.ToValue(p)
	}
}

// await runs settlements until p settles. Resolving a promise from Go runs
// the reactions it unblocks before returning.
func (l *gojaLoop) await(p *goja.Promise) (goja.Value, error) {
	for p.State() == goja.PromiseStatePending {
		if l.inflight == 0 {
			return nil, errors.New("the promise can never settle: no host call is pending")
		}
		settle := <-l.settled
		l.inflight--
		if err := settle(); err != nil {
			return nil, err
		}
	}
	if p.State() == goja.PromiseStateRejected {
		return nil, fmt.Errorf("promise rejected: %v", p.Result())
	}
	return p.Result(), nil
}

// close releases host goroutines whose results will never be delivered.
func (l *gojaLoop) close() { close(l.done) }

// moderncEngine runs w in modernc.org/quickjs: NewVM, Eval, Close. It has
// no async workload.
func moderncEngine(w workload) engine {
	script := w.script()
	return engine{name: "modernc", sample: timedSample(w.want, func() (string, error) { return runModernc(script) })}
}

func runModernc(script string) (string, error) {
	vm, err := quickjs.NewVM()
	if err != nil {
		return "", err
	}
	v, err := vm.Eval(script, quickjs.EvalGlobal)
	if err != nil {
		_ = vm.Close()
		return "", err
	}
	out, err := json.Marshal(v)
	if cerr := vm.Close(); err == nil {
		err = cerr
	}
	return string(out), err
}
