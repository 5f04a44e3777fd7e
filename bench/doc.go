// Package bench holds coderun's benchmarks. Each one runs the same workload
// on coderun and, where the issue asks for it, on peer engines in the same
// `go test -bench` run, so that results are read as ratios on one machine.
// README.md has the commands and the current figures.
//
// # The peers
//
// The peers are goja and modernc.org/quickjs, linked into the test binary,
// and fastschema/qjs, which fails at run time with the wazero coderun uses
// and so is a module of its own, peers/fastschema, pinned to wazero v1.9.0:
// the benchmarks build it with the go command (the caller's environment plus
// GOWORK=off) and keep it running as a subprocess that takes one sample per
// request line and times it itself (the pipe is not timed), so that its
// samples interleave with the others'. By hand:
//
//	cd bench/peers/fastschema && go build -o /tmp/fastschema . &&
//	echo '1+1' > /tmp/s.js && /tmp/fastschema -script /tmp/s.js -want 2 -n 10
//
// Its Value.JSONStringify returns garbage for some values in v0.0.6 (196418
// came back as 1964 plus junk), so the peer calls JavaScript's
// JSON.stringify through Context.Invoke instead. Only this package depends
// on the peers: bench/ is a Go module of its own, so that the library's
// module does not require them.
//
// Every sample creates a fresh VM, compiles the program, runs it, reads the
// completion value back (a wrong value fails the benchmark) and disposes of
// the VM. The peers run the coderun program's body wrapped in a strict
// (async) function. coderun caches a program's TypeScript compilation after
// its first run; every engine takes one untimed warm-up sample first. For
// the binding round trip, goja and modernc use this package's minimal event
// loops (gojaLoop, moderncLoop, sharing hostLoop, in engines_test.go). The
// JSON1MB document is generated in Go from a fixed seed (jsonDoc) and
// embedded in the program as a string literal, so each peer sample also
// compiles a 1 MB program; coderun compiles it once and keeps its bytecode,
// as it does every program's.
//
// # Reading the output
//
// Each benchmark takes samples in rounds, one sample of every engine per
// round in an order that rotates, so that load on the machine falls on all
// engines alike; it takes at least 5 rounds, more while -benchtime allows.
// The metrics are medians of that run's samples:
//
//   - ns/op: coderun, per run (it replaces the harness's own ns/op, which
//     would time a whole round)
//   - ns/call: coderun, per binding call (BindingRoundTrip only: ns/op ÷
//     10,000)
//   - goja-ns/op, modernc-ns/op, fastschema-ns/op (-ns/call): the same for
//     each peer
//   - goja/coderun, modernc/coderun, fastschema/coderun: the peer's median
//     over coderun's: above 1, coderun is faster by that factor; below 1,
//     the peer is
//   - rounds: samples behind each median
//
// The ratios are the figures to compare across machines and days: both
// sides of a ratio were measured in the same minutes, under the same load.
// Absolute times on a loaded machine are not.
package bench
