package runtime

import (
	"errors"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
)

// errMemoryLimit is returned when an instance cannot be given what it needs
// to start within the run's memory account; the run ends with
// the account's [budget.Memory.Exceeded].
var errMemoryLimit = errors.New("memory limit exceeded")

// The native stack. wazero runs an instance's calls on a Go-allocated stack
// that it doubles (and copies) whenever a call does not fit; the old copies
// are garbage until the collector runs. Its depth follows the guest's C
// (shadow) stack: every QuickJS interpreter frame takes a few hundred bytes
// of the one and several kilobytes of the other. The run's account is
// charged for the native stack as the guest's stack grows (wasm.stackWatch
// calls the host at each new stack depth), and QuickJS's stack limit, whose
// crossing throws a catchable RangeError, is kept just above the depth the
// account covers.
const (
	// nativePerGuestByte bounds the native stack bytes per guest stack
	// byte, over every recursion shape of stack_test.go: measured with
	// QuickJS-NG 0.16 under wazero 1.12, at most 25.0 (a bound function's
	// recursion; docs/performance.md, "Recursion depth"), plus 4%.
	nativePerGuestByte = 26
	// nativeGrowth: the native stack is at most twice its live part (it
	// doubles), and the copies it outgrew add up to less than itself.
	nativeGrowth = 4
	// nativeCost is the host bytes charged per guest stack byte.
	nativeCost = nativePerGuestByte * nativeGrowth
	// nativeBase is what an instance's native stacks hold before any deep
	// call: the stack Warm grew, the copies it outgrew, and the stack of a
	// nested call.
	nativeBase = 256 << 10
	// stackStep is how much more guest stack the account covers each time
	// the guest goes deeper than it covers.
	stackStep = 16 << 10
	// stackGrace is the covered room kept below QuickJS's stack limit, for
	// the C code that runs after the limit is crossed and before QuickJS
	// checks it (the RangeError's construction among it); at most half
	// the covered stack.
	stackGrace = 16 << 10
	// heapShare is the part of MemoryBytes (1/heapShare) that the stack
	// leaves to the rest: a program that ends a deep recursion by catching
	// the RangeError, or whose async functions unwind, needs heap to go on
	// with, while the native stack stays as large as it grew.
	heapShare = 8
	// stackLookahead is how far above QuickJS's stack limit the mark sits:
	// QuickJS throws when the stack pointer less the room the next frame
	// will need (up to about 17 KiB, for the JSON parser) is below its
	// limit, so the account must be asked for more before that.
	stackLookahead = 32 << 10
	// stackAhead is how much the account covers below the stack pointer
	// whenever it is asked.
	stackAhead = stackGrace + stackLookahead + stackStep
)

// guestMemory charges one instance's memory to the run's account: its
// linear memory as it grows, and the native stack its calls grow. All its
// methods run on the goroutine that calls into the instance.
type guestMemory struct {
	mem *budget.Memory
	in  *quickjs.Instance

	linear uint64 // bytes of linear memory charged
	native int64  // bytes charged for the native stack
	start  int64  // native as charged when the instance was attached

	// The guest stack is [bottom, top); QuickJS's limit (at limitAddr in
	// guest memory) never goes below floor, where the snapshot set it.
	// covered is the depth below top that native charges cover.
	top, bottom, floor, limitAddr uint32
	covered                       uint32
	// refused: the last extension did not fit; the mark waits at the
	// covered bottom until rearm.
	refused bool
}

// newGuestMemory charges in's linear memory and the native stack's base to
// mem, covers the first steps of the stack, and arms in's grow hook and
// stack mark. It returns errMemoryLimit when even that does not fit.
func newGuestMemory(mem *budget.Memory, in *quickjs.Instance, st quickjs.State) (*guestMemory, error) {
	g := &guestMemory{mem: mem, in: in, top: in.StackPointer(), limitAddr: st.Runtime + st.Layout.StackLimit}
	floor, ok := in.Memory().ReadUint32Le(g.limitAddr)
	if !ok || g.top == 0 || floor < stackMargin || floor >= g.top {
		return nil, errors.New("cannot locate the guest stack")
	}
	g.floor, g.bottom = floor, floor-stackMargin
	size := uint64(in.Memory().Size())
	if !mem.Charge(int64(size) + nativeBase) {
		return nil, errMemoryLimit
	}
	g.linear, g.native = size, nativeBase
	g.cover(stackAhead)
	if g.covered < stackGrace/2 {
		g.release()
		return nil, errMemoryLimit
	}
	g.start = g.native
	in.SetGrowHook(g.grow)
	g.setLimit(stackAhead)
	return g, nil
}

// grow charges a growth of the linear memory; false fails the memory.grow.
func (g *guestMemory) grow(from, to uint64) bool {
	if !g.mem.Charge(int64(to - from)) {
		return false
	}
	g.linear += to - from
	return true
}

// cover extends the covered stack towards want bytes (capped at the
// stack's size), as far as fits. The stack never takes the account's last
// 1/heapShare, except for a run's first stack when that share would leave
// it less than stackGrace (a RangeError's construction fits in half of
// it): it then takes up to that much, and leaves the rest to the heap, the
// logs and the result.
func (g *guestMemory) cover(want uint32) {
	want = min(want, g.top-g.bottom)
	if want <= g.covered {
		return
	}
	avail := g.mem.Available()
	reserve := g.mem.Limit() / heapShare
	if g.covered == 0 {
		reserve = min(reserve, max(0, avail-stackGrace*nativeCost))
	}
	avail -= reserve
	if n := min(avail/nativeCost, int64(want-g.covered)); n > 0 {
		g.charge(g.covered + uint32(n))
	}
}

// charge covers depth bytes of stack, if the account has room for them.
func (g *guestMemory) charge(depth uint32) bool {
	n := int64(depth-g.covered) * nativeCost
	if !g.mem.Charge(n) {
		return false
	}
	g.native += n
	g.covered = depth
	return true
}

// limit is where QuickJS's stack limit goes for the covered stack.
func (g *guestMemory) limit() uint32 {
	return max(g.floor, g.top-g.covered+min(stackGrace, g.covered/2))
}

// mark is where the stack mark goes: stackLookahead above QuickJS's stack
// limit, so that the guest asks for more before QuickJS would throw; or,
// once the stack is covered as far as it can be (refused, or whole), at
// the covered bottom, which the guest must never pass.
func (g *guestMemory) mark() uint32 {
	if g.refused || g.full() {
		return g.top - g.covered
	}
	return g.limit() + stackLookahead
}

// full reports whether the covered stack is the whole stack.
func (g *guestMemory) full() bool { return g.covered >= g.top-g.bottom }

// setLimit writes QuickJS's stack limit for the covered stack and the
// mark; the extension that asked for want bytes was refused if fewer are
// covered.
func (g *guestMemory) setLimit(want uint32) {
	g.refused = g.covered < want && !g.full()
	g.in.Memory().WriteUint32Le(g.limitAddr, g.limit())
	g.in.SetStackMark(g.mark())
}

// low is the stack mark's hook: the guest's stack pointer went down to sp,
// below the mark. It returns the next mark, or ok false when the stack is
// deeper than the account covers and cannot be covered: the run must end.
func (g *guestMemory) low(sp uint32) (mark uint32, ok bool) {
	if sp >= g.top {
		return g.mark(), true // not below the top: nothing to do
	}
	depth := g.top - sp
	want := depth + stackAhead
	g.cover(want)
	if depth > g.covered {
		return 0, false
	}
	// When the account had not enough room, QuickJS throws RangeError at
	// its next check (the stack pointer is near or below its limit); the
	// C code until then stays within the covered stack, or ends the run.
	g.setLimit(want)
	return g.mark(), true
}

// rearm lets a stack that was refused more ask again, when the guest is
// next called.
func (g *guestMemory) rearm() {
	if g.refused {
		g.refused = false
		g.in.SetStackMark(g.mark())
	}
}

// deep returns the native bytes charged beyond what every run is charged
// at the start: the part of the run's host memory that deep calls took.
func (g *guestMemory) deep() int64 {
	return g.native - g.start
}

// release gives back everything charged, once the instance is closed.
func (g *guestMemory) release() {
	g.in.SetGrowHook(nil)
	g.mem.Release(int64(g.linear) + g.native)
	g.linear, g.native = 0, 0
}
