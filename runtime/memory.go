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

// guestMemory charges one instance's memory to the run's account through a
// budget.Guest, which does the accounting of its linear memory and native
// stack, and writes where that account puts QuickJS's stack limit and the
// stack mark into the instance. All its methods run on the goroutine that
// calls into the instance.
type guestMemory struct {
	acct      *budget.Guest
	in        *quickjs.Instance
	limitAddr uint32 // where QuickJS's stack limit is, in guest memory
}

// newGuestMemory charges in's linear memory and the native stack's base to
// mem, covers the first steps of the stack, and arms in's grow hook and
// stack mark. It returns errMemoryLimit when even that does not fit.
func newGuestMemory(mem *budget.Memory, in *quickjs.Instance, st quickjs.State) (*guestMemory, error) {
	g := &guestMemory{in: in, limitAddr: st.Runtime + st.Layout.StackLimit}
	top := in.StackPointer()
	floor, ok := in.Memory().ReadUint32Le(g.limitAddr)
	if !ok || top == 0 || floor < stackMargin || floor >= top {
		return nil, errors.New("cannot locate the guest stack")
	}
	acct, ok := budget.NewGuest(mem, uint64(in.Memory().Size()), top, floor, floor-stackMargin)
	if !ok {
		return nil, errMemoryLimit // nothing charged, no hook set
	}
	g.acct = acct
	in.SetGrowHook(acct.Grow)
	g.setLimit()
	return g, nil
}

// setLimit writes QuickJS's stack limit and the stack mark where the
// account puts them.
func (g *guestMemory) setLimit() {
	g.in.Memory().WriteUint32Le(g.limitAddr, g.acct.Limit())
	g.in.SetStackMark(g.acct.Mark())
}

// full reports whether the account covers the whole stack.
func (g *guestMemory) full() bool { return g.acct.Full() }

// low is the stack mark's hook: the guest's stack pointer went down to sp,
// below the mark. It returns the next mark, or ok false when the stack is
// deeper than the account covers and cannot be covered: the run must end.
func (g *guestMemory) low(sp uint32) (mark uint32, ok bool) {
	moved, ok := g.acct.Low(sp)
	if !ok {
		return 0, false
	}
	if moved {
		g.setLimit()
	}
	return g.acct.Mark(), true
}

// rearm lets a stack that was refused more ask again, when the guest is
// next called.
func (g *guestMemory) rearm() {
	if g.acct.Rearm() {
		g.in.SetStackMark(g.acct.Mark())
	}
}

// deep returns the native bytes charged beyond what every run is charged
// at the start (see budget.Guest.Deep).
func (g *guestMemory) deep() int64 { return g.acct.Deep() }

// release gives back everything charged, once the instance is closed.
func (g *guestMemory) release() {
	g.in.SetGrowHook(nil)
	g.acct.Release()
}
