// Package bench holds coderun's benchmarks. Each one runs the same workload
// on coderun and, where the issue asks for it, on peer engines in the same
// `go test -bench` run, so that results are read as ratios on one machine.
// See README.md for the commands and the latest figures.
package bench
