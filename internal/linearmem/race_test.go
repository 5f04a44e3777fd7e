//go:build race

package linearmem_test

// raceEnabled reports whether the race detector is on; its shadow memory
// makes Go-heap RSS comparisons slow and meaningless.
const raceEnabled = true
