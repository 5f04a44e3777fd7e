//go:build !race

package wasm

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
