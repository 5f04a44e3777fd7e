package runtime

import (
	"container/heap"
	"math"
	"time"

	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/internal/quickjs"
)

// maxPendingTimers caps the timers a run may have pending at once. A
// setTimeout past it throws a RangeError the program can catch (the
// prelude's MAX_PENDING_TIMERS, which must be equal, names the cap in the
// message). Each pending timer costs the host one small record (see
// timer), so the cap bounds what timers can make the host hold.
const maxPendingTimers = 10_000

// timerRefused is what opTimer returns when maxPendingTimers timers are
// pending: the guest throws the RangeError.
const timerRefused = -1

// timer is one pending setTimeout. It lives in the run's timer heap; no
// goroutine or runtime timer belongs to it.
type timer struct {
	at    time.Duration // deadline, on the run's clock (see timers.now)
	seq   uint64        // creation order, which breaks ties between equal deadlines
	id    int32         // the id the guest knows it by
	index int32         // position in the heap
}

// timers is a run's pending timers: a heap ordered by deadline, then
// creation, which is the order in which Node fires them, and an index by id
// for clearTimeout. The run loop sleeps on one runtime timer, alarm, set to
// the earliest deadline.
type timers struct {
	base   time.Time // the run's clock starts here
	heap   timerHeap
	byID   map[int32]*timer
	nextID int32
	seq    uint64
	alarm  *time.Timer
}

func newTimers() timers {
	return timers{base: time.Now(), byID: map[int32]*timer{}}
}

// now is the time on the run's clock (monotonic).
func (ts *timers) now() time.Duration { return time.Since(ts.base) }

// Len is the number of pending timers.
func (ts *timers) Len() int { return len(ts.heap) }

// add sets a timer that is due after d and returns its id, or timerRefused
// when maxPendingTimers timers are pending.
func (ts *timers) add(d time.Duration) int32 {
	if len(ts.heap) >= maxPendingTimers {
		return timerRefused
	}
	id := ts.newID()
	ts.seq++
	t := &timer{at: ts.now() + d, seq: ts.seq, id: id}
	ts.byID[id] = t
	heap.Push(&ts.heap, t)
	return id
}

// newID returns the next timer id not in use. Ids count up from 1 like
// Node's; past math.MaxInt32 they start again at 1, skipping the at most
// maxPendingTimers ids still pending.
func (ts *timers) newID() int32 {
	for {
		if ts.nextID == math.MaxInt32 {
			ts.nextID = 0
		}
		ts.nextID++
		if _, used := ts.byID[ts.nextID]; !used {
			return ts.nextID
		}
	}
}

// clear removes the timer with this id, if it is pending.
func (ts *timers) clear(id int32) {
	t, ok := ts.byID[id]
	if !ok {
		return
	}
	delete(ts.byID, id)
	heap.Remove(&ts.heap, int(t.index))
}

// wake returns a channel that receives when the earliest timer is due, or
// nil when no timer is pending.
func (ts *timers) wake() <-chan time.Time {
	if len(ts.heap) == 0 {
		return nil
	}
	d := max(ts.heap[0].at-ts.now(), 0)
	if ts.alarm == nil {
		ts.alarm = time.NewTimer(d)
	} else {
		ts.alarm.Reset(d) // no stale tick survives a Reset (Go 1.23 timers)
	}
	return ts.alarm.C
}

// appendDue removes the timers that are due, earliest first, and appends
// their events to batch.
func (ts *timers) appendDue(batch []hostcalls.Event) []hostcalls.Event {
	now := ts.now()
	for len(ts.heap) > 0 && ts.heap[0].at <= now {
		t := heap.Pop(&ts.heap).(*timer)
		delete(ts.byID, t.id)
		batch = append(batch, hostcalls.Event{ID: t.id, Kind: hostcalls.EvTimer})
	}
	return batch
}

// stop releases the alarm.
func (ts *timers) stop() {
	if ts.alarm != nil {
		ts.alarm.Stop()
	}
}

// timerHeap implements heap.Interface over pending timers.
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }

func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = int32(i), int32(j)
}

func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = int32(len(*h))
	*h = append(*h, t)
}

func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}

// setTimer sets a timer for the guest's setTimeout: msArg milliseconds,
// from 1 to 2^31-1 (anything else counts as 1, as in Node). It returns the
// timer's id, or timerRefused.
func (r *run) setTimer(msArg quickjs.Value) int32 {
	ms, ok := msArg.Number()
	if !ok || !(ms >= 1 && ms <= math.MaxInt32) {
		ms = 1
	}
	return r.timers.add(time.Duration(ms * float64(time.Millisecond)))
}

// rearmTimer sets the timer of the guest's setInterval with this id, which
// just fired, again for msArg milliseconds (as setTimer reads them). The
// id must be free: the timer is no longer pending, and an interval the
// program cleared is not re-armed. It returns the id, or timerRefused.
func (r *run) rearmTimer(idArg, msArg quickjs.Value) int32 {
	id, ok := intArg(idArg)
	if !ok || id <= 0 || id > math.MaxInt32 {
		return timerRefused
	}
	if _, used := r.timers.byID[int32(id)]; used || len(r.timers.heap) >= maxPendingTimers {
		return timerRefused
	}
	ms, ok := msArg.Number()
	if !ok || !(ms >= 1 && ms <= math.MaxInt32) {
		ms = 1
	}
	ts := &r.timers
	ts.seq++
	t := &timer{at: ts.now() + time.Duration(ms*float64(time.Millisecond)), seq: ts.seq, id: int32(id)}
	ts.byID[t.id] = t
	heap.Push(&ts.heap, t)
	return t.id
}
