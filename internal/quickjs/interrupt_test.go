package quickjs

import (
	"strings"
	"testing"

	"github.com/coderun/coderun/wasm"
	"github.com/stretchr/testify/require"
)

// stopHost hands out small fuel slices and, from the yield numbered at on,
// asks the guest to unwind itself, recording what Interrupt reported.
type stopHost struct {
	nopHost
	at, yields int
	asked      []bool
}

func (h *stopHost) FuelYield(in *Instance, left int64) int64 {
	h.yields++
	if h.at > 0 && h.yields >= h.at {
		h.asked = append(h.asked, in.Interrupt())
	}
	return 1000
}

// newStopInstance is an instance of a module with the fuel pass (and so
// the stop global) whose interrupt handler is installed.
func newStopInstance(t *testing.T, h Host) *Instance {
	t.Helper()
	fuel := func(m *wasm.Module) error { return wasm.Fuel(m, wasm.FuelConfig{}) }
	return newInstanceWith(t, h, InitOptions{StackMargin: 8 << 10},
		wasm.AddDispatcher, fuel)
}

// Interrupt makes the JavaScript running in an Eval throw the uncatchable
// "interrupted" error at the interrupt handler's next poll: no catch or
// finally block runs, the error has an empty stack (no program code could
// make one), and the Eval returns the exception instead of failing.
func TestInterrupt(t *testing.T) {
	h := &stopHost{}
	in := newStopInstance(t, h)
	require.False(t, in.Interrupt(), "no call in progress")
	limit, err := in.Eval(`Error.stackTraceLimit`, "t.js", EvalGlobal)
	require.NoError(t, err)
	require.Equal(t, Int(defaultStackTraceLimit), limit, "discovery put the limit back")

	h.at = h.yields + 3
	v, err := in.Eval(`globalThis.seen = [];
Error.prepareStackTrace = () => { seen.push("prepare"); return "custom" };
try { for (;;) {} } catch (e) { seen.push("catch") } finally { seen.push("finally") }`, "t.js", EvalGlobal)
	require.NoError(t, err, "the call returned without a panic")
	require.True(t, v.IsException())
	require.Equal(t, []bool{true}, h.asked, "one yield, the handler's, then the guest unwound")
	exc, err := in.TakeException()
	require.NoError(t, err)
	msg, err := in.String(exc)
	require.NoError(t, err)
	require.Equal(t, "InternalError: interrupted", msg)

	// Short code without loops still runs (it never reaches a poll).
	h.at = 0
	show, err := in.Eval(`(e) => JSON.stringify([seen, e.stack])`, "t.js", EvalGlobal)
	require.NoError(t, err)
	got, err := in.Call(show, Undefined, exc)
	require.NoError(t, err)
	s, err := in.String(got)
	require.NoError(t, err)
	require.Equal(t, `[[],""]`, s)
}

// Interrupt refuses, and changes nothing, in a call that does not run
// JavaScript to an exception the caller handles: a compilation.
func TestInterruptRefusedOutsideJavaScript(t *testing.T) {
	h := &stopHost{}
	in := newStopInstance(t, h)
	h.at = h.yields + 1
	src := "var x = [" + strings.Repeat("1,", 50000) + "1];"
	_, ok, err := in.Compile(src, "t.js", EvalGlobal)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEmpty(t, h.asked, "the compilation yielded")
	for _, asked := range h.asked {
		require.False(t, asked)
	}
	stop, ok := in.GlobalValue(wasm.StopGlobalExport)
	require.True(t, ok)
	require.Zero(t, stop)
}

// WithStackTraceLimit gives an Error made meanwhile the frames it asks
// for, whatever the program set as Error.stackTraceLimit, runs none of the
// program's code for it (a limit's valueOf), and puts the program's limit
// back, as the same value.
func TestWithStackTraceLimit(t *testing.T) {
	in := newInstance(t, &nopHost{})
	_, err := in.Eval(`globalThis.reads = 0;
globalThis.limit = { valueOf() { reads++; return 1 } };
Error.stackTraceLimit = limit;
globalThis.deep = (n) => n === 0 ? new Error().stack.split("\n").length - 1 : deep(n - 1);`, "t.js", EvalGlobal)
	require.NoError(t, err)
	deep, err := in.Eval(`deep`, "t.js", EvalGlobal)
	require.NoError(t, err)
	frames := func(limit int32) (int32, bool) {
		var got Value
		ok := in.WithStackTraceLimit(limit, func() {
			got, err = in.Call(deep, Undefined, Int(5))
			require.NoError(t, err)
		})
		n, _ := got.Number()
		return int32(n), ok
	}
	for _, limit := range []int32{3, 50} {
		n, ok := frames(limit)
		require.True(t, ok)
		require.Equal(t, min(limit, 6), n, "deep's frames, up to the limit")
	}
	after, err := in.Eval(`[reads, Error.stackTraceLimit === limit, deep(5), reads].join()`, "t.js", EvalGlobal)
	require.NoError(t, err)
	s, err := in.String(after)
	require.NoError(t, err)
	require.Equal(t, "0,true,1,1", s, "the program's limit is back, and read only by its own Error")
}
