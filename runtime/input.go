package runtime

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/serialize"
)

// A run's input (coderun.Request.Input) is the program's global `input`.
// The prelude defines it as undefined; in a run with an input the host
// parses the input's JSON in the run's instance and hands the value to the
// installer (input.js), which freezes it deeply and puts it in the
// prelude's place, before the program starts. A run without one evaluates
// none of this, so the input costs it nothing; a run with one spends fuel
// on parsing, installing and freezing it, and its text (copied into the
// guest to be parsed) and its value count against MemoryBytes, as the
// program's own data does. The input is not part of the program's text:
// runs of one program with different inputs share its compiled bytecode.

// ErrInvalidInput is wrapped by RunWith's error for an input
// (RunOptions.Input) that is over MaxInputBytes or not lossless JSON.
var ErrInvalidInput = errors.New("coderun: invalid Request.Input")

//go:embed input.js
var inputSource string

// inputFile names the installer's frames in stacks.
const inputFile = "coderun:input"

// checkInput checks a run's input b against the limit, and that it is
// lossless JSON by the rules of a binding's result (serialize.CheckJSON).
// An empty b is no input. It runs before the run starts, in one pass over b.
func checkInput(b []byte, limit int64) error {
	if len(b) == 0 {
		return nil
	}
	if int64(len(b)) > limit {
		return fmt.Errorf("%w: it is %d bytes, over the limit of %d bytes (Config.MaxInputBytes)", ErrInvalidInput, len(b), limit)
	}
	if err := serialize.CheckJSON(b); err != nil {
		return fmt.Errorf("%w: it must be lossless JSON, as a binding's result must: %w", ErrInvalidInput, err)
	}
	return nil
}

// inputCache holds the installer's bytecode and the fuel compiling it
// spent, compiled once per Engine by the first run with an input, as a web
// group's is (see webCache): every run with an input is charged that fuel,
// so that the fuel of a run depends only on its program, its input and the
// binding results it sees.
type inputCache struct {
	mu   sync.Mutex
	code []byte
	fuel uint64
}

// get returns the installer's bytecode and its fuel, compiling it the first
// time.
func (c *inputCache) get(e *Engine) ([]byte, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.code == nil {
		code, fuel, err := compileAside(e, inputSource, inputFile)
		if err != nil {
			return nil, 0, err
		}
		c.code, c.fuel = code, fuel
	}
	return c.code, c.fuel, nil
}

// installInput makes the run's input the global `input` in its instance,
// or ends the run. It is called in the guest (see run.guest) after the
// program's function is made and before it starts.
func (r *run) installInput() error {
	code, fuel, err := r.e.input.get(r.e)
	if err != nil {
		r.exhaust(BudgetEngine, "engine error: loading the input's installer: "+err.Error())
		return nil
	}
	var left int64
	if f := r.in.Fuel(); f != nil {
		left = int64(f.Get())
	}
	if trip := r.meter.Spend(fuel, left); trip != budget.None {
		r.end(KindTimeout, r.meter.Message(trip))
		return nil
	}
	install, err := r.in.EvalBytecode(code, quickjs.EvalGlobal)
	if err != nil || install.IsException() || r.ended {
		r.inputFailed()
		return err
	}
	value, err := r.in.ParseJSON(r.input)
	if err != nil || value.IsException() || r.ended {
		r.inputFailed()
		return err
	}
	v, err := r.in.Call(install, quickjs.Undefined, value)
	if err != nil || v.IsException() {
		r.inputFailed()
	}
	return err
}

// inputFailed ends the run whose input could not be installed, unless the
// outcome is decided: as the memory limit when the engine ran out of
// memory (it then throws an "out of memory" InternalError, or nothing it
// could make), else with the pending exception.
func (r *run) inputFailed() {
	if r.ended || r.in == nil {
		return
	}
	msg := "[uninitialized]"
	if exc, err := r.in.TakeException(); err == nil {
		msg, _ = r.in.String(exc)
	}
	if msg == "[uninitialized]" || strings.Contains(msg, "out of memory") {
		r.exhaust(BudgetMemory, r.mem.InputExceeded(int64(len(r.input))))
		return
	}
	if strings.Contains(msg, "Maximum call stack size exceeded") {
		r.exhaust(BudgetStack, "the run's input (Request.Input) is nested too deeply for the engine to parse it ("+msg+"); pass a flatter input")
		return
	}
	r.exhaust(BudgetEngine, "engine error: the run's input (Request.Input) could not be made the global input: "+msg)
}
