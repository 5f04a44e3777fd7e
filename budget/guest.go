package budget

// The native stack. wazero runs an instance's calls on a Go-allocated stack
// that it doubles (and copies) whenever a call does not fit; the old copies
// are garbage until the collector runs. Its depth follows the guest's C
// (shadow) stack: every QuickJS interpreter frame takes a few hundred bytes
// of the one and several kilobytes of the other. A run's account is
// charged for the native stack as the guest's stack grows (the runtime's
// stack mark calls [Guest.Low] at each new stack depth), and QuickJS's stack
// limit, whose crossing throws a catchable RangeError, is kept just above
// the depth the account covers ([Guest.Limit]).
const (
	// nativePerGuestByte bounds the native stack bytes per guest stack
	// byte, over every recursion shape of runtime/stack_test.go: measured
	// with QuickJS-NG 0.16 under wazero 1.12, at most 25.0 (a bound
	// function's recursion; docs/performance.md, "Recursion depth"), plus
	// 4%.
	nativePerGuestByte = 26
	// nativeGrowth: the native stack is at most twice its live part (it
	// doubles), and the copies it outgrew add up to less than itself.
	nativeGrowth = 4
	// nativeCost is the host bytes charged per guest stack byte.
	nativeCost = nativePerGuestByte * nativeGrowth
	// NativeBase is what an instance's native stacks hold before any deep
	// call: the stack Warm grew, the copies it outgrew, and the stack of a
	// nested call.
	NativeBase = 256 << 10
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

// Guest charges one wasm instance's memory to a run's [Memory]: its linear
// memory as it grows, and the native stack its calls grow, as the guest's
// stack goes deeper. It says where QuickJS's stack limit and the stack mark
// go; the runtime writes them into the instance. Its methods are called on
// the goroutine that calls into the instance.
type Guest struct {
	mem *Memory

	linear uint64 // bytes of linear memory charged
	native int64  // bytes charged for the native stack
	start  int64  // native as charged when the instance was attached

	// The guest stack is [bottom, top); QuickJS's limit never goes below
	// floor, where the snapshot set it. covered is the depth below top
	// that native charges cover.
	top, bottom, floor uint32
	covered            uint32
	// refused: the last extension did not fit; the mark waits at the
	// covered bottom until Rearm.
	refused bool
}

// NewGuest charges an instance's linear memory of size bytes and the
// native stack's base to mem, and covers the first steps of its guest stack
// [bottom, top), whose QuickJS limit never goes below floor. It returns
// false, having charged nothing, when even that does not fit.
func NewGuest(mem *Memory, size uint64, top, floor, bottom uint32) (*Guest, bool) {
	g := &Guest{mem: mem, top: top, floor: floor, bottom: bottom}
	if !mem.Charge(int64(size) + NativeBase) {
		return nil, false
	}
	g.linear, g.native = size, NativeBase
	g.cover(stackAhead)
	if g.covered < stackGrace/2 {
		g.Release()
		return nil, false
	}
	g.start = g.native
	g.asked(stackAhead)
	return g, true
}

// Grow charges a growth of the linear memory; false fails the memory.grow.
func (g *Guest) Grow(from, to uint64) bool {
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
func (g *Guest) cover(want uint32) {
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
func (g *Guest) charge(depth uint32) bool {
	n := int64(depth-g.covered) * nativeCost
	if !g.mem.Charge(n) {
		return false
	}
	g.native += n
	g.covered = depth
	return true
}

// Limit is where QuickJS's stack limit goes for the covered stack.
func (g *Guest) Limit() uint32 {
	return max(g.floor, g.top-g.covered+min(stackGrace, g.covered/2))
}

// Mark is where the stack mark goes: stackLookahead above QuickJS's stack
// limit, so that the guest asks for more before QuickJS would throw; or,
// once the stack is covered as far as it can be (refused, or whole), at
// the covered bottom, which the guest must never pass.
func (g *Guest) Mark() uint32 {
	if g.refused || g.Full() {
		return g.top - g.covered
	}
	return g.Limit() + stackLookahead
}

// Full reports whether the covered stack is the whole stack.
func (g *Guest) Full() bool { return g.covered >= g.top-g.bottom }

// asked notes that an extension asked for want bytes: it was refused if
// fewer are covered.
func (g *Guest) asked(want uint32) { g.refused = g.covered < want && !g.Full() }

// Low is called when the guest's stack pointer went down to sp, below the
// mark. It covers the depth sp needs and reports whether the limit and the
// mark moved (and must be written again), or ok false when the stack is
// deeper than the account covers and cannot be covered: the run must end.
func (g *Guest) Low(sp uint32) (moved, ok bool) {
	if sp >= g.top {
		return false, true // not below the top: nothing to do
	}
	depth := g.top - sp
	want := depth + stackAhead
	g.cover(want)
	if depth > g.covered {
		return false, false
	}
	// When the account had not enough room, QuickJS throws RangeError at
	// its next check (the stack pointer is near or below its limit); the
	// C code until then stays within the covered stack, or ends the run.
	g.asked(want)
	return true, true
}

// Rearm lets a stack that was refused more ask again, when the guest is
// next called; it reports whether the mark moved.
func (g *Guest) Rearm() bool {
	if !g.refused {
		return false
	}
	g.refused = false
	return true
}

// Deep returns the native bytes charged beyond what every run is charged
// at the start: the part of the run's host memory that deep calls took.
func (g *Guest) Deep() int64 { return g.native - g.start }

// Release gives back everything charged, once the instance is closed.
func (g *Guest) Release() {
	g.mem.Release(int64(g.linear) + g.native)
	g.linear, g.native = 0, 0
}
