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
	"github.com/coderun/coderun/runtime/quickjs"
	"github.com/coderun/coderun/runtime/transpile"
	"github.com/coderun/coderun/serialize"
)

// Host operations (prelude.js).
const (
	opLog   = 1
	opCall  = 2
	opTimer = 3
	opClear = 4
	opDone  = 5
	// opCallValue is opCall with the argument value instead of its text.
	opCallValue = 6
	// opDoneValue is opDone with the completion value instead of its text.
	opDoneValue = 7
)

// Completion kinds reported by the prelude with opDone.
const (
	doneValue = iota
	doneNone
	doneThrow
	doneInvalid
	doneUnrenderable
)

// api operations (prelude.js).
const (
	apiStart   = 1
	apiDeliver = 2
	apiRender  = 3
)

// Event kinds delivered to the guest.
const (
	evResolve = 0
	evReject  = 1
	evTimer   = 2
)

const programFile = "program.ts"

// errEnded unwinds the guest once the run's outcome is decided.
var errEnded = errors.New("coderun: run ended")

type event struct {
	id      int32
	kind    int
	payload []byte // JSON text
}

type call struct {
	id     int32
	fn     Func
	args   []byte
	member string
}

// run is one execution of a program. All fields are used from the run's
// goroutine only, except events and finished, which binding goroutines use.
type run struct {
	e        *Engine
	ctx      context.Context
	bindings []Binding
	limits   budget.Limits
	meter    *budget.Meter
	mem      *budget.Memory // the run's memory, guest and host, against MemoryBytes
	ledger   *serialize.Ledger
	logs     []string
	source   string
	program  *transpile.Program

	in  *quickjs.Instance
	api quickjs.Value

	members     [][]string // each binding's member names, in the order the guest numbers them
	callIDs     int32      // call ids handed out so far (see newCallID)
	freeIDs     []int32    // call ids whose results were delivered, for reuse
	nextTimerID int32
	inflight    int
	pending     []*call // made by the guest since it last yielded, not started yet
	queue       []*call // waiting for a free MaxConcurrentCalls slot
	timers      map[int32]*time.Timer
	events      chan event
	finished    chan struct{}
	wall        *time.Timer // fires at the wall-clock deadline; made by the first wait
	batch       []event     // wait's buffer, reused

	// detached: the run executes on a goroutine of its own, so that a lone
	// call can run inline (see callInline). inline is the handshake with
	// the waiting caller (inlineNone, inlineRunning, inlineAbandoned).
	detached bool
	inline   atomic.Int32

	ended    bool
	fuelUsed uint64 // at the moment the outcome was decided
	kind     string
	message  string
	value    []byte
}

func newRun(ctx context.Context, e *Engine, source string, bindings []Binding) *run {
	return &run{
		e:        e,
		source:   source,
		ctx:      ctx,
		bindings: bindings,
		limits:   e.limits,
		meter:    budget.NewMeter(e.limits, time.Now()),
		mem:      budget.NewMemory(e.limits.MemoryBytes),
		ledger:   serialize.NewLedger(e.limits.MaxOutputBytes),
		logs:     []string{},
		timers:   map[int32]*time.Timer{},
		events:   make(chan event, 64),
		finished: make(chan struct{}),
	}
}

// end decides the outcome; the first decision wins.
func (r *run) end(kind, message string) {
	if r.ended {
		return
	}
	r.ended, r.kind, r.message = true, kind, message
	if r.in != nil && r.in.Fuel() != nil {
		r.fuelUsed = r.meter.FuelUsed(int64(r.in.Fuel().Get()))
	}
}

// stop decides the outcome and unwinds the guest.
func (r *run) stop(kind, message string) {
	r.end(kind, message)
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
	if r.inline.Load() == inlineAbandoned {
		return // the caller cleaned up when it gave up on the run
	}
	r.closeRun()
}

// closeRun releases what the run holds.
func (r *run) closeRun() {
	// Calls made just before the run settled still start, as they would
	// have had the guest yielded: they belong to the caller now.
	r.launchPending()
	close(r.finished)
	if r.wall != nil {
		r.wall.Stop()
	}
	for _, t := range r.timers {
		t.Stop()
	}
	if r.in != nil {
		_ = r.in.Close(context.Background())
	}
}

// start compiles the program, makes the instance and starts the program.
func (r *run) start() {
	if r.program = r.compile(); r.program == nil {
		return
	}
	r.api = r.e.snap.API
	if err := r.attach(); err != nil {
		r.end(KindWorkerExit, "worker error: "+err.Error())
		return
	}
	r.guest(func() error {
		var params []string
		var spec []map[string]any
		for _, b := range r.bindings {
			params = append(params, b.Global)
			members := make([]string, 0, len(b.Functions))
			for name := range b.Functions {
				members = append(members, name)
			}
			r.members = append(r.members, members)
			if b.ErrorClass != "" && !b.SharesErrorClass {
				params = append(params, b.ErrorClass)
			}
			spec = append(spec, map[string]any{"g": b.Global, "m": members, "e": b.ErrorClass, "p": b.MemberProperty, "s": b.SharesErrorClass})
		}
		main, err := r.evalProgram(params)
		if err != nil {
			return err
		}
		if main.IsException() {
			r.throwPending()
			return nil
		}
		specVal := quickjs.Undefined // no bindings
		if spec != nil {
			specJSON, _ := json.Marshal(spec)
			if specVal, err = r.in.ParseJSON(specJSON); err != nil {
				return err
			}
		}
		if _, err := r.callChecked(r.api, quickjs.Int(apiStart), main, specVal); err != nil {
			return err
		}
		return r.drainJobs()
	})
}

// attach gives the run a new instance, with the snapshot's state and
// Math.random reseeded.
func (r *run) attach() error {
	in, err := r.e.instance(r)
	if err != nil {
		return err
	}
	in.Restore(r.e.snap.Instance)
	if !in.SetContextU64(r.e.snap.RandomState, randomSeed()) {
		_ = in.Close(context.Background())
		return errors.New("cannot seed Math.random")
	}
	r.in = in
	return nil
}

// evalProgram evaluates the program's script, which yields its function,
// from its bytecode. The first run of a program (for these parameters)
// compiles the script and keeps the bytecode for later runs; it then
// evaluates it in a fresh instance, and the fuel compiling spent is
// refunded, so that every run of a program starts from the same state and
// spends the same fuel.
func (r *run) evalProgram(params []string) (quickjs.Value, error) {
	key := strings.Join(params, ",")
	bc, ok := r.program.Compiled(key)
	if !ok {
		compiler := r.in
		fuel := compiler.Fuel()
		var before uint64
		if fuel != nil {
			before = r.meter.FuelUsed(int64(fuel.Get()))
		}
		var err error
		bc, ok, err = compiler.Compile(r.program.Wrap(params), programFile, quickjs.EvalGlobal)
		if err != nil || !ok {
			return quickjs.Exception, err
		}
		r.program.SetCompiled(key, bc)
		if err := r.attach(); err != nil {
			return 0, err
		}
		if fuel != nil {
			left := int64(fuel.Get())
			r.meter.Refund(r.meter.FuelUsed(left)-before, left)
			r.in.Fuel().Set(uint64(left))
		}
		_ = compiler.Close(context.Background())
	}
	return r.in.EvalBytecode(bc, quickjs.EvalGlobal)
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
func (r *run) callChecked(fn quickjs.Value, args ...quickjs.Value) (quickjs.Value, error) {
	v, err := r.in.Call(fn, quickjs.Undefined, args...)
	if err != nil {
		return 0, err
	}
	if v.IsException() {
		r.throwPending()
	}
	return v, nil
}

// throwPending ends the run with the pending JavaScript exception.
func (r *run) throwPending() {
	exc, err := r.in.TakeException()
	if err != nil {
		r.end(KindWorkerExit, "worker error: "+err.Error())
		return
	}
	if r.api == 0 {
		s, _ := r.in.String(exc)
		r.end(KindWorkerExit, "worker error: "+s)
		return
	}
	v, err := r.in.Call(r.api, quickjs.Undefined, quickjs.Int(apiRender), exc)
	if err != nil || v.Tag() != quickjs.TagString {
		r.end(KindException, "program threw an unrenderable value")
		return
	}
	s, err := r.in.String(v)
	if err != nil {
		r.end(KindException, "program threw an unrenderable value")
		return
	}
	r.end(KindException, r.renderStack(s))
}

func (r *run) drainJobs() error {
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
		r.end(KindWorkerExit, fmt.Sprintf("worker error: the program exited with code %d", exit.Code))
	case r.e.qe.IsMemoryTrap(err):
		r.end(KindWorkerExit, budget.MemoryMessage(r.limits.MemoryBytes))
	default:
		r.end(KindWorkerExit, "worker error: "+trapReason(err))
	}
}

func trapReason(err error) string {
	s := err.Error()
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimPrefix(s, "wasm error: ")
}

// wait blocks until something happens, then delivers it to the guest.
func (r *run) wait() {
	batch := r.batch[:0]
	if ev, ok := r.callInline(); ok {
		batch = append(batch, ev)
	} else if batch = r.block(batch); batch == nil {
		return
	}
	r.batch = batch
	r.guest(func() error {
		for _, ev := range batch {
			if ev.kind == evTimer {
				if _, ok := r.timers[ev.id]; !ok {
					continue // cleared after it fired
				}
				delete(r.timers, ev.id)
			} else {
				// The guest frees its record of the call before it runs
				// any code, so the id can be handed out again at once.
				r.inflight--
				r.freeIDs = append(r.freeIDs, ev.id)
				r.startQueued()
				checkResult(&ev)
			}
			if err := r.deliver(ev); err != nil || r.ended {
				return err
			}
		}
		return r.drainJobs()
	})
	clear(batch) // drop the payloads
}

// block starts the pending calls, waits until a call completes or a timer
// fires, and appends every event that is ready to batch. It returns nil
// when the run ended instead.
func (r *run) block(batch []event) []event {
	r.launchPending()
	if r.inflight == 0 && len(r.queue) == 0 && len(r.timers) == 0 {
		r.end(KindException, "the program is waiting for a promise that can never settle: no binding call or timer is pending")
		return nil
	}
	if r.wall == nil {
		r.wall = time.NewTimer(time.Until(r.meter.WallDeadline()))
	}
	select {
	case ev := <-r.events:
		batch = append(batch, ev)
	case <-r.ctx.Done():
		r.end(KindAbort, context.Cause(r.ctx).Error())
		return nil
	case <-r.e.closing:
		r.end(KindAbort, "runtime disposed")
		return nil
	case <-r.wall.C:
		r.end(KindTimeout, budget.WallMessage(r.limits.WallTime))
		return nil
	}
	for more := true; more; {
		select {
		case ev := <-r.events:
			batch = append(batch, ev)
		default:
			more = false
		}
	}
	return batch
}

// deliver hands one completed call or fired timer to the guest.
func (r *run) deliver(ev event) error {
	val := quickjs.Undefined
	if ev.payload != nil {
		v, err := r.in.ParseJSON(ev.payload)
		if err != nil {
			return err
		}
		if v.IsException() {
			return r.internalException("deliver")
		}
		val = v
		defer r.in.FreeValue(val)
	}
	_, err := r.callChecked(r.api, quickjs.Int(apiDeliver), quickjs.Int(ev.id), quickjs.Int(int32(ev.kind)), val)
	return err
}

// outcome assembles the result, applying the output ledger to the value or
// the failure message.
func (r *run) outcome() Outcome {
	o := Outcome{Logs: r.logs, Kind: r.kind, FuelUsed: r.fuelUsed}
	if r.kind == "" {
		o.Value = r.value
		return o
	}
	msg, ok := r.ledger.FitMessage(r.message)
	if !ok && r.kind != KindOutputLimit {
		o.Kind = KindOutputLimit
		msg, _ = r.ledger.FitMessage(serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
	}
	o.Message = msg
	return o
}
