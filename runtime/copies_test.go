package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// engineWith returns an engine with testEngine's limits changed by set.
func engineWith(t *testing.T, set func(l *budget.Limits)) *Engine {
	t.Helper()
	l := budget.Limits{
		Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: time.Minute,
		MemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
		MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
	}.WithDefaults()
	set(&l)
	e, err := New(context.Background(), Options{Limits: l, CacheDir: testCacheDir(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}

// heapInUse returns the bytes of live Go heap objects, after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// 200 calls that are never awaited, sharing one 1 MiB string, in a 16 MiB
// run: each call's copy of its argument is charged to the run's memory
// until the call returns, so the calls past the budget are refused with a
// message that names it, and the host holds no more than the budget.
func TestPendingArgumentsAreCharged(t *testing.T) {
	const memory = 16 << 20
	e := engineWith(t, func(l *budget.Limits) { l.MemoryBytes = memory; l.MaxConcurrentCalls = 256 })
	release := make(chan struct{})
	var peak int64
	var ended *run
	e.hooks.ended = func(r *run) { peak, ended = r.mem.Peak(), r }
	base := heapInUse()
	var grown int64
	bindings := []Binding{{Global: "api", Functions: map[string]Func{
		"hold": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			<-release
			return []byte("1"), nil
		},
		"measure": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			grown = heapInUse() - base
			close(release)
			return []byte("1"), nil
		},
	}}}
	// The calls to hold wait until measure has measured the heap with all
	// of them pending; the program then waits for them, so that none
	// outlives the run.
	o, err := e.run(context.Background(), `
		const s = "x".repeat(1 << 20);
		const messages = [], calls = [];
		for (let i = 0; i < 200; i++) calls.push(api.hold(s).catch(e => messages.push(e.message)));
		await api.measure(0);
		await Promise.all(calls);
		return messages;`, bindings)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	var messages []string
	require.NoError(t, json.Unmarshal(o.Value, &messages))
	require.NotEmpty(t, messages, "the calls past the budget are refused")
	refused := fmt.Sprintf("binding argument of %d bytes does not fit in the run's memory budget (MemoryBytes %d)", 1<<20+2, memory)
	for _, m := range messages {
		require.Equal(t, refused, m)
	}
	accepted := 200 - len(messages)
	require.LessOrEqual(t, accepted, memory/(1<<20), "no more copies than fit in the budget")
	require.LessOrEqual(t, peak, int64(memory))
	require.LessOrEqual(t, grown, int64(memory+16<<20), "heap growth while the calls were pending")
	require.Zero(t, ended.mem.Used(), "every charge is released when the run ends")
	t.Logf("%d calls accepted, %d refused; heap grew %.1f MiB; peak charged %.1f MiB",
		accepted, len(messages), float64(grown)/(1<<20), float64(peak)/(1<<20))
}

// An argument over MaxArgumentBytes, read in place, printed by the guest or
// converted from non-ASCII characters, is refused with a message naming
// its size and the limit; one at the limit is taken.
func TestArgumentOverLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		arg   string // an expression
		size  int    // of its JSON text in UTF-8
	}{
		{"9 MiB string", 8 << 20, `"x".repeat(9 << 20)`, 9<<20 + 2},
		{"read in place", 16, `{a: "0123456789abcdef"}`, 24},
		{"Latin-1 string", 500000, `"é".repeat(300000)`, 600002},
		{"wide string", 500000, `"日".repeat(200000)`, 600002},
		{"object printed by the guest", 1000, `Array.from({length: 300}, (_, i) => i)`, 1091},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := engineWith(t, func(l *budget.Limits) { l.MaxArgumentBytes = tc.limit })
			var calls int
			bindings := []Binding{{Global: "api", ErrorClass: "ApiError", MemberProperty: "member", Functions: map[string]Func{
				"size": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
					calls++
					return []byte(fmt.Sprint(len(args))), nil
				},
			}}}
			o, err := e.run(context.Background(), fmt.Sprintf(`
				const v = %s;
				let over;
				try { await api.size(v) } catch (e) { over = e.name + ": " + e.message }
				return [over, await api.size("x".repeat(%d - 2))];`, tc.arg, tc.limit), bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			want := fmt.Sprintf(`["ApiError: binding argument is %d bytes, over the limit of %d bytes (MaxArgumentBytes)",%d]`,
				tc.size, tc.limit, tc.limit)
			require.Equal(t, want, string(o.Value))
			require.Equal(t, 1, calls, "the call over the limit never reaches the binding")
		})
	}
}

// A big argument is passed whole, whether it is ASCII (viewed in place),
// Latin-1 or wide (converted by the guest), after being read in pieces.
func TestBigArgumentsArrive(t *testing.T) {
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 8 << 20 })
	var pieces int
	e.hooks.ended = func(r *run) { pieces = r.pieces }
	bindings := []Binding{{Global: "api", Functions: map[string]Func{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}}
	for _, expr := range []string{`"x".repeat(1 << 20)`, `"é".repeat(1 << 19)`, `"日😀".repeat(1 << 17)`, `"x".repeat(1 << 20) + "é"`} {
		t.Run(expr, func(t *testing.T) {
			o, err := e.run(context.Background(), `const v = `+expr+`; const r = await api.echo(v); return r === v`, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			require.Equal(t, "true", string(o.Value))
			require.GreaterOrEqual(t, pieces, 2, "read in pieces")
		})
	}
}

// A 20 MB argument is read, copied and checked in pieces (over 200 of
// them); a cancel is seen at the next piece: none is processed after it.
// How long that takes is a matter of the piece's size (see textPiece), not
// of the argument's; measured, it goes in docs, not here.
func TestBigArgumentCancelIsSeenAtOnce(t *testing.T) {
	e := engineWith(t, func(l *budget.Limits) { l.MemoryBytes = 1 << 30; l.MaxArgumentBytes = 256 << 20 })
	bindings := []Binding{{Global: "api", Functions: map[string]Func{
		"size": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return []byte(fmt.Sprint(len(args))), nil
		},
	}}}
	const program = `const s = "x".repeat(2e7); return await api.size(s)`

	// The cancel comes from the piece hook, on the run's goroutine.
	for _, at := range []int{1, 100, 200} {
		ctx, cancel := context.WithCancel(context.Background())
		var after, total int
		e.hooks.piece = func(r *run) {
			if r.pieces == at {
				cancel()
			} else if r.pieces > at {
				after++
			}
		}
		e.hooks.ended = func(r *run) { total = r.pieces }
		o, err := e.run(ctx, program, bindings)
		cancel()
		require.NoError(t, err)
		require.Equal(t, KindAbort, o.Kind, "cancelled at piece %d", at)
		require.Equal(t, at, total)
		require.LessOrEqual(t, after, 1)
	}

	// The cancel is made on another goroutine while the run waits at piece
	// 100: the run sees it through its ctx at the next piece.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mid, cancelled := make(chan struct{}), make(chan struct{})
	var after int
	e.hooks.piece = func(r *run) {
		if r.pieces == 100 {
			close(mid)
			<-cancelled
		} else if r.pieces > 100 {
			after++
		}
	}
	e.hooks.ended = nil
	go func() { <-mid; cancel(); close(cancelled) }()
	o, err := e.run(ctx, program, bindings)
	require.NoError(t, err)
	require.Equal(t, KindAbort, o.Kind)
	require.LessOrEqual(t, after, 1, "pieces processed after a cancel made on another goroutine")
}

// The program's big value is copied in pieces, and a cancel during the
// copy is seen at the next piece.
func TestBigValueIsCopiedInPieces(t *testing.T) {
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 16 << 20 })
	var total int
	e.hooks.ended = func(r *run) { total = r.pieces }
	o := mustRun(t, e, `return "x".repeat(4 << 20)`)
	require.Empty(t, o.Kind, o.Message)
	require.Len(t, o.Value, 4<<20+2)
	require.GreaterOrEqual(t, total, (4<<20)/textPiece, "the value's text is read and copied in pieces")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	after := 0
	e.hooks.piece = func(r *run) {
		if r.pieces == 3 {
			cancel()
		} else if r.pieces > 3 {
			after++
		}
	}
	o, err := e.run(ctx, `return "x".repeat(4 << 20)`, nil)
	require.NoError(t, err)
	require.Equal(t, KindAbort, o.Kind)
	require.LessOrEqual(t, after, 1)
}

// A long log entry is read and copied in pieces, like a value, and a cancel is seen at the next
// piece: in the ASCII check of its text (pieces 1-31 of an 8 MiB entry) or in its copy (32-63).
func TestBigLogEntryCancelIsSeenAtOnce(t *testing.T) {
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 64 << 20; l.MemoryBytes = 256 << 20 })
	const program = `console.log("x".repeat(8 << 20)); return 1`
	var total int
	e.hooks.ended = func(r *run) { total = r.pieces }
	o := mustRun(t, e, program)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, 2*(8<<20)/textPiece-2, total, "checked, then copied, in pieces")
	for _, at := range []int{1, 20, 40, 60} {
		ctx, cancel := context.WithCancel(context.Background())
		e.hooks.piece = func(r *run) {
			if r.pieces == at {
				cancel()
			}
		}
		o, err := e.run(ctx, program, nil)
		cancel()
		require.NoError(t, err)
		require.Equal(t, KindAbort, o.Kind, "cancelled at piece %d", at)
		require.Equal(t, at, total, "no piece after the cancel")
		require.Empty(t, o.Logs)
	}
}

// A binding's result is charged to the run's memory until it is
// delivered; one that does not fit is rejected with a message naming the
// budget.
func TestResultOverMemory(t *testing.T) {
	const memory = 16 << 20
	e := engineWith(t, func(l *budget.Limits) { l.MemoryBytes = memory })
	big := []byte(`"` + strings.Repeat("x", 20<<20) + `"`)
	bindings := []Binding{{Global: "api", Functions: map[string]Func{
		"big": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return big, nil },
	}}}
	o, err := e.run(context.Background(), `try { await api.big(0) } catch (e) { return e.message }`, bindings)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	want := fmt.Sprintf("binding result of %d bytes does not fit in the run's memory budget (MemoryBytes %d)", len(big), memory)
	require.Equal(t, `"`+want+`"`, string(o.Value))
}

// Log entries, short and long: the host keeps their text once and 32 bytes an entry, all of it
// charged to the run's memory before it is allocated, and hands the same strings to the caller.
func TestLogsAreCompact(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 64 << 20; l.MemoryBytes = 256 << 20 })
	tests := []struct {
		name, program string
		entries       int
		text          int64 // bytes of text in all
	}{
		{"empty", `for (let i = 0; i < 1e6; i++) console.log("")`, 1e6, 0},
		{"short", `for (let i = 0; i < 1e5; i++) console.log("entry", i)`, 1e5, 1e5*6 + 488890},
		{"long", `for (let i = 0; i < 100; i++) console.log("é".repeat(10000 + i))`, 100, 2 * (100*10000 + 4950)},
		{"mixed", `for (let i = 0; i < 100; i++) { console.log("x".repeat(9000)); console.log(i) }`, 200, 100*9000 + 190},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var store, charged int64
			e.hooks.ended = func(r *run) { store, charged = r.logs.size(), r.mem.Used() }
			mustRun(t, e, "return 1")
			before := heapInUse()
			o := mustRun(t, e, tc.program)
			held := heapInUse() - before
			require.Empty(t, o.Kind, o.Message)
			require.Len(t, o.Logs, tc.entries)
			var text int64
			for _, l := range o.Logs {
				text += int64(len(l))
			}
			require.Equal(t, tc.text, text)
			// 16 bytes an entry for its string in a block and 16 in Outcome.Logs; a chunk's
			// unused end, or a long entry's rounding to a page.
			require.LessOrEqual(t, store, text+text/8+32*int64(tc.entries)+64<<10)
			require.GreaterOrEqual(t, charged, store, "the store is charged to the run's memory")
			require.LessOrEqual(t, held, store+256<<10, "the host holds no more than it charged")
			t.Logf("%d entries, %d bytes: store %d bytes, held %d", tc.entries, text, store, held)
		})
	}
}

// Forty log entries of 1 MiB in a 64 MiB run: the host allocates the entries' text once, the
// run's peak counts it, and the run's Go allocations stay within its peak (40 MiB of logs would
// cost the host 160 MiB when the store grew by copying and was copied again at the end).
func TestLogsCostTheirText(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 64 << 20; l.MemoryBytes = 64 << 20 })
	mustRun(t, e, "return 1")
	before := totalAlloc()
	o := mustRun(t, e, `const s = "x".repeat(1 << 20); for (let i = 0; i < 40; i++) console.log(s)`)
	allocated := totalAlloc() - before
	require.Empty(t, o.Kind, o.Message)
	require.Len(t, o.Logs, 40)
	t.Logf("allocated %.1f MiB, peak %.1f MiB", mib(allocated), mib(o.PeakMemory))
	require.LessOrEqual(t, allocated, int64(40<<20+2<<20))
	require.GreaterOrEqual(t, o.PeakMemory, int64(40<<20), "the logs are in the peak")
	require.LessOrEqual(t, allocated, o.PeakMemory)
}

// Logs that do not fit in the run's memory end it as a memory failure.
func TestLogsOverMemory(t *testing.T) {
	const memoryBytes = 16 << 20
	e := engineWith(t, func(l *budget.Limits) { l.MaxOutputBytes = 64 << 20; l.MemoryBytes = memoryBytes })
	var store int64
	e.hooks.ended = func(r *run) { store = r.logs.size() }
	o := mustRun(t, e, `for (let i = 0; i < 10000; i++) console.log("x".repeat(4000))`)
	require.Equal(t, KindWorkerExit, o.Kind)
	require.Equal(t, budget.MemoryMessage(memoryBytes), o.Message)
	require.LessOrEqual(t, store, int64(memoryBytes))
	require.NotEmpty(t, o.Logs)
}
