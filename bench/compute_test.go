package bench

import "testing"

// BenchmarkFib27 measures a run computing the 27th Fibonacci number by naive
// recursion (about 300,000 calls) in a fresh VM, on every engine.
func BenchmarkFib27(b *testing.B) {
	w := fib(27)
	compare(b, 0, coderunEngine(newRuntime(b), w), gojaEngine(w), moderncEngine(w), fastschemaEngine(b, w))
}

// BenchmarkJSON1MB measures a run doing JSON.stringify(JSON.parse(doc)) on a
// document of 6,700 objects (about 1 MB, see jsonDoc) in a fresh VM, on
// every engine. The document is a string literal in the program, so each
// run also compiles a 1 MB program.
func BenchmarkJSON1MB(b *testing.B) {
	w := jsonWorkload(jsonDoc())
	compare(b, 0, coderunEngine(newRuntime(b), w), gojaEngine(w), moderncEngine(w), fastschemaEngine(b, w))
}
