package coderun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// delayedTools is a namespace whose bindings answer after a random delay of
// up to maxDelay, so that parallel calls settle in any order: get echoes
// its argument, fail rejects with a message naming it, secret returns a
// token.
func delayedTools(maxDelay time.Duration) coderun.Namespace {
	sleep := func(ctx context.Context) error {
		if maxDelay <= 0 {
			return nil
		}
		select {
		case <-time.After(rand.N(maxDelay)):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return coderun.Namespace{Global: "tools", ErrorClass: &coderun.ErrorClass{Name: "ToolError", MemberNameProperty: "tool"},
		Functions: map[string]coderun.Func{
			"get": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
				if err := sleep(ctx); err != nil {
					return nil, err
				}
				return json.RawMessage(`{"got":` + string(a) + `}`), nil
			},
			"fail": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
				if err := sleep(ctx); err != nil {
					return nil, err
				}
				return nil, errors.New("failed on " + string(a))
			},
			"hang": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
			"goexit": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
				runtime.Goexit()
				return nil, nil
			},
		}}
}

// replayCase is one program recorded and then replayed.
type replayCase struct {
	name    string
	program string
	input   string
	cfg     func(*coderun.Config)
	cancel  time.Duration // cancel the recording's ctx after this long
	onLog   func(string)
	kind    coderun.Kind // the recording's failure kind, "" for success
}

var replayCases = []replayCase{
	{name: "parallel calls settle in any order", program: `
		const rs = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(i => tools.get({i})));
		const order = [];
		await Promise.all([1, 2, 3, 4].map(async i => { await tools.get(i); order.push(i); }));
		console.log(order.join(","));
		return {rs, order}`},
	{name: "timers and intervals", program: `
		const seen = [];
		let n = 0;
		const id = setInterval(() => { seen.push("i" + n); if (++n === 3) clearInterval(id); }, 2);
		setTimeout(() => seen.push("t5"), 5);
		setTimeout(() => seen.push("t1"), 1);
		await tools.get("mid");
		await new Promise(r => setTimeout(r, 12));
		return seen`},
	{name: "promise races between calls and timers", program: `
		const winners = [];
		for (let i = 0; i < 5; i++) {
			winners.push(await Promise.race([tools.get(i), new Promise(r => setTimeout(() => r("timer"), 2))]));
		}
		return winners`},
	{name: "clocks", program: `
		const a = Date.now(), p = performance.now(), d = new Date();
		await tools.get(1);
		const b = Date.now();
		console.log(typeof d.toISOString());
		return {a, b, p: Math.round(p * 1000), iso: d.toISOString(), later: b >= a}`},
	{name: "Math.random and crypto", program: `
		const r = [Math.random(), Math.random()];
		const bytes = Array.from(crypto.getRandomValues(new Uint8Array(16)));
		const id = crypto.randomUUID();
		await tools.get(r[0] > 0.5);
		return {r, bytes, id, more: Math.random()}`},
	{name: "time zones", program: `
		const d = new Date(Date.UTC(2024, 6, 1, 12));
		return d.toLocaleString("en-US", {timeZone: "America/New_York"}) + " " + new Intl.DateTimeFormat("en", {timeZone: "Asia/Tokyo", hour: "numeric"}).format(d)`},
	{name: "input", input: `{"n": 3, "items": ["a", "b"]}`, program: `
		const out = [];
		for (const it of input.items) out.push(await tools.get(it + input.n));
		return out`},
	{name: "exception after calls", kind: coderun.Exception, program: `
		await tools.get(1);
		const x = await tools.get(2);
		throw new Error("bad " + JSON.stringify(x))`},
	{name: "binding rejections", kind: coderun.Exception, program: `
		const r = await Promise.allSettled([tools.fail(1), tools.get(2), tools.fail(3)]);
		console.log(r.map(x => x.status).join());
		try { await tools.fail("caught"); } catch (e) { console.log(e.name, e.tool, e.message); }
		await tools.fail("uncaught")`},
	{name: "fuel timeout", kind: coderun.Timeout, cfg: func(c *coderun.Config) { c.Fuel = 3_000_000 }, program: `
		await tools.get(1);
		let x = 0;
		for (;;) { x += Math.random(); }`},
	{name: "invalid output", kind: coderun.InvalidOutput, program: `
		await tools.get(1);
		return {f() {}, n: 1n}`},
	{name: "output limit", kind: coderun.OutputLimit, cfg: func(c *coderun.Config) { c.MaxOutputBytes = 500 }, program: `
		for (let i = 0; i < 100; i++) { console.log("line " + i + " " + (await tools.get(i)).got); }`},
	{name: "memory limit", kind: coderun.WorkerExit, cfg: func(c *coderun.Config) { c.MemoryBytes = 16 << 20 }, program: `
		const keep = [];
		await tools.get(1);
		for (;;) keep.push(new Array(100000).fill(Math.random()));`},
	{name: "abort while computing", kind: coderun.Abort, cancel: 30 * time.Millisecond, program: `
		await tools.get(1);
		let i = 0;
		for (;;) { i++; if (i % 100000 === 0) Date.now(); }`},
	{name: "abort while waiting", kind: coderun.Abort, cancel: 20 * time.Millisecond, program: `
		await tools.get(1);
		await tools.hang(2)`},
	{name: "wall timeout while waiting", kind: coderun.Timeout, cfg: func(c *coderun.Config) { c.WallTime = 50 * time.Millisecond }, program: `
		await Promise.all([tools.get(1), tools.hang(2)])`},
	{name: "compute timeout", kind: coderun.Timeout, cfg: func(c *coderun.Config) { c.ComputeTime = 20 * time.Millisecond }, program: `
		await tools.get(1);
		for (;;) {}`},
	{name: "binding Goexit", kind: coderun.WorkerExit, program: `
		await tools.get(1);
		await Promise.all([tools.goexit(1), tools.get(2)])`},
	{name: "binding Goexit in a lone call", kind: coderun.WorkerExit, program: `
		await tools.get(1);
		await tools.goexit(2)`},
	{name: "abort in a lone call", kind: coderun.Abort, cancel: 20 * time.Millisecond, program: `
		await tools.get(1);
		await tools.hang(2)`},
	{name: "OnLog panics", kind: coderun.WorkerExit, onLog: func(e string) {
		if strings.HasPrefix(e, "boom") {
			panic("hook")
		}
	}, program: `
		console.log("fine");
		await tools.get(1);
		console.log("boom");
		console.log("never")`},
}

// recordCase records c on rt, with bindings delayed by up to maxDelay.
func recordCase(t *testing.T, rt *coderun.Runtime, c replayCase, maxDelay time.Duration) (coderun.Result, *coderun.Trace) {
	t.Helper()
	ctx := context.Background()
	if c.cancel > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cancel)
		defer cancel()
	}
	req := coderun.Request{Program: c.program, Bindings: []coderun.Namespace{delayedTools(maxDelay)}, OnLog: c.onLog}
	if c.input != "" {
		req.Input = json.RawMessage(c.input)
	}
	res, tr, err := rt.Record(ctx, req)
	require.NoError(t, err)
	require.NotNil(t, tr)
	return res, tr
}

// sameResult asserts that a replay returned the recorded result: value,
// logs, failure and fuel.
func sameResult(t *testing.T, want, got coderun.Result) {
	t.Helper()
	require.Equal(t, string(want.Value), string(got.Value), "value")
	require.Equal(t, want.Logs, got.Logs, "logs")
	require.Equal(t, want.Error, got.Error, "failure")
	require.Equal(t, want.Usage.Fuel, got.Usage.Fuel, "fuel")
	require.Equal(t, want.Usage.Calls, got.Usage.Calls, "calls")
}

// roundTrip writes the trace and reads it back, as a file would hold it.
func roundTrip(t *testing.T, tr *coderun.Trace) *coderun.Trace {
	t.Helper()
	var buf bytes.Buffer
	_, err := tr.WriteTo(&buf)
	require.NoError(t, err)
	back, err := coderun.ReadTrace(&buf, coderun.DefaultMaxTraceBytes)
	require.NoError(t, err)
	return back
}

// Every program, recorded with bindings that answer after random delays,
// replays to the recorded result on another Runtime, without calling a
// binding, whatever ended it.
func TestReplayIdentity(t *testing.T) {
	replayRT := newRuntimeConfig(t, coderun.DefaultConfig())
	for _, c := range replayCases {
		t.Run(c.name, func(t *testing.T) {
			cfg := coderun.DefaultConfig()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			rt := newRuntimeConfig(t, cfg)
			res, tr := recordCase(t, rt, c, 3*time.Millisecond)
			if c.kind == "" {
				require.Nil(t, res.Error, "recording: %+v", res.Error)
			} else {
				require.NotNil(t, res.Error, "recording succeeded: %s", res.Value)
				require.Equal(t, c.kind, res.Error.Kind, res.Error.Message)
			}
			require.Equal(t, res.Usage.Fuel, tr.Outcome.Fuel)
			back := roundTrip(t, tr)
			for i := 0; i < 2; i++ {
				got, err := replayRT.Replay(context.Background(), back, coderun.ReplayOptions{})
				require.NoError(t, err)
				sameResult(t, res, got)
			}
		})
	}
}

// An edited program is answered from the trace as long as it does what the
// recording did, and its first departure ends it as worker-exit, budget
// replay, naming the call, where it was made, and what the recording did.
func TestReplayDivergence(t *testing.T) {
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	_, tr := recordCase(t, rt, replayCase{program: `
		const a = await tools.get({id: 1});
		const t = Date.now();
		const [b, c] = await Promise.all([tools.get(2), tools.get(3)]);
		return [a, b, c, t > 0]`}, time.Millisecond)
	tests := []struct {
		name, program string
		value         string // the edited program's value, when it does not diverge
		message       []string
	}{
		{"a fix that changes no input", `
		const a = await tools.get({id: 1});
		const t = Date.now();
		const [b, c] = await Promise.all([tools.get(2), tools.get(3)]);
		return {fixed: [a.got.id, b.got, c.got]}`, `{"fixed":[1,2,3]}`, nil},
		{"another argument", `const a = await tools.get({id: 2});`, "",
			[]string{"replay diverged: the program made call 1, tools.get with argument sha256:", "but the recording made call 1, tools.get with argument sha256:", "(at program.ts:1:"}},
		{"another function", "const a = await tools.get({id: 1});\nconst t = Date.now();\n  await tools.fail(2)", "",
			[]string{"made call 2, tools.fail", "the recording made call 2, tools.get", "(at program.ts:3:"}},
		{"no clock reading", "const a = await tools.get({id: 1});\nawait tools.get(2)", "",
			[]string{"made call 2, tools.get", "but the recording read the clock there", "(at program.ts:2:"}},
		{"more clock readings", "const a = await tools.get({id: 1});\nDate.now(); Date.now();", "",
			[]string{"the program read the clock, but the recording made call 2, tools.get"}},
		{"more calls than recorded", `
		const a = await tools.get({id: 1});
		const t = Date.now();
		const [b, c] = await Promise.all([tools.get(2), tools.get(3)]);
		await tools.get(4)`, "", []string{"made call 4, tools.get", "the recording's trace ends there (it made 3 calls in all)", "(at program.ts:5:"}},
		{"waits where the recording called", "const a = await tools.get({id: 1});\nDate.now();\nawait tools.get(2);", "",
			[]string{"the program waited for its calls and timers, but the recording made call 3, tools.get"}},
		{"waits for a timer the recording did not set", "const a = await tools.get({id: 1});\nDate.now();\nawait Promise.all([tools.get(2), tools.get(3), new Promise(r => setTimeout(r, 1))]);\nawait new Promise(r => setTimeout(r, 1))", "",
			[]string{"the program waited for its calls and timers, but the recording's trace ends there"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rt.Replay(context.Background(), tr, coderun.ReplayOptions{Program: tc.program})
			requireReplayed(t, got, err, tc.value, tc.message)
		})
	}
}

// A secret namespace's results never reach the trace, and replay stops at
// its first call, saying why and where.
func TestReplaySecret(t *testing.T) {
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	vault := coderun.Namespace{Global: "vault", Secret: true, Functions: map[string]coderun.Func{
		"token": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`"s3cr3t-value"`), nil
		},
		"deny": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("s3cr3t-denial")
		},
	}}
	req := coderun.Request{Program: `const a = await tools.get(1);
const t = await vault.token({});
try { await vault.deny({}); } catch (e) { console.log(e.message.length); }
return [a, t.length]`, Bindings: []coderun.Namespace{delayedTools(0), vault}}
	res, tr, err := rt.Record(context.Background(), req)
	require.NoError(t, err)
	require.Nil(t, res.Error)
	var buf bytes.Buffer
	_, err = tr.WriteTo(&buf)
	require.NoError(t, err)
	require.NotContains(t, buf.String(), "s3cr3t")
	require.Contains(t, buf.String(), `"secret":true`)
	got, err := rt.Replay(context.Background(), tr, coderun.ReplayOptions{})
	require.NoError(t, err)
	require.NotNil(t, got.Error)
	require.Equal(t, coderun.BudgetReplay, got.Error.Budget)
	require.Contains(t, got.Error.Message, "replay cannot go past call 2, vault.token: its namespace marks its results secret, so the trace does not hold them (at program.ts:2:")
}

// A trace over MaxTraceBytes is dropped, never held whole: the run's result
// is complete, Record says why there is no trace.
func TestRecordTraceLimit(t *testing.T) {
	cfg := coderun.DefaultConfig()
	cfg.MaxTraceBytes = 64 << 10
	rt := newRuntimeConfig(t, cfg)
	big := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"big": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`"` + strings.Repeat("x", 10_000) + `"`), nil
		},
	}}
	tests := []struct {
		name, program string
		traced        bool
	}{
		{"fits", `let n = 0; for (let i = 0; i < 3; i++) n += (await tools.big(i)).length; return n`, true},
		{"results over the limit", `let n = 0; for (let i = 0; i < 10; i++) n += (await tools.big(i)).length; return n`, false},
		{"clock readings over the limit", `let n = 0; for (let i = 0; i < 1000; i++) n += Date.now() > 0 ? 1 : 0; return n`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, tr, err := rt.Record(context.Background(), coderun.Request{Program: tc.program, Bindings: []coderun.Namespace{big}})
			require.Nil(t, res.Error)
			require.NotEmpty(t, res.Value)
			if tc.traced {
				require.NoError(t, err)
				var buf bytes.Buffer
				_, err = tr.WriteTo(&buf)
				require.NoError(t, err)
				require.LessOrEqual(t, buf.Len(), 64<<10)
				return
			}
			require.ErrorIs(t, err, coderun.ErrTraceTooBig)
			require.Contains(t, err.Error(), "65536 bytes (MaxTraceBytes)")
			require.Nil(t, tr)
		})
	}
}

// Replay refuses, as misuse, a trace it cannot replay.
func TestReplayInvalidTrace(t *testing.T) {
	cfg := coderun.DefaultConfig()
	cfg.MemoryBytes = 64 << 20
	rt := newRuntimeConfig(t, cfg)
	_, tr := recordCase(t, rt, replayCase{program: `return await tools.get(1)`}, 0)
	tests := []struct {
		name   string
		change func(*coderun.Trace)
		want   string
	}{
		{"another version", func(t *coderun.Trace) { t.Version = 2 }, "not a coderun-trace of version 1"},
		{"budget over the runtime's", func(t *coderun.Trace) { t.Config.MemoryBytes = 128 << 20 },
			"its MemoryBytes is 134217728, over this runtime's 67108864"},
		{"budget out of bounds", func(t *coderun.Trace) { t.Config.MaxConcurrentCalls = 0 }, "its config: MaxConcurrentCalls must be positive"},
		{"invalid binding", func(t *coderun.Trace) { t.Bindings[0].Global = "1x" }, "its bindings:"},
		{"invalid input", func(t *coderun.Trace) { t.Input = json.RawMessage(`{"a":`) }, "its input:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := roundTrip(t, tr)
			tc.change(c)
			_, err := rt.Replay(context.Background(), c, coderun.ReplayOptions{})
			require.ErrorIs(t, err, coderun.ErrInvalidTrace)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := coderun.ReadTrace(strings.NewReader(`{"format":"other","version":1}`), 1<<20)
	require.ErrorIs(t, err, coderun.ErrInvalidTrace)
	_, err = coderun.ReadTrace(strings.NewReader(strings.Repeat(" ", 2000)), 1024)
	require.ErrorIs(t, err, coderun.ErrInvalidTrace)
}

// Replay calls no binding.
func TestReplayCallsNoBinding(t *testing.T) {
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	var calls atomic.Int64
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"get": func(ctx context.Context, a json.RawMessage) (json.RawMessage, error) {
			calls.Add(1)
			return a, nil
		},
	}}
	res, tr, err := rt.Record(context.Background(), coderun.Request{Program: `return await Promise.all([tools.get(1), tools.get(2)])`, Bindings: []coderun.Namespace{ns}})
	require.NoError(t, err)
	require.EqualValues(t, 2, calls.Load())
	got, err := rt.Replay(context.Background(), tr, coderun.ReplayOptions{})
	require.NoError(t, err)
	sameResult(t, res, got)
	require.EqualValues(t, 2, calls.Load())
}

// A hostile or damaged trace makes a replay fail with a message, never
// panic, hang or call a binding: traces with events dropped, duplicated,
// reordered or changed at random.
func TestReplayDamagedTrace(t *testing.T) {
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	_, tr := recordCase(t, rt, replayCase{program: `
		const t0 = Date.now();
		const [a, b] = await Promise.all([tools.get(1), tools.get(2)]);
		await new Promise(r => setTimeout(r, 1));
		const id = crypto.randomUUID();
		try { await tools.fail(3); } catch (e) { console.log(e.message); }
		return [a, b, id.length, Date.now() >= t0]`}, time.Millisecond)
	events := tr.Events()
	src := rand.New(rand.NewPCG(33, 1))
	damage := []func([]coderun.TraceEvent) []coderun.TraceEvent{
		func(ev []coderun.TraceEvent) []coderun.TraceEvent { // drop one
			i := src.IntN(len(ev))
			return append(ev[:i:i], ev[i+1:]...)
		},
		func(ev []coderun.TraceEvent) []coderun.TraceEvent { // duplicate one
			i := src.IntN(len(ev))
			return append(append(ev[:i+1:i+1], ev[i]), ev[i+1:]...)
		},
		func(ev []coderun.TraceEvent) []coderun.TraceEvent { // swap two
			ev = append([]coderun.TraceEvent(nil), ev...)
			i, j := src.IntN(len(ev)), src.IntN(len(ev))
			ev[i], ev[j] = ev[j], ev[i]
			return ev
		},
		func(ev []coderun.TraceEvent) []coderun.TraceEvent { // change a turn's deliveries
			ev = append([]coderun.TraceEvent(nil), ev...)
			for i := range ev {
				if ev[i].Type == "turn" && src.IntN(2) == 0 {
					ev[i].Deliveries = []coderun.Delivery{{Call: src.IntN(5) - 1, Timer: int32(src.IntN(3) - 1),
						Resolve: json.RawMessage(`{"x":`), Reject: json.RawMessage(`[1,2]`)}}
				}
			}
			return ev
		},
		func(ev []coderun.TraceEvent) []coderun.TraceEvent { // change types and values
			ev = append([]coderun.TraceEvent(nil), ev...)
			i := src.IntN(len(ev))
			ev[i].Type = []string{"call", "turn", "clock", "random", "zone", "stop", "bogus"}[src.IntN(7)]
			ev[i].Hex, ev[i].Nanos, ev[i].Place, ev[i].Fuel = "zz", -1, "yield", uint64(src.IntN(100000))
			return ev
		},
	}
	for k := 0; k < 60; k++ {
		c := roundTrip(t, tr)
		c.SetEvents(damage[k%len(damage)](events))
		c.Seed = src.Uint64()
		res, err := rt.Replay(context.Background(), c, coderun.ReplayOptions{})
		require.NoError(t, err)
		if res.Error != nil {
			require.NotEmpty(t, res.Error.Message)
		}
	}
}

// requireReplayed checks a replay's outcome: with no message, the value
// want; otherwise a divergence (worker-exit, BudgetReplay) whose message
// contains each of messages.
func requireReplayed(t *testing.T, got coderun.Result, err error, want string, messages []string) {
	t.Helper()
	require.NoError(t, err)
	if messages == nil {
		require.Nil(t, got.Error)
		require.JSONEq(t, want, string(got.Value))
		return
	}
	require.NotNil(t, got.Error, "value %s", got.Value)
	require.Equal(t, coderun.WorkerExit, got.Error.Kind)
	require.Equal(t, coderun.BudgetReplay, got.Error.Budget)
	for _, m := range messages {
		require.Contains(t, got.Error.Message, m)
	}
}
