package bench

import "testing"

// BenchmarkColdRun measures one whole run in a fresh VM: for coderun,
// instantiate, initialise QuickJS and the prelude, run `return 1+1`, read the
// value back (the program's compilation is cached after the warm-up run);
// for the peers, goja.New + RunString, modernc quickjs NewVM + Eval + Close
// and fastschema qjs.New + Eval + Close, each reading the value back.
func BenchmarkColdRun(b *testing.B) {
	w := coldRun()
	compare(b, 0, coderunEngine(newRuntime(b), w), gojaEngine(w), moderncEngine(w), fastschemaEngine(b, w))
}
