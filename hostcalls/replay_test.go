package hostcalls

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
)

// Observe sees every admitted call with its namespace, member and argument
// text; a refusal it returns is the call's result and keeps nothing
// charged. Members are numbered in order of name, whatever the map's.
func TestCallsObserve(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int32
		want int32
	}{
		{"let through", 0, 1},
		{"refused", CallDiverged, CallDiverged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := budget.NewMemory(budget.Limits{MemoryBytes: 1 << 20})
			var seen []string
			c := &Calls{}
			c.Init(Config{Ctx: context.Background(), Guest: &fakeGuest{text: []byte(`{"a":1}`)}, Account: mem,
				MaxArgumentBytes: 1 << 10, MaxConcurrentCalls: 2, Piece: 8,
				Observe: func(ns int, member string, args []byte) int32 {
					seen = append(seen, member+" "+string(args))
					return tc.code
				}})
			require.Equal(t, []string{"a", "b", "c"}, c.AddNamespace(map[string]Func{"c": echo, "a": echo, "b": echo}))
			require.Equal(t, tc.want, c.Start(0, 1, str, false))
			require.Equal(t, []string{`b {"a":1}`}, seen)
			if tc.code != 0 {
				require.Zero(t, mem.Used(), "a refused call keeps nothing charged")
			}
		})
	}
}

// A replayed run's calls are never made: launching one counts it in
// flight, and its completion is what Replayed is given, charged as a
// binding's result; an id not in flight has none.
func TestCallsReplayed(t *testing.T) {
	mem := budget.NewMemory(budget.Limits{MemoryBytes: 1 << 20})
	called := false
	c := &Calls{}
	c.Init(Config{Ctx: context.Background(), Guest: &fakeGuest{text: []byte(`[1]`)}, Account: mem,
		MaxArgumentBytes: 1 << 10, MaxConcurrentCalls: 1, Piece: 8, Replay: true})
	c.AddNamespace(map[string]Func{"f": func(context.Context, json.RawMessage) (json.RawMessage, error) {
		called = true
		return nil, nil
	}})
	first, second := c.Start(0, 0, str, false), c.Start(0, 0, str, false)
	c.LaunchPending() // the first in flight, the second queued
	require.Nil(t, c.Events(), "no goroutine, no channel")
	_, ok := c.Replayed(second, EvResolve, []byte(`2`))
	require.False(t, ok, "a queued call has no completion yet")
	ev, ok := c.Replayed(first, EvReject, []byte(`"no \"luck\""`))
	require.True(t, ok)
	require.Equal(t, Event{ID: first, Kind: EvReject, Payload: []byte(`"no \"luck\""`), Charge: callCost + 13}, ev)
	c.Returned(&ev) // frees the slot: the second call is launched
	ev, ok = c.Replayed(second, EvResolve, []byte(`{"x":2}`))
	require.True(t, ok)
	require.Equal(t, EvResolve, ev.Kind)
	require.Equal(t, `{"x":2}`, string(ev.Payload))
	_, ok = c.Replayed(second, EvResolve, []byte(`1`))
	require.False(t, ok, "a call completes once")
	_, ok = c.Replayed(99, EvResolve, []byte(`1`))
	require.False(t, ok)
	require.False(t, called)
}
