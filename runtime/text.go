package runtime

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/serialize"
)

// Big texts from the guest (a binding call's argument, the program's
// value, a binding's result) are read, copied and checked in pieces of
// textPiece bytes; between two pieces the run stops if its caller's ctx is
// done, the engine is closing or the wall deadline passed. A piece takes
// well under a millisecond to copy and at most a few to check (text that
// is all multi-byte UTF-8 is the slowest), so a cancel is seen within
// about one piece's time however long the text is.
const textPiece = 256 << 10

// testHooks let this package's tests watch a run at points no outcome
// shows; production engines have none.
type testHooks struct {
	piece func(r *run) // after each piece of a big text
	ended func(r *run) // when the run's outcome has been assembled
	// noInterrupt makes every run end its guest by a panic, as before
	// quickjs.Instance.Interrupt (see halt).
	noInterrupt bool
	// attached runs when a run has its instance, restored, before the
	// program starts.
	attached func(in *quickjs.Instance)
	// script, if set, rewrites the script the engine compiles for a program
	// (transpile.Program.Script's text), to give the engine's checks text
	// that the transpiler never produces.
	script func(string) string
	// stackIdle, if set, replaces stackIdle.
	stackIdle time.Duration
	// released runs on the idle timer's goroutine after it released a
	// run's stack.
	released func()
}

// Pace is called after each piece of a big text: it ends the run, and
// reports true, when it must stop (see interrupted).
func (r *run) Pace() bool {
	r.pieces++
	if r.e.hooks.piece != nil {
		r.e.hooks.piece(r)
	}
	if r.rp != nil && r.rp.pieceStop(r) {
		return true
	}
	r.stopPlace = StopAtPiece // where a recorded run's stop is replayed
	stopped := r.interrupted()
	r.stopPlace = ""
	return stopped
}

// interrupted ends the run, and reports true, when the caller's ctx is
// done, the engine is closing or the wall deadline passed.
func (r *run) interrupted() bool {
	if r.stopIfSignalled() {
		return true
	}
	if !time.Now().Before(r.meter.WallDeadline()) {
		r.exhaust(BudgetWall, budget.WallMessage(r.limits.WallTime))
		return true
	}
	return false
}

// ViewText passes the WTF-8 bytes of the guest string v to f, as
// quickjs.Instance.ViewString does, but reads a long 8-bit string in pieces
// (see Pace): only an ASCII string is viewed in place, and one that is not
// is converted by the guest. It returns false if the run ended meanwhile.
func (r *run) ViewText(v quickjs.Value, f func([]byte)) bool {
	viewed, err := r.viewTextErr(v, f)
	if err != nil {
		panic(err)
	}
	return viewed
}

// viewTextErr is ViewText that returns the instance's error instead of panicking with it, for
// callers outside a host call.
func (r *run) viewTextErr(v quickjs.Value, f func([]byte)) (bool, error) {
	chars, ok := r.in.Latin1Chars(v)
	if !ok || len(chars) <= textPiece {
		return true, r.in.ViewString(v, f)
	}
	for i := 0; i < len(chars); i += textPiece {
		if i > 0 && r.Pace() {
			return false, nil
		}
		for _, c := range chars[i:min(i+textPiece, len(chars))] {
			if c >= 0x80 {
				return true, r.in.ViewConverted(v, f)
			}
		}
	}
	f(chars)
	return true, nil
}

// endThrown ends the run with the exception whose text the guest rendered as the string v
// (see failureText), reading no more of it than the output ledger has room for: a text that
// cannot fit ends the run as output-limit without crossing into the host, however long it is.
// It returns false, ending nothing more, when the run ended while the text was read, and the
// instance's error if it failed.
func (r *run) endThrown(v quickjs.Value) (bool, error) {
	return r.viewTextErr(v, func(b []byte) {
		room := r.ledger.MessageRoom() // a text of more bytes costs more than that: it cannot fit
		if int64(len(b)) <= room {
			r.endWithMessage(b)
			return
		}
		// Only the trailing line breaks of a stack are dropped (failureText): the text can fit
		// only if all it has past the room is line breaks.
		end, stopped := r.trimLineBreaks(b, max(room, 0))
		switch {
		case stopped:
		case int64(end) > room:
			r.exhaust(BudgetOutput, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
		default:
			if bytes.Contains(b[:end], []byte("    at ")) {
				r.endWithMessage(b[:end])
			} else {
				r.exhaust(BudgetOutput, serialize.OutputLimitMessage(r.limits.MaxOutputBytes))
			}
		}
	})
}

// endWithMessage ends the run as an exception whose text is b (see failureText), a view of the
// guest's memory that fits in the output ledger. The host's copy is charged to the run's memory
// as its value would be.
func (r *run) endWithMessage(b []byte) {
	if !r.mem.Charge(int64(len(b))) {
		r.exhaust(BudgetMemory, r.mem.Exceeded())
		return
	}
	r.valueCharge += int64(len(b))
	r.end(KindException, failureText(string(b)))
}

// trimLineBreaks returns the end of b without its trailing line breaks, but looks no further
// back than to floor: a result above floor is exact, floor means "floor or less". It looks in
// pieces (see Pace), and reports stopped when the run ended meanwhile.
func (r *run) trimLineBreaks(b []byte, floor int64) (end int, stopped bool) {
	end = len(b)
	for int64(end) > floor {
		from := max(int(floor), end-textPiece)
		if rest := len(bytes.TrimRight(b[from:end], "\n")); rest > 0 {
			return from + rest, false
		}
		if end = from; int64(end) > floor && r.Pace() {
			return end, true
		}
	}
	return end, false
}

// CopyText returns a copy of b (a view of the guest's memory), made in
// pieces; nil if the run ended meanwhile.
func (r *run) CopyText(b []byte) []byte {
	if len(b) <= textPiece {
		return append([]byte(nil), b...)
	}
	dst := newTextBuilder(len(b))
	for i := 0; i < len(b); i += textPiece {
		if i > 0 && r.Pace() {
			return nil
		}
		dst.write(b[i:min(i+textPiece, len(b))])
	}
	return dst.bytes()
}

// textBuilder makes the host's copy of a long text, in pieces, in memory that is not zeroed
// first (strings.Builder.Grow allocates so): zeroing hundreds of megabytes is one step of tens of
// milliseconds (200 MB: 25-35 ms on a quiet 2-core machine, and once 1.7 s under memory
// pressure) that no look at the ctx could interrupt, while the copy writes every byte before
// anything reads it, a piece at a time with a look between pieces.
type textBuilder struct{ b strings.Builder }

// newTextBuilder returns a builder with room for n bytes.
func newTextBuilder(n int) *textBuilder {
	t := &textBuilder{}
	t.b.Grow(n)
	return t
}

// write appends p, within the room the builder was made with.
func (t *textBuilder) write(p []byte) { t.b.Write(p) }

// string returns the text written.
func (t *textBuilder) string() string { return t.b.String() }

// bytes returns the text written as a slice that the caller owns: the builder's own memory, which
// nothing reads as a string any more.
func (t *textBuilder) bytes() []byte {
	s := t.b.String()
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// checkValueText is serialize.CheckValueJSON for the program's value b, in
// pieces when b is big. When the run ended meanwhile it returns errPaused.
func (r *run) checkValueText(b []byte) error {
	if len(b) <= textPiece {
		return serialize.CheckValueJSON(b)
	}
	return serialize.CheckValueJSONPaced(b, textPiece, r.pauseCheck)
}

// pauseCheck is the pause of a paced check: errPaused once the run must
// end.
func (r *run) pauseCheck() error {
	if r.Pace() {
		return errPaused
	}
	return nil
}

// errPaused stops a paced check when the run ended.
var errPaused = fmt.Errorf("coderun: run ended during a check")

// PlainJSON returns the JSON text of v, read in place, if
// quickjs.Instance.AppendPlainJSONUpTo can read it within max bytes.
func (r *run) PlainJSON(v quickjs.Value, max int) ([]byte, bool) {
	return r.in.AppendPlainJSONUpTo(nil, v, max)
}
