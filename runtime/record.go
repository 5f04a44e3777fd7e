package runtime

import (
	"fmt"
	"time"

	"github.com/coderun/coderun/hostcalls"
)

// Recording. A recorded run (RunOptions.Record) keeps, beside its work, a
// trace of what it got from outside its program (see trace.go): each call
// the program made, each turn of the run loop with what it delivered, each
// clock reading, the random bytes and time zone offsets it read, and a
// stop from outside. Every hook is one nil check in a run that is not
// recorded. The trace is bounded by MaxTraceBytes: past it the recorder
// drops what it holds and records nothing more, and the run goes on.

// recorder is a recorded run's trace in the making. It is used from the
// run's goroutine only (and from its caller's once that gave up on it, see
// executeDetached, when the run's goroutine no longer records).
type recorder struct {
	t        *Trace
	size     int64 // what the trace holds, counted against max
	max      int64
	over     bool  // the trace passed max: nothing more is recorded
	ordinal  []int // the call number (from 1) of the call at each id
	secret   []bool
	calls    int
	turn     int // index in t.Events of the turn being delivered, or -1
	logCount int
}

// newRecorder starts the trace of a run of program.
func newRecorder(e *Engine, program string, input []byte, bindings []Binding, max int64) *recorder {
	rec := &recorder{max: max, turn: -1, t: &Trace{
		Format: TraceFormat, Version: TraceVersion, Engine: engineIdentity(), Config: e.limits,
		Program: program, Bindings: traceBindings(bindings),
	}}
	rec.t.setInput(input)
	rec.charge(jsonStringLen(program) + jsonStringLen(rec.t.InputText) + int64(len(rec.t.Input)) + 1024)
	for _, b := range rec.t.Bindings {
		rec.charge(jsonStringLen(b.Global) + jsonStringLen(b.ErrorClass) + jsonStringLen(b.MemberProperty) + 64)
		for _, m := range b.Members {
			rec.charge(jsonStringLen(m) + 1)
		}
	}
	return rec
}

// charge counts n more bytes of the trace; past max the trace is dropped.
func (rec *recorder) charge(n int64) bool {
	if rec.over {
		return false
	}
	rec.size += n
	if rec.size > rec.max {
		rec.over = true
		rec.t.Events, rec.t.Bindings, rec.t.Program, rec.t.Input, rec.t.InputText = nil, nil, "", nil, ""
		return false
	}
	return true
}

// add appends an event that costs n bytes besides its record.
func (rec *recorder) add(ev TraceEvent, n int64) {
	if rec.charge(eventCost + n) {
		rec.t.Events = append(rec.t.Events, ev)
	}
}

// err is the error of a trace that passed max, or nil.
func (rec *recorder) err() error {
	if !rec.over {
		return nil
	}
	return fmt.Errorf("%w: the run's trace passed %d bytes (MaxTraceBytes); the run's result is complete, its trace was dropped", ErrTraceTooBig, rec.max)
}

// finish records the run's outcome and returns the trace.
func (rec *recorder) finish(o Outcome) *Trace {
	rec.t.Outcome = TraceOutcome{Value: o.Value, Logs: o.Logs, Kind: o.Kind, Budget: o.Budget,
		Message: o.Message, Fuel: o.FuelUsed, Calls: o.Calls}
	if rec.t.Outcome.Logs == nil {
		rec.t.Outcome.Logs = []string{}
	}
	return rec.t
}

// observe records a call the program made (hostcalls.Config.Observe).
func (rec *recorder) observe(r *run, ns int, member string, args []byte) int32 {
	b := r.bindings[ns]
	rec.calls++
	rec.secret = append(rec.secret, b.Secret)
	rec.add(TraceEvent{Type: EventCall, Namespace: b.Global, Function: member, Digest: sha256Hex(args), Secret: b.Secret},
		jsonStringLen(b.Global)+jsonStringLen(member)+64)
	return 0
}

// called notes the id the call just recorded got.
func (rec *recorder) called(id int32) {
	for int(id) >= len(rec.ordinal) {
		rec.ordinal = append(rec.ordinal, 0)
	}
	rec.ordinal[id] = rec.calls
}

// beginTurn starts the record of a turn of the run loop, at this fuel.
func (rec *recorder) beginTurn(fuel uint64) {
	rec.turn = -1
	if rec.charge(eventCost) {
		rec.t.Events = append(rec.t.Events, TraceEvent{Type: EventTurn, Fuel: fuel})
		rec.turn = len(rec.t.Events) - 1
	}
}

// delivered records what the turn delivered: ev as the guest gets it.
func (rec *recorder) delivered(ev *hostcalls.Event) {
	if rec.turn < 0 {
		return
	}
	d := Delivery{}
	n := deliveryCost
	switch ev.Kind {
	case hostcalls.EvTimer:
		d.Timer = ev.ID
	default:
		d.Call = rec.ordinal[ev.ID]
		switch {
		case rec.secret[d.Call-1]:
			d.Secret = true
		case ev.Kind == hostcalls.EvResolve && isCompactJSON(ev.Payload):
			d.Resolve, n = ev.Payload, n+int64(len(ev.Payload))
		case ev.Kind == hostcalls.EvResolve:
			d.ResolveText, n = string(ev.Payload), n+jsonStringLen(string(ev.Payload))
		default:
			d.Reject, n = ev.Payload, n+int64(len(ev.Payload))
		}
	}
	if !rec.charge(n) {
		rec.turn = -1
		return
	}
	turn := &rec.t.Events[rec.turn]
	turn.Deliveries = append(turn.Deliveries, d)
}

// clock records a clock reading.
func (rec *recorder) clock(id uint32, ns int64) {
	rec.add(TraceEvent{Type: EventClock, Clock: id, Nanos: ns}, 0)
}

// stop records the run's stop from outside, at place, having spent fuel.
func (rec *recorder) stop(place, kind, b, message string, fuel uint64, logs int) {
	rec.add(TraceEvent{Type: EventStop, Place: place, Kind: kind, Budget: b, Message: message, Fuel: fuel, Logs: logs},
		jsonStringLen(message)+jsonStringLen(kind)+jsonStringLen(b))
}

// external reports whether an outcome of this kind and budget came from
// outside the program (the caller, the clock, the host), so that a replay
// takes it from the trace.
func external(kind, b string) bool {
	return kind == KindAbort || b == BudgetWall || b == BudgetCompute || b == BudgetHost
}

// monotonicBase anchors the monotonic clock of recorded runs.
var monotonicBase = time.Now()

// ClockNanos serves the guest's clocks in a recorded or replayed run, and
// leaves them to the real clock otherwise (quickjs's clock interface).
func (r *run) ClockNanos(id uint32) (int64, bool) {
	if r.rp != nil {
		return r.rp.clock(r, id), true
	}
	if r.rec == nil || id > 1 {
		return 0, false
	}
	ns := time.Now().UnixNano()
	if id == 1 {
		ns = int64(time.Since(monotonicBase))
	}
	r.rec.clock(id, ns)
	return ns, true
}

// recordStop records a stop from outside that settle just decided.
func (r *run) recordStop(kind, b, message string) {
	place := StopAtWait
	switch {
	case r.stopPlace != "":
		place = r.stopPlace
	case r.api == 0:
		place = StopAtStart
	case r.meter.InGuest():
		place = StopAtYield
	}
	r.rec.stop(place, kind, b, message, r.fuelUsed, r.logs.n)
}

// fuelNow is the fuel the run has spent so far, between its guest's steps.
func (r *run) fuelNow() uint64 {
	if r.in == nil || r.in.Fuel() == nil {
		return r.meter.FuelUsed(0)
	}
	return r.meter.FuelUsed(int64(r.in.Fuel().Get()))
}
