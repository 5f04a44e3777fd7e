//go:build race

package coderun_test

// raceEnabled reports whether the race detector is on. Tests whose work one
// goroutine does alone skip under it (it finds nothing there and makes them
// many times slower); scripts/test runs them without it.
const raceEnabled = true
