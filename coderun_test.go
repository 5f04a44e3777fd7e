package coderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

func TestLabels(t *testing.T) {
	rt := newRuntime(t, nil)
	require.Equal(t, "typescript", rt.Language())
	require.Equal(t, "wasm", rt.Isolation())
}

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*coderun.Config)
		want   string
	}{
		{"compute", func(c *coderun.Config) { c.ComputeTime = -1 }, "Config.ComputeTime"},
		{"wall", func(c *coderun.Config) { c.WallTime = -time.Second }, "Config.WallTime"},
		{"memory low", func(c *coderun.Config) { c.MemoryBytes = 1 << 20 }, "Config.MemoryBytes"},
		{"memory negative", func(c *coderun.Config) { c.MemoryBytes = -1 }, "Config.MemoryBytes"},
		{"memory high", func(c *coderun.Config) { c.MemoryBytes = 5 << 30 }, "Config.MemoryBytes"},
		{"output", func(c *coderun.Config) { c.MaxOutputBytes = 3 }, "Config.MaxOutputBytes must be at least 4, got 3"},
		{"calls", func(c *coderun.Config) { c.MaxConcurrentCalls = -1 }, "Config.MaxConcurrentCalls"},
		{"program", func(c *coderun.Config) { c.MaxProgramBytes = -1 }, "Config.MaxProgramBytes must be positive, got -1"},
		{"argument", func(c *coderun.Config) { c.MaxArgumentBytes = 1 }, "Config.MaxArgumentBytes must be at least 2, got 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := coderun.DefaultConfig()
			tc.mutate(&cfg)
			_, err := coderun.New(cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestPreCancelledRunsNothing(t *testing.T) {
	rt := newRuntime(t, nil)
	var called atomic.Bool
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"mark": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			called.Store(true)
			return json.RawMessage(`1`), nil
		},
	}}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("user-cancel"))
	res, err := rt.Run(ctx, coderun.Request{Program: `console.log("ran"); await tools.mark({}); return 1`, Bindings: []coderun.Namespace{ns}})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "user-cancel"}, res.Error)
	require.Empty(t, res.Logs)
	require.NotNil(t, res.Logs)
	require.False(t, called.Load())
}

func TestInvalidBindingsAreMisuse(t *testing.T) {
	rt := newRuntime(t, nil)
	fn := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) { return nil, nil }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ns   []coderun.Namespace
		want string
	}{
		{"dollar", []coderun.Namespace{{Global: "$tools"}}, `binding global "$tools" is not a usable identifier`},
		{"await", []coderun.Namespace{{Global: "await"}}, `"await"`},
		{"lambda", []coderun.Namespace{{Global: "lambda"}}, `"lambda"`},
		{"console", []coderun.Namespace{{Global: "console"}}, `reserved binding global "console"`},
		{"duplicate", []coderun.Namespace{{Global: "tools"}, {Global: "tools"}}, `duplicate binding global "tools"`},
		{"class collides", []coderun.Namespace{{Global: "tools", ErrorClass: &coderun.ErrorClass{Name: "tools", MemberNameProperty: "toolName"}}}, `duplicate injected global "tools"`},
		{"member property", []coderun.Namespace{{Global: "tools", Functions: map[string]coderun.Func{"f": fn}, ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "message"}}}, `binding error member property "message" is not usable`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rt.Run(ctx, coderun.Request{Program: "return 1", Bindings: tc.ns})
			require.ErrorIs(t, err, coderun.ErrInvalidBinding)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A cancel made while the program loops ends the run as an abort with the
// cancel's cause, keeping what the program logged before. The cancel comes
// 20 ms after the log entry, from a timer, whatever the machine's load:
// the program is in its loop by then.
func TestAbortDuringLoop(t *testing.T) {
	rt := newRuntime(t, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	onLog := func(string) { time.AfterFunc(20*time.Millisecond, func() { cancel(errors.New("user-cancel")) }) }
	res, err := rt.Run(ctx, coderun.Request{Program: `console.log("before"); for(;;){}`, OnLog: onLog})
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "user-cancel"}, res.Error)
	require.Equal(t, []string{"before"}, res.Logs)
	require.Nil(t, res.Value)
}

func TestCloseDuringRun(t *testing.T) {
	cfg := coderun.DefaultConfig()
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	started := make(chan struct{})
	ns := coderun.Namespace{Global: "sig", Functions: map[string]coderun.Func{
		"started": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			close(started)
			return json.RawMessage(`1`), nil
		},
	}}
	var res coderun.Result
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = rt.Run(context.Background(), coderun.Request{Program: `await sig.started({}); for(;;){}`, Bindings: []coderun.Namespace{ns}})
	}()
	<-started
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, rt.Close(context.Background()))
	// Close returned, so the run has settled: Run is returning its result.
	select {
	case <-done:
	case <-time.After(time.Minute): // a watchdog: Run returns as Close does
		t.Fatal("Close returned but the run did not, a minute later")
	}
	require.NoError(t, err)
	require.Equal(t, &coderun.Failure{Kind: coderun.Abort, Message: "runtime disposed"}, res.Error)
	_, err = rt.Run(context.Background(), coderun.Request{Program: "return 1"})
	require.ErrorIs(t, err, coderun.ErrClosed)
	require.NoError(t, rt.Close(context.Background()), "Close is idempotent")
}

func TestIsolationBetweenRuns(t *testing.T) {
	rt := newRuntime(t, nil)
	res, err := rt.Run(context.Background(), coderun.Request{Program: `globalThis.leak = 1; Object.prototype.polluted = 1; Array.prototype.push = null; return 1`})
	require.NoError(t, err)
	require.JSONEq(t, `1`, string(res.Value))
	res, err = rt.Run(context.Background(), coderun.Request{Program: `return [typeof globalThis.leak, typeof ({}).polluted, typeof [].push]`})
	require.NoError(t, err)
	require.JSONEq(t, `["undefined","undefined","function"]`, string(res.Value))
}

func TestConcurrentRuns(t *testing.T) {
	rt := newRuntime(t, nil)
	// Warm up so that lazily started runtime goroutines are counted in the baseline.
	_, err := rt.Run(context.Background(), coderun.Request{Program: "return 0"})
	require.NoError(t, err)
	before := goruntime.NumGoroutine()
	var wg sync.WaitGroup
	errs := make([]error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := rt.Run(context.Background(), coderun.Request{Program: fmt.Sprintf("await null; return %d * 2", i)})
			if err == nil && string(res.Value) != fmt.Sprint(i*2) {
				err = fmt.Errorf("run %d got %s (%v)", i, res.Value, res.Error)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	// Polled by hand: require.Eventually runs its condition on a goroutine
	// of its own, which would be counted.
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, goruntime.NumGoroutine(), before, "goroutines leaked")
}

// Every run starts from the same pre-initialized snapshot, so per-run
// entropy must come from the host: two runs never share Math.random's
// sequence.
func TestRandomDiffersAcrossRuns(t *testing.T) {
	rt := newRuntime(t, nil)
	seqs := map[string]bool{}
	for range 5 {
		res, err := rt.Run(context.Background(), coderun.Request{Program: `return [Math.random(), Math.random(), Math.random()]`})
		require.NoError(t, err)
		require.Nil(t, res.Error)
		require.False(t, seqs[string(res.Value)], "a Math.random sequence repeated across runs: %s", res.Value)
		seqs[string(res.Value)] = true
	}
}

// Nothing a run does to the prelude's own state (console, timers, pending
// calls, captured intrinsics) is visible to the next run.
func TestPreludeStateDoesNotLeak(t *testing.T) {
	rt := newRuntime(t, nil)
	ns := toolsNamespace()
	res, err := rt.Run(context.Background(), coderun.Request{Bindings: []coderun.Namespace{ns}, Program: `
		console.log = () => {}; console.extra = 1
		setTimeout(() => {}, 100000)
		void tools.never({})
		globalThis.setTimeout = null; JSON.parse = null; Function.prototype.call = null
		return 1`})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	res, err = rt.Run(context.Background(), coderun.Request{Bindings: []coderun.Namespace{ns}, Program: `
		console.log("visible")
		await new Promise(r => setTimeout(r, 1))
		return [Object.keys(console).length, typeof JSON.parse, typeof Function.prototype.call, (await tools.echo({a: 1})).echoed.a]`})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.Equal(t, []string{"visible"}, res.Logs)
	require.JSONEq(t, `[5, "function", "function", 1]`, string(res.Value))
}

func TestPrewarm(t *testing.T) {
	before := goruntime.NumGoroutine()
	cfg := coderun.DefaultConfig()
	cfg.Prewarm = 2
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := rt.Run(context.Background(), coderun.Request{Program: fmt.Sprintf("globalThis.mine = %d; await null; return globalThis.mine + (globalThis.other ?? 0)", i)})
			require.NoError(t, err)
			require.JSONEq(t, fmt.Sprint(i), string(res.Value), "a prewarmed instance must be fresh")
		}()
	}
	wg.Wait()
	require.NoError(t, rt.Close(context.Background()))
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, goruntime.NumGoroutine(), before, "the prewarm goroutine must stop at Close")

	cfg.Prewarm = -1
	_, err = coderun.New(cfg)
	require.ErrorContains(t, err, "Config.Prewarm must not be negative, got -1")
}

// Result.Usage reports what a run cost: calls, log bytes as the ledger
// counts them, fuel, times, and the peak memory within MemoryBytes.
func TestUsage(t *testing.T) {
	rt := newRuntime(t, nil)
	tools := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}
	res, err := rt.Run(context.Background(), coderun.Request{
		Program:  `console.log("ab"); console.log("c"); await Promise.all([tools.echo(1), tools.echo(2)]); return await tools.echo(3)`,
		Bindings: []coderun.Namespace{tools},
	})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	u := res.Usage
	require.Equal(t, 3, u.Calls)
	require.Equal(t, int64(len(`"ab","c"`)), u.LogBytes)
	require.NotZero(t, u.Fuel)
	require.Positive(t, u.ComputeTime)
	require.GreaterOrEqual(t, u.WallTime, u.ComputeTime)
	require.LessOrEqual(t, u.PeakMemoryBytes, coderun.DefaultConfig().MemoryBytes)

	b, err := json.Marshal(res)
	require.NoError(t, err)
	var back coderun.Result
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, u.Fuel, back.Usage.Fuel)
	require.Equal(t, u.Calls, back.Usage.Calls)
	require.InDelta(t, float64(u.WallTime), float64(back.Usage.WallTime), float64(time.Microsecond))

	// A run that never started cost nothing, and its JSON has no usage.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = rt.Run(ctx, coderun.Request{Program: `return 1`})
	require.NoError(t, err)
	require.Zero(t, res.Usage)
	b, err = json.Marshal(res)
	require.NoError(t, err)
	require.NotContains(t, string(b), "usage")
}

// DefaultConfig's budgets, which come from budget.Fields, are the
// documented ones; a budget not pinned here (one just added) has its row's
// default, and every other field of Config is pinned.
func TestDefaultConfigBudgets(t *testing.T) {
	pinned := coderun.Config{
		Fuel:               coderun.DefaultFuel,
		ComputeTime:        60 * time.Second,
		WallTime:           10 * time.Minute,
		MemoryBytes:        256 << 20,
		MaxOutputBytes:     64 << 20,
		MaxConcurrentCalls: 16,
		MaxProgramBytes:    1 << 20,
		MaxArgumentBytes:   8 << 20,
		MaxInputBytes:      1 << 20,
		MaxTraceBytes:      64 << 20,
	}
	rows := map[string]budget.Field{}
	for _, f := range budget.Fields() {
		rows[f.Name] = f
	}
	want, got := reflect.ValueOf(&pinned).Elem(), reflect.ValueOf(coderun.DefaultConfig())
	for i := range want.NumField() {
		name := want.Type().Field(i).Name
		if f, ok := rows[name]; ok && want.Field(i).IsZero() {
			require.EqualValues(t, f.Default, got.Field(i).Convert(reflect.TypeFor[int64]()).Int(), "Config.%s", name)
			continue
		}
		require.Equal(t, want.Field(i).Interface(), got.Field(i).Interface(), "Config.%s", name)
	}
	require.EqualValues(t, 4_000_000_000, coderun.DefaultFuel)
}

// New's error reads "coderun: Config.Field reason, got value", word for
// word as before budget's field table, and wraps the *budget.FieldError.
func TestNewConfigErrorText(t *testing.T) {
	tests := []struct {
		mutate func(*coderun.Config)
		want   string
	}{
		{func(c *coderun.Config) { c.ComputeTime = -1 }, "coderun: Config.ComputeTime must be positive, got -1ns"},
		{func(c *coderun.Config) { c.WallTime = -time.Second }, "coderun: Config.WallTime must be positive, got -1s"},
		{func(c *coderun.Config) { c.MaxTraceBytes = 100 }, "coderun: Config.MaxTraceBytes must be at least 1 KiB (1024), got 100"},
		{func(c *coderun.Config) { c.MemoryBytes = 1 << 20 },
			"coderun: Config.MemoryBytes must be between 4 MiB (4194304) and 4 GiB (4294967296), got 1048576"},
		{func(c *coderun.Config) { c.MaxConcurrentCalls = -3 }, "coderun: Config.MaxConcurrentCalls must be positive, got -3"},
		{func(c *coderun.Config) { c.Prewarm = -1 }, "coderun: Config.Prewarm must not be negative, got -1"},
	}
	for _, tc := range tests {
		cfg := coderun.DefaultConfig()
		tc.mutate(&cfg)
		_, err := coderun.New(cfg)
		require.EqualError(t, err, tc.want)
		_, ok := errors.AsType[*budget.FieldError](err)
		require.True(t, ok, "wraps the field error")
	}
}

// Result.Err is nil after a success, where assigning the nil *Failure to an
// error would not be, and the Failure after a failure.
func TestResultErr(t *testing.T) {
	rt, err := coderun.New(coderun.DefaultConfig())
	require.NoError(t, err)
	defer rt.Close(context.Background())
	res, err := rt.Run(context.Background(), coderun.Request{Program: "return 1"})
	require.NoError(t, err)
	var typed error = res.Error
	require.True(t, typed != nil, "the trap Err avoids: a nil *Failure in an error is not nil")
	require.NoError(t, res.Err())
	res, err = rt.Run(context.Background(), coderun.Request{Program: "throw new Error('no')"})
	require.NoError(t, err)
	var f *coderun.Failure
	require.ErrorAs(t, res.Err(), &f)
	require.Equal(t, coderun.Exception, f.Kind)
}

// A zero field of Config takes its default, as net/http's Server does: the
// zero Config runs, and a Config that sets some fields has the defaults for
// the others (the program limit's, here, seen in its message).
func TestZeroConfigTakesDefaults(t *testing.T) {
	for _, cfg := range []coderun.Config{{}, {MemoryBytes: 32 << 20, Prewarm: 1}} {
		rt, err := coderun.New(cfg)
		require.NoError(t, err, "%+v", cfg)
		res, err := rt.Run(context.Background(), coderun.Request{Program: "return 6 * 7"})
		require.NoError(t, err)
		require.NoError(t, res.Err())
		require.JSONEq(t, "42", string(res.Value))
		huge := "return 1" + strings.Repeat(" ", 1<<20)
		res, err = rt.Run(context.Background(), coderun.Request{Program: huge})
		require.NoError(t, err)
		require.Equal(t, coderun.BudgetProgram, res.Error.Budget)
		require.Contains(t, res.Error.Message, "over the limit of 1048576 bytes (MaxProgramBytes)")
		require.NoError(t, rt.Close(context.Background()))
	}
	// Only a zero is a default: a value out of bounds is still refused.
	_, err := coderun.New(coderun.Config{MaxOutputBytes: 3})
	require.EqualError(t, err, "coderun: Config.MaxOutputBytes must be at least 4, got 3")
}
