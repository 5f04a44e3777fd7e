// Package bench holds coderun's benchmarks. Each one runs the same workload
// on coderun and, where the issue asks for it, on peer engines in the same
// `go test -bench` run, so that results are read as ratios on one machine.
//
// The peers are goja and modernc.org/quickjs, linked into the test binary,
// and fastschema/qjs, which needs an older wazero than coderun and so is a
// module of its own, peers/fastschema: the benchmarks build it with the go
// command and drive it as a subprocess. Only this package depends on the
// peers: bench/ is a Go module of its own, so that the library's module
// does not require them. See README.md for the commands and the latest figures.
package bench
