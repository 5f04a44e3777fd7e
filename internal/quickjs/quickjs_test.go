package quickjs

import (
	"context"
	"fmt"
	"reflect"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
	"github.com/stretchr/testify/require"
)

type nopHost struct{ writes []string }

func (h *nopHost) Call(in *Instance, args []Value) Value    { return Undefined }
func (h *nopHost) Write(fd uint32, p []byte)                { h.writes = append(h.writes, string(p)) }
func (h *nopHost) Sleep(d time.Duration)                    {}
func (h *nopHost) Exit(code uint32)                         {}
func (h *nopHost) FuelYield(in *Instance, left int64) int64 { return 1 << 40 }

// newInstance returns an initialized instance of the QuickJS-NG module with
// the passes Instantiate needs, served by h and closed when t ends.
func newInstance(t testing.TB, h Host) *Instance {
	t.Helper()
	return newInstanceWith(t, h, InitOptions{StackMargin: 8 << 10}, wasm.AddDispatcher)
}

// newInstanceWith is newInstance with the given passes (in order) and
// initialization options.
func newInstanceWith(t testing.TB, h Host, opts InitOptions, passes ...func(*wasm.Module) error) *Instance {
	t.Helper()
	ctx := context.Background()
	m, err := wasm.Decode(upstream.Module())
	require.NoError(t, err)
	for _, pass := range passes {
		require.NoError(t, pass(m))
	}
	bin, err := m.Encode()
	require.NoError(t, err)
	e, err := NewEngine(ctx, Options{Wasm: bin, MemoryLimitPages: 1024})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close(ctx) })
	in, err := e.Instantiate(ctx, h)
	require.NoError(t, err)
	t.Cleanup(func() { _ = in.Close(ctx) })
	require.NoError(t, in.Init(opts))
	return in
}

func TestEvalAndLayout(t *testing.T) {
	in := newInstance(t, &nopHost{})
	// The offsets are those of the build (build.json's sources and flags):
	// offsetof(JSRuntime, stack_size), stack_limit, current_exception,
	// interrupt_handler and atom_array, sizeof(JSString) and
	// offsetof(JSContext, error_prepare_stack), as clang computes them for
	// wasm32; the object layout (discoverObjects) is found: plain values are
	// read in place.
	l := in.Layout()
	require.NotZero(t, l.ObjectProto)
	require.NotZero(t, l.ArrayProto)
	l.ObjectProto, l.ArrayProto = 0, 0 // addresses in this instance's heap
	require.Equal(t, Layout{StackSize: 628, StackLimit: 636, CurrentException: 640, InterruptHandler: 656, StringChars: 16,
		AtomArray: 568, ClassObject: 1, ClassArray: 2,
		ErrorStack: 184, StackBase: l.StackBase, HeapBase: l.HeapBase}, l)
	// The stack region is [__data_end rounded up to 16, __heap_base), the
	// linker's 64 KiB (-z stack-size=65536), as the module declares them.
	require.Contains(t, upstream.Build().LDFlags, "-Wl,-z,stack-size=65536")
	require.Equal(t, uint32(65536), l.HeapBase-l.StackBase)
	m, err := wasm.Decode(upstream.Module())
	require.NoError(t, err)
	declared := map[string]uint32{}
	for _, e := range m.Exports {
		if e.Kind == wasm.ExternGlobal {
			declared[e.Name] = uint32(m.Globals[e.Index].Init[0].C)
		}
	}
	require.Equal(t, (declared["__data_end"]+15)&^15, l.StackBase)
	require.Equal(t, declared["__heap_base"], l.HeapBase)
	v, err := in.Eval(`JSON.stringify({a: [1, 2, "€"]})`, "t.js", EvalGlobal)
	require.NoError(t, err)
	s, err := in.String(v)
	require.NoError(t, err)
	require.Equal(t, `{"a":[1,2,"€"]}`, s)
	v, err = in.Eval(`function f(){ return f() } try { f() } catch (e) { String(e) }`, "t.js", EvalGlobal)
	require.NoError(t, err)
	s, err = in.String(v)
	require.NoError(t, err)
	require.Equal(t, "RangeError: Maximum call stack size exceeded", s)

	// Call runs no jobs; RunJobs runs them all, in order.
	fn, err := in.Eval(`globalThis.order = []; (function () { Promise.resolve().then(() => order.push(1)).then(() => order.push(2)); order.push(0) })`, "t.js", EvalGlobal)
	require.NoError(t, err)
	show, err := in.Eval(`(function () { return String(order) })`, "t.js", EvalGlobal)
	require.NoError(t, err)
	_, err = in.Call(fn, Undefined)
	require.NoError(t, err)
	v, err = in.Call(show, Undefined)
	require.NoError(t, err)
	s, err = in.String(v)
	require.NoError(t, err)
	require.Equal(t, "0", s)
	exc, err := in.RunJobs()
	require.NoError(t, err)
	require.False(t, exc)
	v, err = in.Call(show, Undefined)
	require.NoError(t, err)
	s, err = in.String(v)
	require.NoError(t, err)
	require.Equal(t, "0,1,2", s)
}

// ViewString reads ASCII strings in place and converts every other string
// through QJS_ToCString; both ways give the same WTF-8 bytes.
func TestViewString(t *testing.T) {
	in := newInstance(t, &nopHost{})
	require.NotZero(t, in.Layout().StringChars)

	for _, tc := range []struct {
		name, src, want string
		inPlace         bool
	}{
		{"ascii", `'{"q":"go","n":[1,2]}'`, `{"q":"go","n":[1,2]}`, true},
		{"empty", `''`, ``, true},
		{"concatenated", `let s = ''; for (let i = 0; i < 100; i++) s += 'ab' + i; s`, "", true},
		{"long", `'x'.repeat(1 << 20)`, strings.Repeat("x", 1<<20), true},
		{"latin1", `'caf\u00e9'`, "café", false},
		{"wide", `'\u20ac1'`, "€1", false},
		{"lone surrogate", `'a\ud800'`, "a\xed\xa0\x80", false},
		{"number", `42`, "42", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := in.Eval(tc.src, "t.js", EvalGlobal)
			require.NoError(t, err)
			defer in.FreeValue(v)
			_, inPlace := in.asciiChars(v)
			require.Equal(t, tc.inPlace, inPlace)
			fast, err := in.String(v)
			require.NoError(t, err)
			chars := in.layout.StringChars
			in.layout.StringChars = 0
			slow, err := in.String(v)
			in.layout.StringChars = chars
			require.NoError(t, err)
			require.Equal(t, slow, fast)
			if tc.want != "" {
				require.Equal(t, tc.want, fast)
			}
		})
	}
}

// reentrantHost calls back into the instance from Host.Call, the way the
// runtime reads a log message or parses a binding's result: nested calls.
type reentrantHost struct {
	nopHost
	t     *testing.T
	depth int
}

func (h *reentrantHost) Call(in *Instance, args []Value) Value {
	h.depth++
	defer func() { h.depth-- }()
	s, err := in.String(args[0])
	require.NoError(h.t, err)
	if h.depth < 3 {
		// Call the proxy again from inside its own call: three levels.
		v, err := in.Eval(`globalThis.proxy("`+s+`+")`, "t.js", EvalGlobal)
		require.NoError(h.t, err)
		return v
	}
	v, err := in.ParseJSON([]byte(`"` + s + `!"`))
	require.NoError(h.t, err)
	return v
}

// A call into the instance from inside a Host.Call, nested in a call into
// the instance, gets a call engine of its own: it must not overwrite the
// native stack of the call it is nested in.
func TestReentrantCalls(t *testing.T) {
	in := newInstance(t, &reentrantHost{t: t})
	proxy, err := in.NewFunctionProxy(0)
	require.NoError(t, err)
	// The host function, called as prelude.js calls it (the host skips the
	// first four arguments).
	set, err := in.Eval(`(function (host) {
		globalThis.proxy = (s) => host(0, 0, 0, 0, s);
	})`, "t.js", EvalGlobal)
	require.NoError(t, err)
	_, err = in.Call(set, Undefined, proxy)
	require.NoError(t, err)
	// Deep JavaScript recursion around each level, so that a shared stack
	// would be overwritten.
	v, err := in.Eval(`function deep(n, f) { return n ? deep(n - 1, f) : f() }
		deep(20, () => [1, 2].map(i => deep(10, () => proxy("go" + i))).join(" "))`, "t.js", EvalGlobal)
	require.NoError(t, err)
	if v.IsException() {
		exc, _ := in.TakeException()
		es, _ := in.String(exc)
		t.Fatal(es)
	}
	s, err := in.String(v)
	require.NoError(t, err)
	require.Equal(t, "go1++! go2++!", s)
	require.Zero(t, in.depth)
	require.Len(t, in.calls, 4, "one call engine per nesting level")
}

// Warm grows the dispatcher's native stack in one step to 40 KiB, or 80 KiB
// when deep: sizes from which wazero's later doublings reach a ceiling
// above what QuickJS's own recursion limit needs (see Warm), and whole
// pages of Go's allocator. The size is read from wazero's call engine by
// reflection, so a wazero release that changes the engine's layout, or the
// frames its compiler gives the warm-up functions, fails here: re-derive
// wasm's warmLiveValues and warmDeepLiveValues then.
func TestWarmStackSize(t *testing.T) {
	ctx := context.Background()
	e := dispatcherEngine(t)
	stack := func(in *Instance) int { return nativeStack(t, in) }
	for _, tc := range warmSizes {
		t.Run(fmt.Sprintf("deep=%v", tc.deep), func(t *testing.T) {
			in := instance(t, e)
			_, err := in.invoke(wasm.DispatchMalloc, 16)
			require.NoError(t, err)
			require.Equal(t, 10240, stack(in), "wazero's initial stack")
			require.NoError(t, in.Warm(tc.deep))
			require.Equal(t, tc.want, stack(in))
			require.NoError(t, in.Warm(tc.deep))
			require.Equal(t, tc.want, stack(in), "a warm stack does not grow again")

			// One growth: Warm allocates the new stack and little else (a
			// recursion of small frames grows it twice or more, allocating
			// half as much again).
			in2, err := e.Instantiate(ctx, &nopHost{})
			require.NoError(t, err)
			t.Cleanup(func() { _ = in2.Close(ctx) })
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			require.NoError(t, in2.Warm(tc.deep))
			goruntime.ReadMemStats(&after)
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(tc.want+tc.want/8), "bytes allocated by Warm")
		})
	}
}

// warmSizes are the native stack sizes Warm grows to, shallow and deep.
var warmSizes = []struct {
	deep bool
	want int
}{{false, 40 << 10}, {true, 80 << 10}}

// instance is a new instance of e, closed when the test ends.
func instance(t *testing.T, e *Engine) *Instance {
	t.Helper()
	ctx := context.Background()
	in, err := e.Instantiate(ctx, &nopHost{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = in.Close(ctx) })
	return in
}

// dispatcherEngine is an engine of the QuickJS-NG module with the
// dispatcher added, and nothing else.
func dispatcherEngine(t *testing.T) *Engine {
	t.Helper()
	ctx := context.Background()
	m, err := wasm.Decode(upstream.Module())
	require.NoError(t, err)
	require.NoError(t, wasm.AddDispatcher(m))
	bin, err := m.Encode()
	require.NoError(t, err)
	e, err := NewEngine(ctx, Options{Wasm: bin, MemoryLimitPages: 1024})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close(ctx) })
	return e
}

// nativeStack is the size of the native stack of in's one call engine,
// read from wazero's call engine by reflection (see TestWarmStackSize).
func nativeStack(t *testing.T, in *Instance) int {
	t.Helper()
	require.Len(t, in.calls, 1)
	f := reflect.ValueOf(in.calls[0])
	require.Equal(t, reflect.Pointer, f.Kind(), "wazero's api.Function is not a pointer: %T", in.calls[0])
	s := f.Elem().FieldByName("stack")
	require.True(t, s.IsValid(), "wazero's call engine (%T) has no stack field", in.calls[0])
	return s.Len()
}

// ReleaseStack drops the call engines and their stacks; the next call
// warms a new one the way the instance was warmed, so it has the size
// Warm gave it (and so grows, and overflows, the same way). An instance
// that was never warmed keeps its stack: a new one would not be warm.
func TestReleaseStack(t *testing.T) {
	e := dispatcherEngine(t)
	for _, tc := range warmSizes {
		t.Run(fmt.Sprintf("deep=%v", tc.deep), func(t *testing.T) {
			in := instance(t, e)
			require.NoError(t, in.Warm(tc.deep))
			for range 2 {
				in.ReleaseStack()
				require.Empty(t, in.calls, "released")
				p, err := in.malloc(16)
				require.NoError(t, err)
				require.NotZero(t, p)
				require.Equal(t, tc.want, nativeStack(t, in), "the stack after a release")
			}
		})
	}
	t.Run("never warmed", func(t *testing.T) {
		in := instance(t, e)
		_, err := in.malloc(16)
		require.NoError(t, err)
		in.ReleaseStack()
		require.Len(t, in.calls, 1, "kept")
	})
}
