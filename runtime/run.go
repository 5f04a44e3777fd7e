package runtime

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime/internal/transpile"
	"github.com/coderun/coderun/serialize"
)

// goexitMessage is the failure of a run one of whose bindings called
// runtime.Goexit.
const goexitMessage = "host error: a binding called runtime.Goexit, which ended the run; this is a bug in the host, not an error in the program"

// onLogPanicMessage is the failure of a run whose OnLog hook panicked.
const onLogPanicMessage = "host error: the host's OnLog hook panicked (%v); this is a bug in the host, not an error in the program"

const programFile = "program.ts"

// neverSettlesMessage is the failure of a run that waits with nothing pending.
const neverSettlesMessage = "the program is waiting for a promise that can never settle: no binding call or timer is pending"

// stackMessage is the failure of a run whose guest filled the engine's native stack.
const stackMessage = "stack overflow: the engine's native stack is full (a recursion, or a nesting of values or " +
	"expressions, too deep for it); make it shallower"

// errEnded unwinds the guest once the run's outcome is decided.
var errEnded = errors.New("coderun: run ended")

// run is one execution of a program. All fields are used from the run's
// goroutine only (calls' goroutines use only what hostcalls.Calls lends them).
type run struct {
	e        *Engine
	ctx      context.Context
	bindings []Binding
	limits   budget.Limits
	meter    *budget.Meter
	mem      *budget.Memory // the run's memory, guest and host, against MemoryBytes
	ledger   *serialize.Ledger
	logs     logStore
	pieces   int // pieces of big texts read so far (see Pace)
	source   string
	program  *transpile.Program
	input    []byte // RunOptions.Input, checked; nil when none

	// onLog is RunOptions.OnLog.
	onLog func(entry string)

	in  *quickjs.Instance
	api quickjs.Value
	// gmem charges in's linear memory and native stack to mem.
	gmem *guestMemory

	// calls is the life of the run's binding calls, from the guest's call
	// operation to the result's check before it is delivered.
	calls       hostcalls.Calls
	valueCharge int64       // what the program's value is charged to mem
	timers      timers      // pending setTimeouts, fired by the run loop itself
	wall        *time.Timer // fires at the wall-clock deadline; made by the first wait
	// nudgeStop undoes nudgeOnCancel for the run's instance (nil: nothing to undo).
	nudgeStop func() bool
	batch     []hostcalls.Event // wait's buffer, reused

	// detached: the run executes on a goroutine of its own, so that a lone
	// call can run inline (see callInline). inline is the handshake with
	// the waiting caller (inlineNone, inlineRunning, inlineAbandoned).
	detached bool
	inline   atomic.Int32

	// The instance's native stack while the run waits (see idlestack.go):
	// stack is the handshake with the idle timer, idle (stackHeld unless
	// the run is parked); givenBack is what releases have reported to the
	// engine's giveBack, releases how many there were.
	stack     atomic.Int32
	idle      *time.Timer
	givenBack int64
	releases  atomic.Int32

	// rec records the run (RunOptions.Record), rp replays one (Engine.Replay);
	// nil otherwise. stopPlace says where a stop from outside is replayed
	// when it is neither the guest's fuel nor a wait (see recordStop).
	rec       *recorder
	rp        *replayer
	stopPlace string

	ended    bool
	halted   int    // how the guest was stopped after the outcome was decided (see halt)
	fuelUsed uint64 // at the moment the outcome was decided
	kind     string
	budget   string // the budget that ended the run, if one did (Outcome.Budget)
	message  string
	value    []byte
}

func newRun(ctx context.Context, e *Engine, source string, bindings []Binding) *run {
	return newRunWithin(ctx, e, source, bindings, e.limits)
}

// newRunWithin makes a run with these budgets (a replay's, see Engine.Replay).
func newRunWithin(ctx context.Context, e *Engine, source string, bindings []Binding, limits budget.Limits) *run {
	r := &run{
		e:        e,
		source:   source,
		ctx:      ctx,
		bindings: bindings,
		limits:   limits,
		meter:    budget.NewMeter(limits, time.Now()),
		mem:      budget.NewMemory(limits),
		ledger:   serialize.NewLedger(limits.MaxOutputBytes),
		timers:   newTimers(),
	}
	r.logs.mem = r.mem
	r.initCalls()
	return r
}

// initCalls readies the run's calls, with the hook of a recorded or a
// replayed run.
func (r *run) initCalls() {
	cfg := hostcalls.Config{
		Ctx: r.ctx, Guest: r, Account: r.mem, Piece: textPiece,
		MaxArgumentBytes: r.limits.MaxArgumentBytes, MaxConcurrentCalls: r.limits.MaxConcurrentCalls,
	}
	switch {
	case r.rec != nil:
		cfg.Observe = func(ns int, member string, args []byte) int32 { return r.rec.observe(r, ns, member, args) }
	case r.rp != nil:
		cfg.Observe = func(ns int, member string, args []byte) int32 { return r.rp.observe(r, ns, member, args) }
		cfg.Replay = true
	}
	r.calls.Init(cfg)
}

// end decides the outcome; the first decision wins.
func (r *run) end(kind, message string) { r.settle(kind, "", message) }

// exhaust decides the outcome of a run that budget b ended (a limit, or a
// fault of the engine or the host), as the kind that goes with b.
func (r *run) exhaust(b, message string) { r.settle(budgetKind(b), b, message) }

// exhaustTrip decides the outcome of a run whose meter tripped.
func (r *run) exhaustTrip(t budget.Trip) { r.exhaust(tripBudget(t), r.meter.Message(t)) }

// settle decides the outcome; the first decision wins.
func (r *run) settle(kind, b, message string) {
	if r.ended {
		return
	}
	r.ended, r.kind, r.budget, r.message = true, kind, b, message
	if r.in != nil && r.in.Fuel() != nil {
		r.fuelUsed = r.meter.FuelUsed(int64(r.in.Fuel().Get()))
	}
	if r.rec != nil && external(kind, b) {
		r.recordStop(kind, b, message)
	}
}

// stop decides the outcome and unwinds the guest.
func (r *run) stop(kind, message string) {
	r.end(kind, message)
	panic(errEnded)
}

// stopFor decides the outcome of a run that budget b ended and unwinds the
// guest.
func (r *run) stopFor(b, message string) {
	r.exhaust(b, message)
	panic(errEnded)
}

func (r *run) execute() Outcome {
	defer r.cleanup()
	r.start()
	for !r.ended {
		r.wait()
	}
	return r.outcome()
}

func (r *run) cleanup() {
	// A binding that called runtime.Goexit in an inline call unwinds the
	// run's goroutine while r.inline is still inlineRunning: the run is
	// taken back unless the caller gave up on it first.
	r.inline.CompareAndSwap(inlineRunning, inlineNone)
	if r.inline.Load() == inlineAbandoned {
		return // the caller cleaned up when it gave up on the run
	}
	r.hold() // a binding's Goexit in an inline call left the run parked
	r.closeRun()
}

// closeRun releases what the run holds.
func (r *run) closeRun() {
	r.calls.Close() // calls made just before the run settled still start
	if r.wall != nil {
		r.wall.Stop()
	}
	r.timers.stop()
	if r.nudgeStop != nil {
		r.nudgeStop()
	}
	if r.in != nil {
		r.closeInstance()
	}
	if r.gmem != nil {
		r.e.giveBack.ran(r.gmem.deep() - r.givenBack)
		r.gmem.release()
	}
	// The logs and the value now belong to the caller.
	r.mem.Release(r.logs.size() + r.valueCharge)
}

// closeInstance closes the run's instance. A run that was stopped (an abort or a timeout: its
// caller is waiting to get control back) leaves the scrub of the instance's memory to the next
// instance given that memory (quickjs.Instance.CloseScrubLater): scrubbing it takes tens of
// microseconds, in caches the runaway program has cooled, and handing it to a goroutine costs
// about as much again on a small VM, whose other CPU has to be woken for it. Other runs scrub
// it at once, so that the next run finds the memory ready in the pool.
func (r *run) closeInstance() {
	if r.kind == KindAbort || r.kind == KindTimeout {
		_ = r.in.CloseScrubLater(context.Background())
		return
	}
	_ = r.in.Close(context.Background())
}

// start compiles the program, makes the instance and starts the program.
func (r *run) start() {
	if r.rp != nil && r.rp.startStop(r) {
		return
	}
	if r.program = r.compile(); r.program == nil {
		return
	}
	r.api = r.e.snap.API
	if err := r.attach(); err != nil {
		r.exhaust(r.workerError(err))
		return
	}
	r.guest(func() error {
		var params []string
		var spec []map[string]any
		for _, b := range r.bindings {
			params = append(params, b.Global)
			members := r.calls.AddNamespace(b.Functions)
			if b.ErrorClass != "" && !b.SharesErrorClass {
				params = append(params, b.ErrorClass)
			}
			spec = append(spec, map[string]any{"g": b.Global, "m": members, "e": b.ErrorClass, "p": b.MemberProperty, "s": b.SharesErrorClass})
		}
		main, err := r.evalProgram(params)
		if err != nil {
			return err
		}
		if main.IsException() || r.ended {
			r.throwPending()
			return nil
		}
		if r.input != nil {
			if err := r.installInput(); err != nil || r.ended {
				return err
			}
		}
		specVal := quickjs.Undefined // no bindings
		if spec != nil {
			specJSON, _ := json.Marshal(spec)
			if specVal, err = r.in.ParseJSON(specJSON); err != nil {
				return err
			}
		}
		if _, err := r.callChecked(r.api, quickjs.Int(hostcalls.APIStart), main, specVal); err != nil {
			return err
		}
		return r.drainJobs()
	})
}

// attach gives the run a new instance, with the snapshot's state and
// Math.random reseeded, its memory charged to the run's account.
func (r *run) attach() error {
	in, err := r.e.instance(r, len(r.bindings) > 0)
	if err != nil {
		return err
	}
	in.Restore(r.e.snap.Instance)
	if r.e.hooks.attached != nil {
		r.e.hooks.attached(in)
	}
	seed := randomSeed()
	switch {
	case r.rp != nil:
		seed = r.rp.t.Seed | 1 // as randomSeed's: a zero state would stay zero
	case r.rec != nil:
		r.rec.t.Seed = seed
	}
	if !in.SetContextU64(r.e.snap.RandomState, seed) {
		_ = in.Close(context.Background())
		return errors.New("cannot seed Math.random")
	}
	gmem, err := newGuestMemory(r.mem, in, r.e.snap.Instance)
	if err != nil {
		_ = in.Close(context.Background())
		return err
	}
	r.in, r.gmem = in, gmem
	if r.nudgeStop != nil {
		r.nudgeStop() // the compiling instance's, closed
	}
	if r.rec == nil {
		// Not in a recorded run: a nudged poll comes early, and charges
		// its fuel at a point a replay could not find again.
		r.nudgeStop = r.nudgeOnCancel()
	}
	return nil
}

// workerError is the budget and the worker-exit message for an error of the
// instance.
func (r *run) workerError(err error) (string, string) {
	if errors.Is(err, errMemoryLimit) {
		return BudgetMemory, r.mem.Exceeded()
	}
	return BudgetEngine, failureMessage(err)
}

// evalProgram evaluates the program's script, which yields its function,
// from its bytecode. The first run of a program (for these parameters)
// compiles the script and keeps the bytecode, with the fuel compiling spent,
// for later runs; it then evaluates it in a fresh instance. A later run is
// charged the fuel the compilation spent before it evaluates the bytecode,
// so that every run of a program spends the same fuel and reports all of it.
func (r *run) evalProgram(params []string) (quickjs.Value, error) {
	key := strings.Join(params, ",")
	bc, ok := r.program.Compiled(key)
	if ok {
		var left int64
		if fuel := r.in.Fuel(); fuel != nil {
			left = int64(fuel.Get())
		}
		if trip := r.meter.Spend(bc.Fuel, left); trip != budget.None {
			r.exhaustTrip(trip)
			return quickjs.Exception, nil
		}
		return r.in.EvalBytecode(bc.Code, quickjs.EvalGlobal)
	}
	compiler, compilerMem := r.in, r.gmem
	fuel := compiler.Fuel()
	var before uint64
	if fuel != nil {
		before = r.meter.FuelUsed(int64(fuel.Get()))
	}
	script := r.program.Script(params)
	if r.e.hooks.script != nil {
		script = r.e.hooks.script(script)
	}
	code, ok, err := compiler.Compile(script, programFile, quickjs.EvalGlobal)
	if err == nil && !ok && r.program.ClosesItsFunction() {
		// The engine's syntax error is a consequence: say what the program did.
		r.end(KindException, r.program.Escaped().Error())
		return quickjs.Exception, nil
	}
	if err != nil || !ok {
		return quickjs.Exception, err
	}
	// The script must make the program's function and nothing else: checked on the bytecode
	// that would run, before any of it does (see transpile.Program.Escaped).
	if err := quickjs.CheckOneFunction(code, len(params)); errors.Is(err, quickjs.ErrNotOneFunction) {
		r.end(KindException, r.program.Escaped().Error())
		return quickjs.Exception, nil
	} else if err != nil {
		r.exhaust(BudgetEngine, engineError(err.Error()))
		return quickjs.Exception, nil
	}
	var left int64
	if fuel != nil {
		left = int64(fuel.Get())
		bc.Fuel = r.meter.FuelUsed(left) - before
	}
	bc.Code = code
	r.program.SetCompiled(key, bc)
	// The compiler goes before its successor comes: the run's memory
	// account never holds two instances.
	_ = compiler.Close(context.Background())
	compilerMem.release()
	r.in, r.gmem = nil, nil
	if err := r.attach(); err != nil {
		return 0, err
	}
	if fuel != nil {
		r.in.Fuel().Set(uint64(left)) // the successor goes on with the compiler's slice
	}
	return r.in.EvalBytecode(bc.Code, quickjs.EvalGlobal)
}

// randomSeed returns a fresh non-zero state for Math.random.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}

func (r *run) internalException(where string) error {
	exc, err := r.in.TakeException()
	if err != nil {
		return err
	}
	s, _ := r.in.String(exc)
	return fmt.Errorf("coderun: internal error in %s: %s", where, s)
}

// callChecked calls fn; a JavaScript exception ends the run as a failure.
// When the outcome was decided during the call (the guest unwound itself,
// see halt), it returns errEnded.
func (r *run) callChecked(fn quickjs.Value, args ...quickjs.Value) (quickjs.Value, error) {
	if r.ended {
		return 0, errEnded
	}
	v, err := r.in.Call(fn, quickjs.Undefined, args...)
	if err != nil {
		return 0, err
	}
	if r.ended {
		return 0, errEnded
	}
	if v.IsException() {
		r.throwPending()
	}
	return v, nil
}

// throwPending ends the run with the pending JavaScript exception, unless
// the outcome is decided: then the exception is the one the guest unwound
// with (see halt), and nothing more of the program may run (rendering an
// exception can call its getters).
func (r *run) throwPending() {
	if r.ended {
		return
	}
	exc, err := r.in.TakeException()
	if err != nil {
		r.exhaust(BudgetEngine, engineError(err.Error()))
		return
	}
	if r.api == 0 {
		s, _ := r.in.String(exc)
		r.exhaust(BudgetEngine, engineError(s))
		return
	}
	v, err := r.in.Call(r.api, quickjs.Undefined, quickjs.Int(hostcalls.APIRender), exc)
	if err != nil || !v.IsString() {
		r.end(KindException, "program threw an unrenderable value")
		return
	}
	if _, err := r.endThrown(v); err != nil {
		r.end(KindException, "program threw an unrenderable value")
	}
}

// drainJobs runs the pending jobs, none once the outcome is decided.
func (r *run) drainJobs() error {
	if r.ended {
		return nil
	}
	exc, err := r.in.RunJobs()
	if err != nil {
		return err
	}
	if exc {
		r.throwPending()
	}
	return nil
}

// guest runs f, which calls into the instance, metering busy time and
// turning instance failures into outcomes.
func (r *run) guest(f func() error) {
	if r.ended {
		return
	}
	if r.gmem != nil {
		r.gmem.rearm()
	}
	r.meter.Enter(time.Now())
	err := f()
	r.meter.Exit(time.Now())
	if err == nil || r.ended {
		return
	}
	var exit *quickjs.ExitError
	switch {
	case errors.Is(err, errEnded):
		// The outcome was decided by a host function.
	case errors.As(err, &exit):
		r.exhaust(BudgetEngine, exitMessage(exit.Code))
	case r.e.qe.IsMemoryTrap(err):
		r.exhaust(BudgetMemory, r.mem.Exceeded())
	default:
		r.exhaust(r.workerError(err))
	}
}

// failureMessage describes an instance failure that is neither the memory
// cap nor an exit. A wasm trap there is the engine's fault, never the
// program's: QuickJS traps only when its own code goes wrong (an access
// out of bounds, an unreachable state), and the message says so, so that a
// model does not look for the error in its program.
func failureMessage(err error) string {
	s := err.Error()
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if reason, ok := strings.CutPrefix(s, "wasm error: "); ok {
		return "engine error: the JavaScript engine faulted (" + reason + "); this is an engine bug, not an error in the program"
	}
	return engineError(s)
}

// engineError is the message of a failure of the engine, which is not the program's: what
// failed, then that the program is not to blame.
func engineError(what string) string {
	return "engine error: " + what + "; this is a failure of the engine, not an error in the program"
}

// exitMessage is the message of a run whose engine exited (its C code aborted): the program
// cannot make it exit.
func exitMessage(code uint32) string {
	return engineError(fmt.Sprintf("the JavaScript engine exited with code %d", code))
}

// wait blocks until something happens, then delivers it to the guest.
func (r *run) wait() {
	batch := r.batch[:0]
	if r.rp != nil {
		if batch = r.rp.turn(r, batch); batch == nil {
			return
		}
	} else if ev, ok := r.callInline(); ok {
		batch = append(batch, ev)
	} else if batch = r.block(batch); batch == nil {
		return
	}
	if r.rp == nil && r.stopIfSignalled() {
		clear(batch)
		return
	}
	r.batch = batch
	if r.rec != nil {
		r.rec.beginTurn(r.fuelNow())
	}
	r.guest(func() error {
		for _, ev := range batch {
			// A timer is removed when it is due; one cleared by an
			// earlier callback of this batch is skipped by the guest.
			if ev.Kind != hostcalls.EvTimer {
				r.calls.Returned(&ev)
				if r.ended {
					return nil
				}
			}
			if r.rec != nil {
				r.rec.delivered(&ev)
			}
			err := r.deliver(ev)
			r.mem.Release(ev.Charge)
			if err != nil || r.ended {
				return err
			}
		}
		return r.drainJobs()
	})
	clear(batch) // drop the payloads
}

// block starts the pending calls, waits until a call completes or a timer
// is due, and appends every event that is ready to batch: the timers that
// are due, earliest first, then the completed calls. It returns nil when
// the run ended instead.
func (r *run) block(batch []hostcalls.Event) []hostcalls.Event {
	r.calls.LaunchPending()
	if r.calls.Goexited() {
		r.exhaust(BudgetHost, goexitMessage)
		return nil
	}
	if r.calls.Idle() && r.timers.Len() == 0 {
		r.end(KindException, neverSettlesMessage)
		return nil
	}
	if r.wall == nil {
		r.wall = time.NewTimer(time.Until(r.meter.WallDeadline()))
	}
	var first hostcalls.Event
	called := false
	r.park()
	select {
	case first = <-r.calls.Events():
		called = true
	case <-r.timers.wake():
	case <-r.ctx.Done():
		r.hold()
		r.end(KindAbort, context.Cause(r.ctx).Error())
		return nil
	case <-r.e.closing:
		r.hold()
		r.end(KindAbort, "runtime disposed")
		return nil
	case <-r.wall.C:
		r.hold()
		r.exhaust(BudgetWall, budget.WallMessage(r.limits.WallTime))
		return nil
	}
	r.hold()
	batch = r.timers.appendDue(batch)
	if called {
		batch = append(batch, first)
	}
	for more := true; more; {
		select {
		case ev := <-r.calls.Events():
			batch = append(batch, ev)
		default:
			more = false
		}
	}
	if r.calls.Goexited() {
		clear(batch)
		r.exhaust(BudgetHost, goexitMessage)
		return nil
	}
	return batch
}

// stopIfSignalled ends the run as abort, and reports true, when the
// caller's ctx is done or the engine is closing. It is checked before a
// batch is delivered: a call that completed meanwhile (often because its
// ctx was cancelled) is not handed to the program, so a cancelled run ends
// as abort, not as the rejection the program would have seen.
func (r *run) stopIfSignalled() bool {
	select {
	case <-r.ctx.Done():
		r.end(KindAbort, context.Cause(r.ctx).Error())
		return true
	case <-r.e.closing:
		r.end(KindAbort, "runtime disposed")
		return true
	default:
		return false
	}
}

// deliver hands one completed call or fired timer to the guest.
func (r *run) deliver(ev hostcalls.Event) error {
	val := quickjs.Undefined
	if ev.Payload != nil {
		v, err := r.in.ParseJSON(ev.Payload)
		if err != nil {
			return err
		}
		if v.IsException() {
			return r.internalException("deliver")
		}
		val = v
		defer r.in.FreeValue(val)
	}
	_, err := r.callChecked(r.api, quickjs.Int(hostcalls.APIDeliver), quickjs.Int(ev.ID), quickjs.Int(int32(ev.Kind)), val)
	return err
}

// outcome assembles the result, applying the output ledger to the value or
// the failure message.
func (r *run) outcome() Outcome {
	now := time.Now()
	o := Outcome{
		Logs: r.logs.strings(), Kind: r.kind, Budget: r.budget, FuelUsed: r.fuelUsed,
		Busy: r.meter.Busy(now), Wall: r.meter.Wall(now), PeakMemory: r.mem.Peak(),
		Calls: r.calls.Made(), LogBytes: r.ledger.LogBytes(),
	}
	if r.e.hooks.ended != nil {
		r.e.hooks.ended(r)
	}
	if r.kind == "" {
		o.Value = r.value
		return o
	}
	msg, ok := r.ledger.FitMessage(r.message)
	if !ok && r.kind != KindOutputLimit {
		o.Kind, o.Budget = KindOutputLimit, BudgetOutput
		msg, _ = r.ledger.FitMessage(serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
	}
	o.Message = msg
	return o
}
