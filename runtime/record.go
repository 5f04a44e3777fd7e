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
// kept compact, in chunks that never move (a run of 10,000 calls records
// 20,000 events), and become the trace's TraceEvents when the run ends.
type recorder struct {
	t          *Trace
	size       int64 // what the trace holds, counted against max
	max        int64
	over       bool  // the trace passed max: nothing more is recorded
	ordinal    []int // the call number (from 1) of the call at each id
	secret     []bool
	calls      int
	turn       *recEvent // the turn being delivered, or nil
	events     chunks[recEvent]
	deliveries chunks[recDelivery]
	payloads   payloadArena
	full       []*TraceEvent // the events kept as they are written (recFull)
}

// recEvent is one event as the recorder keeps it (see TraceEvent). It
// holds no pointer, so that the garbage collector never scans the chunks
// of them.
type recEvent struct {
	typ    uint8 // recCall, …
	secret bool
	ns     int32 // call: the namespace's index; clock: the clock
	member int32 // call: the member's index in the trace's bindings
	count  int32 // turn: its deliveries, from first
	first  int32 // turn: its first delivery; recFull: the index in full
	n      int64 // turn: fuel; clock: nanoseconds
	// call: the argument's SHA-256, or, for a small argument, where its
	// text is (hashed when the trace's events are made, off the run).
	digest [32]byte
	args   payloadRef
}

// The types of recEvent.
const (
	recCall = iota
	recTurn
	recClock
	recFull
)

// recDelivery is one delivery of a turn (see Delivery); its payload is in
// the recorder's payloadArena. It holds no pointer.
type recDelivery struct {
	call, timer int32
	kind        uint8
	secret      bool
	payload     payloadRef
}

// payloadArena keeps copies of the payloads of a trace: small ones in
// blocks (so that the collector has a few blocks to scan rather than one
// object per result), big ones each in its own.
type payloadArena struct {
	blocks [][]byte
	big    [][]byte
}

// payloadRef is where a payload is in a payloadArena: in block blk
// (from 1) at off, or, when blk is negative, big[-blk-1].
type payloadRef struct{ blk, off, n int32 }

// The largest of payloadArena's blocks, and the least payload that
// is copied to a block of its own (also the first block's size).
const (
	arenaBlock = 64 << 10
	arenaBig   = 4 << 10
)

// put keeps b and returns where.
func (a *payloadArena) put(b []byte) payloadRef {
	if len(b) >= arenaBig {
		// A copy: the host's buffer is the binding's, which may reuse it
		// once the result is delivered.
		a.big = append(a.big, append([]byte(nil), b...))
		return payloadRef{blk: -int32(len(a.big)), n: int32(len(b))}
	}
	if n := len(a.blocks); n == 0 || len(a.blocks[n-1])+len(b) > cap(a.blocks[n-1]) {
		size := arenaBig // the first block; each next one doubles, up to arenaBlock
		if n > 0 {
			size = min(arenaBlock, 2*cap(a.blocks[n-1]))
		}
		a.blocks = append(a.blocks, make([]byte, 0, size))
	}
	last := &a.blocks[len(a.blocks)-1]
	off := len(*last)
	*last = append(*last, b...)
	return payloadRef{blk: int32(len(a.blocks)), off: int32(off), n: int32(len(b))}
}

// get returns the payload at ref.
func (a *payloadArena) get(ref payloadRef) []byte {
	switch {
	case ref.blk < 0:
		return a.big[-ref.blk-1]
	case ref.blk == 0:
		return nil
	}
	return a.blocks[ref.blk-1][ref.off : ref.off+ref.n : ref.off+ref.n]
}

// chunkLen is the length of a chunk of recorded events.
const chunkLen = 256

// chunks is a list that grows by chunks of chunkLen, never copying what
// it holds.
type chunks[T any] struct {
	c [][]T
	n int
}

// add appends a zero T and returns it.
func (c *chunks[T]) add() *T {
	if c.n%chunkLen == 0 {
		c.c = append(c.c, make([]T, chunkLen))
	}
	c.n++
	return &c.c[(c.n-1)/chunkLen][(c.n-1)%chunkLen]
}

// at returns element i.
func (c *chunks[T]) at(i int) *T { return &c.c[i/chunkLen][i%chunkLen] }

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
		rec.events, rec.deliveries, rec.payloads, rec.turn, rec.full = chunks[recEvent]{}, chunks[recDelivery]{}, payloadArena{}, nil, nil
		rec.t.Bindings, rec.t.Program, rec.t.Input, rec.t.InputText = nil, "", nil, ""
		return false
	}
	return true
}

// eventCost is what one event costs against MaxTraceBytes besides its
// texts: its records in memory (the recorder's, then the trace's), which
// are more than its JSON's fixed part.
const eventCost = int64(unsafe.Sizeof(TraceEvent{}) + unsafe.Sizeof(recEvent{}))

// deliveryCost is what one delivery costs besides its payload.
const deliveryCost = int64(unsafe.Sizeof(Delivery{}) + unsafe.Sizeof(recDelivery{}))

// add appends an event kept as it is written, which costs n bytes besides
// its records.
func (rec *recorder) add(ev TraceEvent, n int64) {
	if rec.charge(eventCost + n) {
		*rec.events.add() = recEvent{typ: recFull, first: int32(len(rec.full))}
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
	events := make([]TraceEvent, rec.events.n)
	deliveries := make([]Delivery, rec.deliveries.n)
	for i := range deliveries {
		d := rec.deliveries.at(i)
		out, payload := &deliveries[i], rec.payloads.get(d.payload)
		switch {
		case d.kind == hostcalls.EvTimer:
			out.Timer = d.timer
		case d.secret:
			out.Call, out.Secret = int(d.call), true
		case d.kind == hostcalls.EvResolve && isCompactJSON(payload):
			out.Call, out.Resolve = int(d.call), payload
		case d.kind == hostcalls.EvResolve:
			out.Call, out.ResolveText = int(d.call), string(payload)
		default:
			out.Call, out.Reject = int(d.call), payload
		}
	}
	for i := range events {
		ev, out := rec.events.at(i), &events[i]
		switch ev.typ {
		case recCall:
			b := rec.t.Bindings[ev.ns]
			if ev.args.blk != 0 {
				ev.digest = sha256.Sum256(rec.payloads.get(ev.args))
			}
			*out = TraceEvent{Type: EventCall, Namespace: b.Global, Function: b.Members[ev.member], Digest: hex.EncodeToString(ev.digest[:]), Secret: ev.secret}
		case recTurn:
			*out = TraceEvent{Type: EventTurn, Fuel: uint64(ev.n), Deliveries: deliveries[ev.first : ev.first+ev.count : ev.first+ev.count]}
		case recClock:
			*out = TraceEvent{Type: EventClock, Clock: uint32(ev.ns), Nanos: ev.n}
		default:
			*out = *rec.full[ev.first]
		}
	}
	return events
}

// observe records a call the program made (hostcalls.Config.Observe).
func (rec *recorder) observe(r *run, ns int, member string, args []byte) int32 {
	secret := r.bindings[ns].Secret
	rec.calls++
	rec.secret = append(rec.secret, secret)
	// Six bytes a byte bound the names' JSON without reading them.
	if rec.charge(eventCost + 6*int64(len(r.bindings[ns].Global)+len(member)) + 64) {
		m, _ := slices.BinarySearch(rec.t.Bindings[ns].Members, member) // sorted as the guest numbers them
		ev := rec.events.add()
		*ev = recEvent{typ: recCall, ns: int32(ns), member: int32(m), secret: secret}
		if len(args) < arenaBig && rec.charge(int64(len(args))) {
			ev.args = rec.payloads.put(args)
		} else {
			ev.digest = sha256.Sum256(args)
		}
	}
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
	rec.turn = nil
	if rec.charge(eventCost) {
		rec.turn = rec.events.add()
		*rec.turn = recEvent{typ: recTurn, n: int64(fuel), first: int32(rec.deliveries.n)}
	}
}

// delivered records what the turn delivered: ev as the guest gets it.
func (rec *recorder) delivered(ev *hostcalls.Event) {
	if rec.turn == nil {
		return
	}
	d := recDelivery{kind: uint8(ev.Kind)}
	n := deliveryCost
	if ev.Kind == hostcalls.EvTimer {
		d.timer = ev.ID
	} else {
		d.call = int32(rec.ordinal[ev.ID])
		if d.secret = rec.secret[d.call-1]; !d.secret {
			// At most 6 bytes of JSON per byte, when it is written as a string.
			n += int64(len(ev.Payload))
			if !isCompactJSON(ev.Payload) {
				n += 5 * int64(len(ev.Payload))
			}
		}
	}
	if !rec.charge(n) {
		rec.turn = nil
		return
	}
	if ev.Kind != hostcalls.EvTimer && !d.secret {
		d.payload = rec.payloads.put(ev.Payload)
	}
	*rec.deliveries.add() = d
	rec.turn.count++
}

// clock records a clock reading.
func (rec *recorder) clock(id uint32, ns int64) {
	if rec.charge(eventCost) {
		*rec.events.add() = recEvent{typ: recClock, ns: int32(id), n: ns}
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
