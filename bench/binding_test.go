package bench

import "testing"

// BenchmarkBindingRoundTrip measures one run that awaits 10,000 sequential
// calls of an async host function returning its argument
// (`const r = await tools.echo({i}); s += r.i`), reported per call. The
// argument and the result cross as JSON text in every engine. coderun runs
// each of these calls on the run's goroutine, as it runs every call that is
// the only thing its program waits for (see runtime/inline.go), and reads
// {i} in place; goja and modernc run each call on a goroutine of its own
// through the event loops of this package (gojaLoop, moderncLoop);
// fastschema's
// SetAsyncFunc function resolves its promise before it returns, since its
// runtime cannot be entered from another goroutine while the script runs.
// Issue #3's goal: coderun at most 10 µs per call and at least 10 times
// cheaper than fastschema/qjs (fastschema/coderun ≥ 10).
func BenchmarkBindingRoundTrip(b *testing.B) {
	w := echoLoop(echoCalls)
	compare(b, w.calls, coderunEngine(newRuntime(b), w), gojaEngine(w), moderncEngine(w), fastschemaEngine(b, w))
}
