package hostcalls

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
)

// fakeGuest hands Calls the argument text it was given, whatever the value.
type fakeGuest struct {
	text   []byte
	plain  bool // PlainJSON reads text in place
	paces  int  // Pace calls so far
	stopAt int  // Pace reports the run ended at this call (0: never)
}

func (g *fakeGuest) PlainJSON(_ quickjs.Value, max int) ([]byte, bool) {
	if !g.plain || len(g.text) > max {
		return nil, false
	}
	return append(make([]byte, 0, len(g.text)), g.text...), true
}

func (g *fakeGuest) ViewText(_ quickjs.Value, f func([]byte)) bool { f(g.text); return true }

// CopyText makes a copy whose capacity is its length, as admission charges.
func (g *fakeGuest) CopyText(b []byte) []byte {
	dst := make([]byte, len(b))
	copy(dst, b)
	return dst
}

func (g *fakeGuest) Pace() bool { g.paces++; return g.paces == g.stopAt }

// str is a value the guest would pass as an argument's text.
var str = stringValue()

func stringValue() quickjs.Value {
	tag := quickjs.TagString
	return quickjs.Value(uint64(uint32(tag)) << 32)
}

func echo(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }

func newCalls(t *testing.T, g *fakeGuest, memory, maxArg int64, concurrent int) (*Calls, *budget.Memory) {
	t.Helper()
	mem := budget.NewMemory(budget.Limits{MemoryBytes: memory})
	c := &Calls{}
	c.Init(Config{Ctx: context.Background(), Guest: g, Account: mem, MaxArgumentBytes: maxArg, MaxConcurrentCalls: concurrent, Piece: 8})
	require.Len(t, c.AddNamespace(map[string]Func{"echo": echo}), 1)
	return c, mem
}

// A call is admitted against MaxArgumentBytes and the memory account; a
// refused one keeps nothing charged and leaves the figures its message
// names.
func TestCallsStartAdmission(t *testing.T) {
	for _, tc := range []struct {
		name           string
		text           string
		inPlace, plain bool
		ns, m          int
		arg            quickjs.Value
		memory         int64
		want           int32
		bytes, limit   int64
		charged        int64 // at least
	}{
		{"text admitted", `{"a":1}`, false, false, 0, 0, str, 1 << 20, 1, 0, 0, callCost + 7},
		{"value read in place", `[1,2]`, true, true, 0, 0, 0, 1 << 20, 1, 0, 0, callCost + 5},
		{"value not plain", `[1,2]`, true, false, 0, 0, 0, 1 << 20, CallNeedsText, 0, 0, 0},
		{"value in place, not lossless JSON", `[1,]`, true, true, 0, 0, 0, 1 << 20, CallRefused, 0, 0, 0},
		{"text not a string", `1`, false, false, 0, 0, 0, 1 << 20, CallRefused, 0, 0, 0},
		{"no such namespace", `1`, false, false, 1, 0, str, 1 << 20, CallRefused, 0, 0, 0},
		{"no such member", `1`, false, false, 0, 1, str, 1 << 20, CallRefused, 0, 0, 0},
		{"negative member", `1`, false, false, 0, -1, str, 1 << 20, CallRefused, 0, 0, 0},
		{"not lossless JSON", `{"a":}`, false, false, 0, 0, str, 1 << 20, CallRefused, 0, 0, 0},
		{"over MaxArgumentBytes", `"0123456789abcdef"`, false, false, 0, 0, str, 1 << 20, CallTooBig, 18, 16, 0},
		{"over the memory account", `"0123"`, false, false, 0, 0, str, callCost, CallNoMemory, 6, callCost, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mem := newCalls(t, &fakeGuest{text: []byte(tc.text), plain: tc.plain}, tc.memory, 16, 4)
			got := c.Start(tc.ns, tc.m, tc.arg, tc.inPlace)
			require.Equal(t, tc.want, got)
			if got > 0 {
				require.GreaterOrEqual(t, mem.Used(), tc.charged)
				require.Equal(t, 1, c.Made())
				return
			}
			require.Zero(t, mem.Used(), "a refused call keeps nothing charged")
			require.Equal(t, tc.bytes, c.Refusal(0))
			require.Equal(t, tc.limit, c.Refusal(1))
		})
	}
}

// An argument checked in pieces stops when the run ends meanwhile.
func TestCallsStartInterrupted(t *testing.T) {
	g := &fakeGuest{text: []byte(`[1,2,3,4,5,6,7,8,9,10,11]`), stopAt: 1}
	c, mem := newCalls(t, g, 1<<20, 1<<10, 4)
	require.Equal(t, int32(CallInterrupted), c.Start(0, 0, str, false))
	require.Positive(t, mem.Used(), "the run ends: its account is dropped whole")
	require.Zero(t, c.Made())
}

// Ids of delivered calls are handed out again, the last freed first; calls
// past MaxConcurrentCalls wait in the queue until a slot frees.
func TestCallsIDsAndQueue(t *testing.T) {
	c, mem := newCalls(t, &fakeGuest{text: []byte(`1`)}, 1<<20, 1<<10, 2)
	var ids []int32
	for range 3 {
		ids = append(ids, c.Start(0, 0, str, false))
	}
	require.Equal(t, []int32{1, 2, 3}, ids)
	require.True(t, c.HasPending())
	c.LaunchPending()
	require.False(t, c.HasPending())
	require.Equal(t, 2, c.inflight)
	require.Len(t, c.queue, 1, "the third call waits for a free slot")
	got := map[int32]bool{}
	for range 3 {
		ev := <-c.Events()
		got[ev.ID] = true
		require.Equal(t, EvResolve, ev.Kind)
		require.Equal(t, "1", string(ev.Payload))
		c.Returned(&ev)
		require.LessOrEqual(t, c.inflight, 2)
		mem.Release(ev.Charge)
		if len(got) == 3 {
			require.True(t, c.Idle())
			require.Zero(t, mem.Used())
			require.Equal(t, ev.ID, c.Start(0, 0, str, false), "the id freed last is handed out first")
		}
	}
	require.Len(t, got, 3)
}

// Close starts the calls made since the guest last yielded, and releases
// the charges of results that arrived and were never delivered.
func TestCallsClose(t *testing.T) {
	c, mem := newCalls(t, &fakeGuest{text: []byte(`1`)}, 1<<20, 1<<10, 2)
	require.Equal(t, int32(1), c.Start(0, 0, str, false))
	c.LaunchPending()
	for len(c.events) == 0 {
		runtime.Gosched()
	}
	require.Equal(t, int32(2), c.Start(0, 0, str, false))
	require.Equal(t, int64(2*(callCost+1)), mem.Used())
	c.Close()
	require.LessOrEqual(t, mem.Used(), int64(callCost+1), "the result that arrived is dropped")
	require.False(t, c.HasPending())
	require.Equal(t, 2, c.inflight, "the pending call started")
	<-c.finished // closed
}

// A resolution that is not lossless JSON, or nil, becomes a rejection; an
// error or a panic of the binding rejects with its text.
func TestCallsResult(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fn      Func
		kind    int
		payload string
	}{
		{"lossless", func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"a":[1,2,3,4,5]}`), nil
		}, EvResolve, `{"a":[1,2,3,4,5]}`},
		{"not JSON, checked in pieces", func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"a":[1,2,3,4,5]`), nil
		}, EvReject, `"binding resolution must be lossless JSON"`},
		{"nil", func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }, EvReject, `"binding resolution must be lossless JSON"`},
		{"error", func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, errors.New("no") }, EvReject, `"no"`},
		{"panic", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("boom") }, EvReject, `"binding \"f\" panicked: boom"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := budget.NewMemory(budget.Limits{MemoryBytes: 1 << 20})
			c := &Calls{}
			c.Init(Config{Ctx: context.Background(), Guest: &fakeGuest{text: []byte(`1`)}, Account: mem, MaxArgumentBytes: 64, MaxConcurrentCalls: 1, Piece: 8})
			c.AddNamespace(map[string]Func{"f": tc.fn})
			require.Equal(t, int32(1), c.Start(0, 0, str, false))
			call := c.Lone()
			require.NotNil(t, call)
			ev := c.Invoke(call)
			c.Returned(&ev)
			require.Equal(t, tc.kind, ev.Kind)
			require.Equal(t, tc.payload, string(ev.Payload))
			mem.Release(ev.Charge)
			require.Zero(t, mem.Used(), "the argument and the result are released")
		})
	}
}
