package hostcalls

import (
	"strconv"
	"strings"
)

// The guest/host protocol: the numbers the prelude (runtime/prelude.js) and
// the host exchange. These constants are its only source: the prelude gets
// them as JavaScript constants of the same names (see [Protocol] and
// [PreludeConstants]), declared around it when the engine's snapshot is
// built.

// Host operations: the first operand of every call of the prelude's host
// function.
const (
	OpLog   = 1
	OpCall  = 2
	OpTimer = 3
	OpClear = 4
	OpDone  = 5
	// OpCallValue is OpCall with the argument value instead of its text.
	OpCallValue = 6
	// OpDoneValue is OpDone with the completion value instead of its text.
	OpDoneValue = 7
	// OpRefusal returns a figure of the last call refused for its size.
	OpRefusal = 8
	// OpPosition maps a position in the program's script to the user's
	// source.
	OpPosition = 9
	// OpWeb returns the factory of a group of web globals (runtime/web.go).
	OpWeb = 10
	// OpRandom returns n bytes from crypto/rand, as hexadecimal text.
	OpRandom = 11
	// OpTimeZone returns the UTC offset, in seconds, of a time zone at an
	// instant (runtime/timezone.go).
	OpTimeZone = 12
	// OpDiverged ends a replayed run whose program made a call the trace
	// does not hold (see CallDiverged); the host asks where the call was
	// made (APILocate).
	OpDiverged = 13
)

// Completion kinds reported by the prelude with OpDone.
const (
	DoneValue = iota
	DoneNone
	DoneThrow
	DoneInvalid
	DoneUnrenderable
)

// Operations of the prelude's api function, called by the host.
const (
	APIStart   = 1
	APIDeliver = 2
	APIRender  = 3
	// APILocate returns the position of the program's innermost frame in
	// the user's source, packed as OpPosition returns it, or -1 when the
	// guest found none: a replayed run asks for it, from inside a host
	// function that the program's code called, when the trace does not
	// hold what that code did (a call, a read of a clock, random bytes or
	// a time zone), and only then. It is OpDiverged's number, which the
	// prelude knows as OP_DIVERGED: a name of its own would be one more
	// atom in the snapshot, which moves QuickJS's atom hash buckets and
	// with them the fuel of programs that never replay (runtime's
	// TestWebGlobalsCostUnusedNothing).
	APILocate = OpDiverged
)

// Event kinds the host delivers to the guest with APIDeliver.
const (
	EvResolve = 0
	EvReject  = 1
	EvTimer   = 2
	// EvGoexit is never delivered: a call's binding called runtime.Goexit,
	// which ends the run (see [Calls.Goexited]).
	EvGoexit = 3
)

// Results of a call operation (OpCall, OpCallValue) besides a call id. The
// guest rejects a refused call; for CallTooBig and CallNoMemory it asks for
// the figures its message names with OpRefusal.
const (
	CallRefused   = -1 // not a valid call, or its argument is not lossless JSON
	CallNeedsText = -2 // the value is not read in place: print it and call again
	CallTooBig    = -3 // the argument's text is over MaxArgumentBytes
	CallNoMemory  = -4 // a copy of the argument does not fit in the run's memory
	// CallDiverged: a replayed run's call that its trace does not answer;
	// the guest reports where the call was made with OpDiverged, which
	// ends the run.
	CallDiverged = -5

	// CallInterrupted: the run ended while the argument was read (never
	// returned to the guest).
	CallInterrupted = -100
)

// Constant is one number of the protocol, under the name the prelude gives
// it.
type Constant struct {
	Name  string
	Value int
}

// Protocol returns the protocol's numbers that the prelude uses, under the
// names it uses.
func Protocol() []Constant {
	return []Constant{
		{"OP_LOG", OpLog}, {"OP_CALL", OpCall}, {"OP_TIMER", OpTimer}, {"OP_CLEAR", OpClear},
		{"OP_DONE", OpDone}, {"OP_CALL_VALUE", OpCallValue}, {"OP_DONE_VALUE", OpDoneValue},
		{"OP_REFUSAL", OpRefusal}, {"OP_POSITION", OpPosition}, {"OP_WEB", OpWeb}, {"OP_RANDOM", OpRandom},
		{"OP_TIME_ZONE", OpTimeZone}, {"OP_DIVERGED", OpDiverged},
		{"DONE_VALUE", DoneValue}, {"DONE_NONE", DoneNone}, {"DONE_THROW", DoneThrow},
		{"DONE_INVALID", DoneInvalid}, {"DONE_UNRENDERABLE", DoneUnrenderable},
		{"START", APIStart}, {"DELIVER", APIDeliver}, {"RENDER", APIRender},
		{"EV_RESOLVE", EvResolve}, {"EV_REJECT", EvReject}, {"EV_TIMER", EvTimer},
		{"CALL_REFUSED", CallRefused}, {"CALL_NEEDS_TEXT", CallNeedsText},
		{"CALL_TOO_BIG", CallTooBig}, {"CALL_NO_MEMORY", CallNoMemory}, {"CALL_DIVERGED", CallDiverged},
	}
}

// PreludeConstants returns the JavaScript declaration of the protocol's
// numbers (see [Protocol]), which the prelude is evaluated inside of.
func PreludeConstants() string {
	var b strings.Builder
	b.WriteString("const ")
	for i, c := range Protocol() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " = " + strconv.Itoa(c.Value))
	}
	b.WriteString(";")
	return b.String()
}
