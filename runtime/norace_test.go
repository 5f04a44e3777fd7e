//go:build !race

package runtime

// raceEnabled reports whether the race detector is on; its shadow memory
// makes RSS measurements meaningless.
const raceEnabled = false
