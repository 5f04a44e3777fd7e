//go:build race

package transpile

// raceEnabled reports whether the race detector is on, which makes esbuild several times slower.
const raceEnabled = true
