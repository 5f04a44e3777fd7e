package hostcalls

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/serialize"
)

// Func is a binding's Go function: it takes the call's argument and returns
// its result, both JSON text (see runtime.Func, the same type).
type Func = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// Account is the run's memory account, which a call's argument, record and
// result are charged to (budget.Memory is one).
type Account interface {
	// Charge adds n bytes, or reports false and adds nothing when they do
	// not fit.
	Charge(n int64) bool
	// Release gives back n bytes charged earlier.
	Release(n int64)
	// Limit is the account's limit (MemoryBytes).
	Limit() int64
	// NoRoom words the refusal of what, n bytes that did not fit.
	NoRoom(what string, n int64) string
}

// Guest is the run's side of reading a call's argument from its instance.
type Guest interface {
	// PlainJSON returns the JSON text of v if
	// quickjs.Instance.AppendPlainJSONUpTo can read it within max bytes.
	PlainJSON(v quickjs.Value, max int) ([]byte, bool)
	// ViewText passes the bytes of the guest string v to f, reading a long
	// one in pieces; it returns false if the run ended meanwhile.
	ViewText(v quickjs.Value, f func([]byte)) bool
	// CopyText returns the host's copy of b, a view of the guest's memory,
	// made in pieces; nil if the run ended meanwhile.
	CopyText(b []byte) []byte
	// Pace is called after each piece of a big text: it ends the run, and
	// reports true, when the run must stop.
	Pace() bool
}

// Config is what a run's calls need to know of it.
type Config struct {
	Ctx     context.Context // the run's ctx, which every binding gets
	Guest   Guest
	Account Account
	// MaxArgumentBytes bounds a call's argument text, MaxConcurrentCalls
	// the calls in flight at once (budget.Limits).
	MaxArgumentBytes   int64
	MaxConcurrentCalls int
	// Piece is the size of the pieces big texts are checked in.
	Piece int
	// Observe, when set, sees every call the guest makes that passed its
	// checks, before it gets an id: namespace ns's member, and the
	// argument's JSON text (which it must not keep). It returns 0 to let
	// the call go on, or a Call* result to refuse it (CallDiverged). A run
	// that records or replays sets it; nil costs a call nothing.
	Observe func(ns int, member string, args []byte) int32
	// Replay: the calls are never made. Launching one only counts it in
	// flight; its completion is whatever the run hands [Calls.Replayed].
	Replay bool
}

// MaxValueInPlace bounds the text of a program's value, and of a binding
// call's argument, that the host reads in place (see [Calls.Start]): larger
// values go to the guest's printer, which spends fuel and can be
// interrupted, so that no run's end holds the host for more than about a
// millisecond.
const MaxValueInPlace = 256 << 10

// callCost is what the run's memory is charged for a call besides its
// argument and result: the call's record, its completion, and a rejection
// message of the host's making.
const callCost = 256

// Event is a completed call or a fired timer, for the guest.
type Event struct {
	ID      int32
	Kind    int
	Payload []byte // JSON text
	Charge  int64  // charged to the run's memory until delivered (see Invoke)
}

// Call is one binding call, from the guest's call operation until its
// completion.
type Call struct {
	id     int32
	fn     Func
	args   []byte
	member string
}

// namespace is one binding's functions, in the order the guest numbers
// them.
type namespace struct {
	members []string
	fns     []Func
}

// refusal holds the figures of the last CallTooBig or CallNoMemory.
type refusal struct{ bytes, limit int64 }

// Calls is the life of a run's binding calls: their admission, ids, queue,
// goroutines, invocation and the check of their results. All its methods
// are used from the run's goroutine only; the calls' goroutines use only
// its events channel, its finished channel and its goexited flag.
type Calls struct {
	cfg        Config
	namespaces []namespace
	refused    refusal
	ids        int32   // call ids handed out so far (see newID)
	freeIDs    []int32 // call ids whose results were delivered, for reuse
	inflight   int
	made       int     // calls made, for Outcome.Calls
	pending    []*Call // made by the guest since it last yielded, not started yet
	queue      []*Call // waiting for a free MaxConcurrentCalls slot
	// events carries the completions of calls on goroutines of their own,
	// and finished is closed when the run ends; both are made by the first
	// such call (see launch).
	events   chan Event
	finished chan struct{}
	// goexited is set by a call's goroutine whose binding called
	// runtime.Goexit.
	goexited atomic.Bool
	// replayed holds a replayed run's calls in flight, at their ids
	// (Config.Replay).
	replayed []*Call
}

// Init readies c for a run.
func (c *Calls) Init(cfg Config) { c.cfg = cfg }

// AddNamespace adds a binding's functions and returns their names in the
// order the guest numbers them.
func (c *Calls) AddNamespace(fns map[string]Func) []string {
	ns := namespace{members: make([]string, 0, len(fns)), fns: make([]Func, 0, len(fns))}
	for name := range fns {
		ns.members = append(ns.members, name)
	}
	// In order of name, not of the map: the namespace object's keys, and
	// so every run of a program, are then the same each time.
	slices.Sort(ns.members)
	for _, name := range ns.members {
		ns.fns = append(ns.fns, fns[name])
	}
	c.namespaces = append(c.namespaces, ns)
	return ns.members
}

// Made is the number of calls made.
func (c *Calls) Made() int { return c.made }

// Idle reports whether no call is in flight or queued.
func (c *Calls) Idle() bool { return c.inflight == 0 && len(c.queue) == 0 }

// Events is the channel the completions of calls on goroutines of their
// own arrive on; nil before the first such call.
func (c *Calls) Events() <-chan Event { return c.events }

// Goexited reports whether a call's binding called runtime.Goexit: the
// run fails.
func (c *Calls) Goexited() bool { return c.goexited.Load() }

// Start validates a call of member m of namespace ns and records it as
// pending; it starts when the guest yields or, if the guest keeps
// computing, at its next fuel yield (see [Calls.LaunchPending]). The
// argument arg is JSON text, or, when inPlace is set, the value itself,
// which is printed here if the guest can read it within MaxValueInPlace
// bytes. It returns the call id or one of the Call* results.
//
// The host's copy of the argument is charged to the run's memory from the
// moment it is made until the call returns, before which it is checked
// against MaxArgumentBytes; a call whose copy is too big or does not fit
// is refused, and the guest rejects it with a message naming the limit.
// Big texts are copied and checked in pieces.
func (c *Calls) Start(ns, m int, arg quickjs.Value, inPlace bool) int32 {
	if ns < 0 || ns >= len(c.namespaces) || m < 0 || m >= len(c.namespaces[ns].members) {
		return CallRefused
	}
	fn := c.namespaces[ns].fns[m]
	if fn == nil {
		return CallRefused
	}
	var args []byte
	code := int32(0)
	if inPlace {
		args, code = c.readPlain(arg)
	} else {
		if !arg.IsString() {
			return CallRefused
		}
		if !c.cfg.Guest.ViewText(arg, func(b []byte) { args, code = c.readArgument(b) }) {
			return CallInterrupted
		}
	}
	if code == 0 && c.cfg.Observe != nil {
		if code = c.cfg.Observe(ns, c.namespaces[ns].members[m], args); code != 0 {
			c.cfg.Account.Release(callCost + int64(cap(args)))
		}
	}
	if code != 0 {
		return code
	}
	call := &Call{id: c.newID(), fn: fn, args: args, member: c.namespaces[ns].members[m]}
	c.made++
	c.pending = append(c.pending, call)
	return call.id
}

// readPlain reads the argument value v in place, admits it and checks it.
// On a refusal it returns its code and keeps nothing charged.
func (c *Calls) readPlain(v quickjs.Value) ([]byte, int32) {
	args, ok := c.cfg.Guest.PlainJSON(v, MaxValueInPlace)
	if !ok {
		return nil, CallNeedsText
	}
	if code := c.admit(len(args), cap(args)); code != 0 {
		return nil, code
	}
	// Also for text printed here: Go's rules for arguments are stricter
	// than the guest's (no lone surrogate, no number beyond 2^53).
	if serialize.CheckJSON(args) != nil {
		c.cfg.Account.Release(callCost + int64(cap(args)))
		return nil, CallRefused
	}
	return args, 0
}

// readArgument admits and copies the argument text b, a view of the
// guest's memory, and checks the copy. On a refusal it returns its code and
// keeps nothing charged; CallInterrupted if the run ended meanwhile.
func (c *Calls) readArgument(b []byte) ([]byte, int32) {
	if code := c.admit(len(b), len(b)); code != 0 {
		return nil, code
	}
	args := c.cfg.Guest.CopyText(b)
	if args == nil {
		return nil, CallInterrupted
	}
	switch err := c.checkText(args); err {
	case nil:
		return args, 0
	case errPaused:
		return nil, CallInterrupted
	}
	c.cfg.Account.Release(callCost + int64(len(b)))
	return nil, CallRefused
}

// admit checks an argument whose text is n bytes against
// MaxArgumentBytes, and charges the run's memory for a call whose copy of
// it holds size bytes. It returns 0, or the refusal's code.
func (c *Calls) admit(n, size int) int32 {
	if int64(n) > c.cfg.MaxArgumentBytes {
		c.refused = refusal{bytes: int64(n), limit: c.cfg.MaxArgumentBytes}
		return CallTooBig
	}
	if !c.cfg.Account.Charge(callCost + int64(size)) {
		c.refused = refusal{bytes: int64(n), limit: c.cfg.Account.Limit()}
		return CallNoMemory
	}
	return 0
}

// Refusal returns a figure of the last refusal for the guest's message
// (OpRefusal): its bytes (which 0) or the limit it broke (which 1).
func (c *Calls) Refusal(which int) int64 {
	if which == 1 {
		return c.refused.limit
	}
	return c.refused.bytes
}

// newID returns a call id not in use: the one freed last, or else the next
// new one (ids start at 1). Ids therefore never exceed the most calls ever
// pending at once, and the guest keeps its pending calls in dense arrays.
func (c *Calls) newID() int32 {
	if n := len(c.freeIDs); n > 0 {
		id := c.freeIDs[n-1]
		c.freeIDs = c.freeIDs[:n-1]
		return id
	}
	c.ids++
	return c.ids
}

// Returned frees the call whose completion ev is about to be delivered
// (the guest frees its record of the call before it runs any code, so the
// id can be handed out again at once), starts the queued calls the freed
// slot lets start, and checks the result (see checkResult).
func (c *Calls) Returned(ev *Event) {
	c.inflight--
	c.freeIDs = append(c.freeIDs, ev.ID)
	c.startQueued()
	c.checkResult(ev)
}

// checkResult turns a resolution that is not lossless JSON into a
// rejection; a big one is checked in pieces, and the run may end
// meanwhile.
func (c *Calls) checkResult(ev *Event) {
	if ev.Kind != EvResolve {
		return
	}
	if ev.Payload == nil {
		ev.Kind, ev.Payload = EvReject, jsonString("binding resolution must be lossless JSON")
		return
	}
	switch err := c.checkText(ev.Payload); err {
	case nil, errPaused:
	default:
		ev.Kind, ev.Payload = EvReject, jsonString("binding resolution must be lossless JSON")
	}
}

// checkText is serialize.CheckJSON for b, in pieces when b is big. When the
// run ended meanwhile it returns errPaused.
func (c *Calls) checkText(b []byte) error {
	if len(b) <= c.cfg.Piece {
		return serialize.CheckJSON(b)
	}
	return serialize.CheckJSONPaced(b, c.cfg.Piece, c.pause)
}

// pause is the pause of a paced check: errPaused once the run must end.
func (c *Calls) pause() error {
	if c.cfg.Guest.Pace() {
		return errPaused
	}
	return nil
}

// errPaused stops a paced check when the run ended.
var errPaused = errors.New("coderun: run ended during a check")

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
