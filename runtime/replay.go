package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/internal/quickjs"
)

// Replay. A replayed run (Engine.Replay) runs a trace's program, or an
// edited one, with the trace's budgets, input and declarations, and answers
// from the trace, in its order, everything the recording got from outside:
// the calls' results (their bindings are never called), the turns of the
// run loop and what each delivered, the clocks, the random bytes, the time
// zones, Math.random's seed and a stop from outside. The first thing the
// program does that the trace does not hold at that point ends the run as
// worker-exit, budget replay, with a message that says what the program did,
// where in the program (or that it was waiting, at no position in it), and
// what the recording did there.

// BudgetReplay: a replayed run did what its trace does not hold (worker-exit).
const BudgetReplay = "replay"

// replayer answers a replayed run from its trace.
type replayer struct {
	t      *Trace
	events []TraceEvent // t's
	next   int          // the next event of events
	same   bool         // the program is the recorded one: turns also check the fuel
	idOf   []int32      // the id of each call made (by number, from 1)
	// diverged is the message of the divergence a call just met, which the
	// guest's OP_DIVERGED ends the run with (see run.diverged).
	diverged string
	turns    int
	clocks   int
}

// replayFunc stands for every binding of a replayed run: never called
// (hostcalls.Config.Replay), but a call of a missing function is refused.
func replayFunc(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("coderun: a replayed binding was called")
}

// Replay replays trace t (see above), with program instead of the
// recorded one when it is not empty. It returns an error wrapping
// ErrInvalidTrace for a trace it cannot replay, or ErrClosed.
func (e *Engine) Replay(ctx context.Context, t *Trace, program string) (Outcome, error) {
	limits, err := e.replayLimits(t)
	if err != nil {
		return Outcome{}, err
	}
	bindings, err := replayBindings(t.Bindings)
	if err != nil {
		return Outcome{}, err
	}
	input := t.input()
	if err := checkInput(input, limits.MaxInputBytes); err != nil {
		return Outcome{}, fmt.Errorf("%w: its input: %w", ErrInvalidTrace, err)
	}
	same := program == "" || program == t.Program
	if program == "" {
		program = t.Program
	}
	if err := e.enter(); err != nil {
		return Outcome{}, err
	}
	defer e.leave()
	if ctx.Err() != nil {
		return Outcome{Logs: []string{}, Kind: KindAbort, Message: context.Cause(ctx).Error()}, nil
	}
	r := newRunWithin(ctx, e, program, bindings, limits)
	r.rp = &replayer{t: t, events: t.Events(), same: same}
	r.initCalls()
	if len(input) > 0 {
		r.input = input
	}
	r.rp.arm(r)
	return r.execute(), nil
}

// replayLimits returns the budgets a replay of t runs with: the trace's,
// checked, each no larger than the engine's own, except the time budgets,
// which are the engine's (time is not replayed: a recording's timeout is
// a stop in its trace).
func (e *Engine) replayLimits(t *Trace) (budget.Limits, error) {
	if t == nil || t.Format != TraceFormat || t.Version != TraceVersion {
		return budget.Limits{}, fmt.Errorf("%w: not a %s of version %d", ErrInvalidTrace, TraceFormat, TraceVersion)
	}
	l := t.Config
	l.ComputeTime, l.WallTime = e.limits.ComputeTime, e.limits.WallTime
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("%w: its config: %w", ErrInvalidTrace, err)
	}
	over := func(name string, got, have int64) error {
		return fmt.Errorf("%w: its %s is %d, over this runtime's %d: replay it on a runtime whose Config allows it", ErrInvalidTrace, name, got, have)
	}
	switch {
	case l.Fuel > e.limits.Fuel:
		return l, over("Fuel", int64(min(l.Fuel, math.MaxInt64)), int64(min(e.limits.Fuel, math.MaxInt64)))
	case l.MemoryBytes > e.limits.MemoryBytes:
		return l, over("MemoryBytes", l.MemoryBytes, e.limits.MemoryBytes)
	case l.MaxOutputBytes > e.limits.MaxOutputBytes:
		return l, over("MaxOutputBytes", l.MaxOutputBytes, e.limits.MaxOutputBytes)
	case l.MaxConcurrentCalls > e.limits.MaxConcurrentCalls:
		return l, over("MaxConcurrentCalls", int64(l.MaxConcurrentCalls), int64(e.limits.MaxConcurrentCalls))
	case l.MaxProgramBytes > e.limits.MaxProgramBytes:
		return l, over("MaxProgramBytes", l.MaxProgramBytes, e.limits.MaxProgramBytes)
	case l.MaxArgumentBytes > e.limits.MaxArgumentBytes:
		return l, over("MaxArgumentBytes", l.MaxArgumentBytes, e.limits.MaxArgumentBytes)
	case l.MaxInputBytes > e.limits.MaxInputBytes:
		return l, over("MaxInputBytes", l.MaxInputBytes, e.limits.MaxInputBytes)
	}
	return l, nil
}

// replayBindings declares the trace's namespaces again, with functions that
// are never called, and checks the declaration as Run does.
func replayBindings(tb []TraceBinding) ([]Binding, error) {
	decls := make([]hostcalls.Decl, len(tb))
	bindings := make([]Binding, len(tb))
	for i, b := range tb {
		decls[i] = hostcalls.Decl{Global: b.Global, Members: b.Members, ErrorClass: b.ErrorClass,
			MemberProperty: b.MemberProperty, SharesErrorClass: b.SharesClass}
		fns := make(map[string]Func, len(b.Members))
		for _, m := range b.Members {
			fns[m] = replayFunc
		}
		bindings[i] = Binding{Global: b.Global, Functions: fns, ErrorClass: b.ErrorClass,
			MemberProperty: b.MemberProperty, SharesErrorClass: b.SharesClass, Secret: b.Secret}
	}
	if err := hostcalls.Validate(decls); err != nil {
		return nil, fmt.Errorf("%w: its bindings: %w", ErrInvalidTrace, err)
	}
	return bindings, nil
}

// peek returns the next event, or nil at the end of the trace.
func (rp *replayer) peek() *TraceEvent {
	if rp.next >= len(rp.events) {
		return nil
	}
	return &rp.events[rp.next]
}

// take consumes the next event and arms a stop that comes next.
func (rp *replayer) take(r *run) *TraceEvent {
	ev := &rp.events[rp.next]
	rp.next++
	rp.arm(r)
	return ev
}

// arm makes the guest yield where the next event, a stop while it ran,
// stopped the recording (budget.Meter.StopAt).
func (rp *replayer) arm(r *run) {
	if ev := rp.peek(); ev != nil && ev.Type == EventStop && ev.Place == StopAtYield && ev.Fuel > 0 {
		r.meter.StopAt(ev.Fuel)
	}
}

// describe says what the recording did at event ev (nil: the trace's end),
// for a divergence's message.
func (rp *replayer) describe(ev *TraceEvent) string {
	if ev == nil {
		return "the recording's trace ends there (it made " + strconv.Itoa(rp.callCount()) + " calls in all)"
	}
	switch ev.Type {
	case EventCall:
		return fmt.Sprintf("the recording made call %d, %s.%s with argument sha256:%.16s", len(rp.idOf)+1, ev.Namespace, ev.Function, ev.Digest)
	case EventTurn:
		return fmt.Sprintf("the recording waited there for call results and timers (its turn %d)", rp.turns+1)
	case EventClock:
		return "the recording read the clock there (Date.now, new Date or performance.now)"
	case EventRandom:
		return "the recording read random bytes there (crypto.getRandomValues or randomUUID)"
	case EventZone:
		return "the recording read the time zone " + strconv.Quote(ev.Zone) + " there"
	case EventStop:
		return "the recording was stopped there (" + ev.Kind + ": " + ev.Message + ")"
	}
	return "the trace has an event of unknown type " + strconv.Quote(ev.Type) + " there"
}

// callCount is the number of calls the trace records.
func (rp *replayer) callCount() int {
	n := 0
	for i := range rp.events {
		if rp.events[i].Type == EventCall {
			n++
		}
	}
	return n
}

// diverge ends the run: the program's code did what, which the trace does
// not hold at this point, in a host function it called (a clock, random
// bytes, a time zone); the message says where (see locate).
func (rp *replayer) diverge(r *run, what string) {
	msg := rp.message(what)
	r.stopFor(BudgetReplay, msg+positionText(r.locate()))
}

// waiting ends the message of a divergence met while the program waited
// for its calls and timers: none of its code was running, and what a turn
// delivers (a call's result, a timer's firing) is the host's doing.
const waiting = " (at no position in the program: it was waiting for its calls and timers, and which of them a turn delivers is the host's doing)"

// locateFrames is the Error.stackTraceLimit the guest's locate runs with:
// its frames and the host's above the program's innermost one are a few
// (a program's Error.stackTraceLimit of 0 would otherwise leave none).
const locateFrames = 64

// locate asks the guest, from inside a host function that the program's
// code called, where that code is: the prelude's locate, through a call
// back into the instance (api(LOCATE)). Only a replay that diverged asks.
// It returns the position packed as userPosition does, or -1. A run whose
// outcome was decided meanwhile (locate ran out of fuel or memory) is
// unwound at once.
func (r *run) locate() float64 {
	r.meter.StopAt(0) // a stop the recording met later must not end locate
	if r.api == 0 || r.in == nil {
		return -1
	}
	var v quickjs.Value
	var err error
	call := func() { v, err = r.in.Call(r.api, quickjs.Undefined, quickjs.Int(hostcalls.APILocate)) }
	if !r.in.WithStackTraceLimit(locateFrames, call) {
		call()
	}
	if r.ended {
		panic(errEnded)
	}
	pos, ok := v.Number()
	if err != nil || !ok {
		return -1
	}
	return pos
}

// positionText words packed position pos in the user's source (see
// userPosition) for a divergence's message; pos < 0: no frame of the
// program was running.
func positionText(pos float64) string {
	if !(pos >= 0) {
		return " (at a position the replay could not read: no frame of the program was on the stack there, or its Error.prepareStackTrace was running)"
	}
	col := math.Mod(pos, positionScale)
	return fmt.Sprintf(" (at %s:%d:%d)", programFile, int64((pos-col)/positionScale), int64(col))
}

// message words a divergence.
func (rp *replayer) message(what string) string {
	msg := "replay diverged: the program " + what + ", but " + rp.describe(rp.peek())
	if id := engineIdentity(); id != rp.t.Engine {
		msg += fmt.Sprintf("; the trace was recorded by engine %s (module sha256 %.12s), this is %s (%.12s)",
			rp.t.Engine.QuickJS, rp.t.Engine.ModuleSHA256, id.QuickJS, id.ModuleSHA256)
	}
	return msg
}

// observe answers a call the program made (hostcalls.Config.Observe): it
// must be the trace's next event, the same function with the same
// argument, and not a secret one; otherwise the call is refused with
// CallDiverged and the guest reports where it was made (OP_DIVERGED).
func (rp *replayer) observe(r *run, ns int, member string, args []byte) int32 {
	sum := sha256Hex(args)
	global := r.bindings[ns].Global
	n := len(rp.idOf) + 1
	ev := rp.peek()
	switch {
	case ev == nil || ev.Type != EventCall || ev.Namespace != global || ev.Function != member || ev.Digest != sum:
		rp.diverged = rp.message(fmt.Sprintf("made call %d, %s.%s with argument sha256:%.16s", n, global, member, sum))
	case ev.Secret:
		rp.diverged = fmt.Sprintf("replay cannot go past call %d, %s.%s: its namespace marks its results secret, so the trace does not hold them", n, global, member)
	default:
		rp.take(r)
		return 0
	}
	r.meter.StopAt(0) // a stop the recording met later must not end the guest's locate
	return hostcalls.CallDiverged
}

// called notes the id of the call just answered.
func (rp *replayer) called(id int32) { rp.idOf = append(rp.idOf, id) }

// diverged ends the run with the divergence a call met, where the call
// was made (OP_DIVERGED).
func (r *run) diverged() quickjs.Value {
	if r.rp == nil || r.rp.diverged == "" {
		return quickjs.Int(-1)
	}
	r.stopFor(BudgetReplay, r.rp.diverged+positionText(r.locate()))
	return quickjs.Int(0)
}

// clock answers a clock reading.
func (rp *replayer) clock(r *run, id uint32) int64 {
	ev := rp.peek()
	if ev == nil || ev.Type != EventClock || ev.Clock != id {
		rp.diverge(r, "read the clock")
	}
	rp.clocks++
	return rp.take(r).Nanos
}

// random answers a read of n random bytes, as hexadecimal text.
func (rp *replayer) random(r *run, n int) string {
	ev := rp.peek()
	if ev == nil || ev.Type != EventRandom || len(ev.Hex) != 2*n {
		rp.diverge(r, fmt.Sprintf("read %d random bytes", n))
	}
	if _, err := hex.DecodeString(ev.Hex); err != nil {
		rp.diverge(r, fmt.Sprintf("read %d random bytes", n))
	}
	return rp.take(r).Hex
}

// zone answers a time zone's offset.
func (rp *replayer) zone(r *run, zone string, ms float64) int32 {
	ev := rp.peek()
	if ev == nil || ev.Type != EventZone || ev.Zone != zone || ev.Ms != ms {
		rp.diverge(r, "read the time zone "+strconv.Quote(zone))
	}
	return rp.take(r).Offset
}

// stopNow ends the run with the trace's next event, a stop, where the
// recording was stopped from outside, with the fuel it had spent then.
func (rp *replayer) stopNow(r *run) {
	ev := rp.take(r)
	r.settle(ev.Kind, ev.Budget, ev.Message)
	r.fuelUsed = ev.Fuel
}

// startStop ends a replayed run before its program starts when its
// recording was stopped there.
func (rp *replayer) startStop(r *run) bool {
	if ev := rp.peek(); ev != nil && ev.Type == EventStop && ev.Place == StopAtStart {
		rp.stopNow(r)
		return true
	}
	return false
}

// logStop ends a replayed run after its log entry number n when its
// recording was stopped there (its OnLog hook panicked).
func (rp *replayer) logStop(r *run, n int) {
	if ev := rp.peek(); ev != nil && ev.Type == EventStop && ev.Place == StopAtLog && ev.Logs == n {
		rp.stopNow(r)
		panic(errEnded)
	}
}

// pieceStop ends a replayed run at the piece of a long text (see run.Pace)
// at which its recording was stopped, and reports whether it did.
func (rp *replayer) pieceStop(r *run) bool {
	if ev := rp.peek(); ev != nil && ev.Type == EventStop && ev.Place == StopAtPiece && ev.Pieces == r.pieces {
		rp.stopNow(r)
		return true
	}
	return false
}

// turn hands the run loop the trace's next turn as its batch of events,
// or ends the run: with the recording's stop, or as a divergence when the
// trace's next event is not a turn, or the turn delivers what the program
// is not waiting for. It returns nil when the run ended.
func (rp *replayer) turn(r *run, batch []hostcalls.Event) []hostcalls.Event {
	r.calls.LaunchPending() // counted in flight, never made (hostcalls.Config.Replay)
	if r.calls.Idle() && r.timers.Len() == 0 {
		r.end(KindException, neverSettlesMessage)
		return nil
	}
	ev := rp.peek()
	if ev != nil && ev.Type == EventStop {
		rp.stopNow(r)
		return nil
	}
	if ev == nil || ev.Type != EventTurn {
		r.exhaust(BudgetReplay, rp.message("waited for its calls and timers")+waiting)
		return nil
	}
	if fuel := r.fuelNow(); rp.same && ev.Fuel != fuel {
		r.exhaust(BudgetReplay, rp.message(fmt.Sprintf("had spent %d units of fuel when it waited (turn %d), where the recording had spent %d", fuel, rp.turns+1, ev.Fuel))+waiting)
		return nil
	}
	rp.take(r)
	rp.turns++
	for _, d := range ev.Deliveries {
		e, problem := rp.delivery(r, d)
		if problem != "" {
			clear(batch)
			r.exhaust(BudgetReplay, fmt.Sprintf("replay diverged at turn %d: %s", rp.turns, problem)+waiting)
			return nil
		}
		batch = append(batch, e)
	}
	return batch
}

// delivery makes the event of one delivery of a turn, or says why the
// program cannot take it.
func (rp *replayer) delivery(r *run, d Delivery) (hostcalls.Event, string) {
	if d.Timer > 0 {
		if _, ok := r.timers.byID[d.Timer]; !ok {
			return hostcalls.Event{}, fmt.Sprintf("the recording fired timer %d, which the program has not set or has cleared", d.Timer)
		}
		r.timers.clear(d.Timer)
		return hostcalls.Event{ID: d.Timer, Kind: hostcalls.EvTimer}, ""
	}
	if d.Call < 1 || d.Call > len(rp.idOf) || rp.idOf[d.Call-1] == 0 {
		return hostcalls.Event{}, fmt.Sprintf("the recording delivered the result of call %d, which the program has not made or already got (it made %d calls)", d.Call, len(rp.idOf))
	}
	if d.Secret {
		return hostcalls.Event{}, fmt.Sprintf("the result of call %d is secret, so the trace does not hold it", d.Call)
	}
	kind, payload := hostcalls.EvResolve, []byte(d.Resolve)
	if d.ResolveText != "" {
		payload = []byte(d.ResolveText)
	}
	if d.Reject != nil {
		kind, payload = hostcalls.EvReject, d.Reject
	}
	e, ok := r.calls.Replayed(rp.idOf[d.Call-1], kind, payload)
	if !ok {
		return hostcalls.Event{}, fmt.Sprintf("the recording delivered the result of call %d, which is still waiting for a free MaxConcurrentCalls slot", d.Call)
	}
	rp.idOf[d.Call-1] = 0
	return e, ""
}

// sha256Hex is the SHA-256 of b, in hexadecimal.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// zoneReplayed answers a time zone's offset from the trace.
func (r *run) zoneReplayed(zone string, ms float64) quickjs.Value {
	return quickjs.Int(r.rp.zone(r, zone, ms))
}
