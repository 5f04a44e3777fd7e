package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
	"unsafe"

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
// executeDetached, when the run's goroutine no longer records). Events are
// kept compact, as records in an eventLog (a run of 10,000 calls records
// 20,000 events and 10,000 deliveries), and become the trace's TraceEvents
// when they are first asked for.
type recorder struct {
	t     *Trace
	size  int64 // what the trace holds, counted against max
	max   int64
	over  bool      // the trace passed max: nothing more is recorded
	slots []recSlot // the call at each id
	calls int
	// secret is whether the call being observed is of a secret namespace,
	// until called gives it its id.
	secret bool
	inTurn bool // a turn is being delivered, and recorded
	log    eventLog
	full   []*TraceEvent // the events kept as they are written (recFull)
}

// recSlot is what the recorder knows of the call at an id: its number
// (from 1), and whether its namespace is secret.
type recSlot struct {
	ordinal int32
	secret  bool
}

// recordCost and deliveryRecordCost are what the recorder's record of an
// event and of a delivery are counted at besides their payloads: more
// than the longest of them (see eventLogHeader).
const (
	recordCost         = 80
	deliveryRecordCost = 24
)

// newRecorder starts the trace of a run of program.
func newRecorder(e *Engine, program string, input []byte, bindings []Binding, max int64) *recorder {
	rec := &recorder{max: max, t: &Trace{
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
		rec.log, rec.inTurn, rec.full = eventLog{}, false, nil
		rec.t.Bindings, rec.t.Program, rec.t.Input, rec.t.InputText = nil, "", nil, ""
		return false
	}
	return true
}

// eventCost is what one event costs against MaxTraceBytes besides its
// texts: its records in memory (the recorder's, then the trace's), which
// are more than its JSON's fixed part.
const eventCost = int64(unsafe.Sizeof(TraceEvent{})) + recordCost

// deliveryCost is what one delivery costs besides its payload.
const deliveryCost = int64(unsafe.Sizeof(Delivery{})) + deliveryRecordCost

// add appends an event kept as it is written, which costs n bytes besides
// its records.
func (rec *recorder) add(ev TraceEvent, n int64) {
	if rec.charge(eventCost + n) {
		rec.log.full(len(rec.full))
		rec.full = append(rec.full, &ev)
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
	if !rec.over {
		rec.t.events = &eventList{rec: rec}
	}
	return rec.t
}

// traceEvents is what the recorder kept, as the trace's events.
func (rec *recorder) traceEvents() []TraceEvent {
	events := make([]TraceEvent, 0, rec.log.events)
	deliveries := make([]Delivery, 0, rec.log.deliveries)
	turn, first := -1, 0 // the last turn's event, and its first delivery
	rec.log.eachRecord(func(r *logRecord) {
		switch r.typ {
		case recCall:
			b := rec.t.Bindings[r.a]
			var digest [32]byte
			if r.flags&logDigest != 0 {
				digest = [32]byte(r.digest)
			} else {
				digest = sha256.Sum256(r.payload)
			}
			events = append(events, TraceEvent{Type: EventCall, Namespace: b.Global, Function: b.Members[r.b],
				Digest: hex.EncodeToString(digest[:]), Secret: r.flags&logSecret != 0})
		case recTurn:
			turn, first = len(events), len(deliveries)
			events = append(events, TraceEvent{Type: EventTurn, Fuel: uint64(r.a)})
		case recDelivery:
			deliveries = append(deliveries, delivery(r))
			events[turn].Deliveries = deliveries[first:len(deliveries):len(deliveries)]
		case recClock:
			events = append(events, TraceEvent{Type: EventClock, Clock: uint32(r.a), Nanos: r.b})
		case recFull:
			events = append(events, *rec.full[r.a])
		}
	})
	return events
}

// delivery is a delivery's record as the trace's Delivery.
func delivery(r *logRecord) Delivery {
	switch {
	case int(r.kind) == hostcalls.EvTimer:
		return Delivery{Timer: int32(r.a)}
	case r.flags&logSecret != 0:
		return Delivery{Call: int(r.a), Secret: true}
	case int(r.kind) == hostcalls.EvResolve && isCompactJSON(r.payload):
		return Delivery{Call: int(r.a), Resolve: r.payload}
	case int(r.kind) == hostcalls.EvResolve:
		return Delivery{Call: int(r.a), ResolveText: string(r.payload)}
	}
	return Delivery{Call: int(r.a), Reject: r.payload}
}

// observe records a call the program made (hostcalls.Config.Observe).
func (rec *recorder) observe(r *run, ns int, member string, args []byte) int32 {
	secret := r.bindings[ns].Secret
	rec.calls++
	rec.secret = secret
	// Six bytes a byte bound the names' JSON without reading them.
	if !rec.charge(eventCost + 6*int64(len(r.bindings[ns].Global)+len(member)) + 64) {
		return 0
	}
	m, _ := slices.BinarySearch(rec.t.Bindings[ns].Members, member) // sorted as the guest numbers them
	var flags byte
	if secret {
		flags |= logSecret
	}
	if len(args) >= eventLogBig || !rec.charge(int64(len(args))) {
		// Hashed now: the argument is not kept (the small ones are hashed
		// when the trace's events are made, off the run).
		digest := sha256.Sum256(args)
		flags, args = flags|logDigest, digest[:]
	}
	if !rec.over {
		rec.log.call(flags, ns, m, args)
	}
	return 0
}

// called notes the id the call just recorded got.
func (rec *recorder) called(id int32) {
	for int(id) >= len(rec.slots) {
		rec.slots = append(rec.slots, recSlot{})
	}
	rec.slots[id] = recSlot{ordinal: int32(rec.calls), secret: rec.secret}
}

// beginTurn starts the record of a turn of the run loop, at this fuel.
func (rec *recorder) beginTurn(fuel uint64) {
	rec.inTurn = rec.charge(eventCost)
	if rec.inTurn {
		rec.log.turn(fuel)
	}
}

// delivered records what the turn delivered: ev as the guest gets it.
func (rec *recorder) delivered(ev *hostcalls.Event) {
	if !rec.inTurn {
		return
	}
	id, payload, n := ev.ID, []byte(nil), int64(deliveryCost)
	var flags byte
	if ev.Kind != hostcalls.EvTimer {
		slot := rec.slots[ev.ID]
		id = slot.ordinal
		if slot.secret {
			flags = logSecret
		} else {
			payload = ev.Payload
			// At most 6 bytes of JSON per byte, when it is written as a string.
			n += int64(len(payload))
			if !isCompactJSON(payload) {
				n += 5 * int64(len(payload))
			}
		}
	}
	if rec.inTurn = rec.charge(n); rec.inTurn {
		rec.log.delivery(ev.Kind, flags, id, payload)
	}
}

// clock records a clock reading.
func (rec *recorder) clock(id uint32, ns int64) {
	if rec.charge(eventCost) {
		rec.log.clock(id, ns)
	}
}

// stop records the run's stop from outside, at place, having spent fuel,
// kept logs entries and read or copied pieces pieces of long texts.
func (rec *recorder) stop(place, kind, b, message string, fuel uint64, logs, pieces int) {
	rec.add(TraceEvent{Type: EventStop, Place: place, Kind: kind, Budget: b, Message: message, Fuel: fuel, Logs: logs, Pieces: pieces},
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
	r.rec.stop(place, kind, b, message, r.fuelUsed, r.logs.n, r.pieces)
}

// fuelNow is the fuel the run has spent so far, between its guest's steps.
func (r *run) fuelNow() uint64 {
	if r.in == nil || r.in.Fuel() == nil {
		return r.meter.FuelUsed(0)
	}
	return r.meter.FuelUsed(int64(r.in.Fuel().Get()))
}
