package hostcalls

import (
	"context"
	"encoding/json"
	"fmt"
)

// LaunchPending starts the calls the guest made since it last yielded, in
// the order it made them, or queues those past MaxConcurrentCalls.
func (c *Calls) LaunchPending() {
	for i, call := range c.pending {
		c.pending[i] = nil
		if c.inflight < c.cfg.MaxConcurrentCalls {
			c.launch(call)
		} else {
			c.queue = append(c.queue, call)
		}
	}
	c.pending = c.pending[:0]
}

// HasPending reports whether the guest made calls since it last yielded.
func (c *Calls) HasPending() bool { return len(c.pending) > 0 }

func (c *Calls) startQueued() {
	for len(c.queue) > 0 && c.inflight < c.cfg.MaxConcurrentCalls {
		call := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.launch(call)
	}
}

// launch runs a host function on its own goroutine with the run's ctx. Its
// result is handed to the run loop, or dropped if the run has settled (see
// [Calls.Close]). A function that calls runtime.Goexit marks the run (see
// [Calls.Goexited]) and wakes its loop with an EvGoexit event.
func (c *Calls) launch(call *Call) {
	c.inflight++
	if c.cfg.Replay {
		for int(call.id) >= len(c.replayed) {
			c.replayed = append(c.replayed, nil)
		}
		c.replayed[call.id] = call
		return
	}
	if c.events == nil { // the first call on a goroutine of its own: most runs make none
		c.events, c.finished = make(chan Event, 64), make(chan struct{})
	}
	ctx, events, finished, goexited, account := c.cfg.Ctx, c.events, c.finished, &c.goexited, c.cfg.Account
	go func() {
		var ev Event
		returned := false
		defer func() {
			if !returned { // runtime.Goexit: Invoke recovers every panic
				goexited.Store(true)
				ev = Event{ID: call.id, Kind: EvGoexit}
			}
			select {
			case events <- ev:
			case <-finished:
				account.Release(ev.Charge) // the run is over: the result is dropped
			}
		}()
		ev = invoke(ctx, call, account)
		returned = true
	}()
}

// Invoke makes the call on the calling goroutine (see invoke).
func (c *Calls) Invoke(call *Call) Event { return invoke(c.cfg.Ctx, call, c.cfg.Account) }

// invoke makes the call. From then on the run's memory is charged for the
// result instead of the argument, until the result is delivered; a result
// that does not fit becomes a rejection that says so.
func invoke(ctx context.Context, call *Call, account Account) (ev Event) {
	ev.ID = call.id
	defer func() {
		if p := recover(); p != nil {
			ev.Kind = EvReject
			ev.Payload = jsonString(fmt.Sprintf("binding %q panicked: %v", call.member, p))
		}
		account.Release(int64(cap(call.args)))
		call.args = nil
		ev.Charge = callCost
		if n := int64(len(ev.Payload)); !account.Charge(n) {
			ev.Kind = EvReject
			ev.Payload = jsonString(account.NoRoom("binding result", n))
		} else {
			ev.Charge += n
		}
	}()
	res, err := call.fn(ctx, call.args)
	if err != nil {
		ev.Kind, ev.Payload = EvReject, jsonString(err.Error())
		return ev
	}
	// The run's goroutine checks res (see checkResult): CheckJSON's frame
	// would make this fresh goroutine grow its stack on every call.
	ev.Kind, ev.Payload = EvResolve, res
	return ev
}

// Lone takes the one pending call when it is all the guest waits for
// besides what waiting reports (no call in flight or queued), and counts it
// in flight, for the run to make inline (see [Calls.Invoke]); nil when
// there is no such call. A call taken and not made goes back with
// [Calls.Unlone].
func (c *Calls) Lone() *Call {
	if len(c.pending) != 1 || !c.Idle() {
		return nil
	}
	call := c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[:0]
	c.inflight++
	return call
}

// Unlone puts back a call taken by [Calls.Lone] and not made.
func (c *Calls) Unlone(call *Call) {
	c.inflight--
	c.pending = append(c.pending, call)
}

// Close ends the calls' part of a run. Calls made just before the run
// settled still start, as they would have had the guest yielded: they
// belong to the caller now. Results that arrived and were never delivered
// are dropped, and their charges released. (One that a call's goroutine
// sends just after this stays charged to an account nothing reads any
// more.)
func (c *Calls) Close() {
	c.LaunchPending()
	if c.finished != nil {
		close(c.finished)
	}
	for more := true; more; {
		select {
		case ev := <-c.events:
			c.cfg.Account.Release(ev.Charge)
		default:
			more = false
		}
	}
}

// Replayed returns the completion of the replayed call in flight with this
// id, of the given kind and payload (Config.Replay), charged to the run's
// memory as a binding's result is (see invoke); false when no call with
// this id is in flight.
func (c *Calls) Replayed(id int32, kind int, payload []byte) (Event, bool) {
	if id <= 0 || int(id) >= len(c.replayed) || c.replayed[id] == nil {
		return Event{}, false
	}
	call := c.replayed[id]
	c.replayed[id] = nil
	return invoke(c.cfg.Ctx, &Call{id: id, args: call.args, member: call.member, fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		if kind == EvResolve {
			return payload, nil
		}
		return nil, replayedError(payload)
	}}, c.cfg.Account), true
}

// replayedError is a recorded rejection, whose message is the JSON text of
// a string.
type replayedError []byte

func (e replayedError) Error() string {
	var s string
	if json.Unmarshal(e, &s) != nil {
		return string(e)
	}
	return s
}
