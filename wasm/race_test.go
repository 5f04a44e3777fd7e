//go:build race

package wasm

// raceEnabled reports whether the race detector is on. Tests that only
// re-check the original module's behavior (in wazero's interpreter, which
// the race detector slows down a hundredfold) are skipped then.
const raceEnabled = true
