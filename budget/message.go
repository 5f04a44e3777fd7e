package budget

import (
	"fmt"
	"time"
)

// The failures of a run that a budget words: one function (or method of
// the account that knows the limit) per kind of failure, so that every
// place that ends a run for a budget reads the same.

// FuelMessage is the timeout message when fuel ran out.
func FuelMessage(fuel uint64) string { return fmt.Sprintf("fuel budget exhausted (%d units)", fuel) }

// computeMessage is the timeout message when compute time ran out.
func computeMessage(busy time.Duration) string {
	return fmt.Sprintf("compute budget exhausted (%dms busy)", busy.Milliseconds())
}

// WallMessage is the timeout message when the wall-clock ceiling was reached.
func WallMessage(wall time.Duration) string {
	return fmt.Sprintf("wall-clock ceiling reached (%dms)", wall.Milliseconds())
}

// MemoryMessage is the worker-exit message when the memory cap was hit.
func MemoryMessage(bytes int64) string {
	return fmt.Sprintf("memory limit of %s exceeded (MemoryBytes)", formatBytes(bytes))
}

func formatBytes(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Exceeded is the worker-exit message when the account's limit was hit:
// [MemoryMessage] of the limit.
func (m *Memory) Exceeded() string { return MemoryMessage(m.limit) }

// NoRoom is the message of a binding call rejected because what (such as
// "binding result") of n bytes does not fit in the account. The prelude
// words "binding argument" refusals alike (runtime's drift test checks it).
func (m *Memory) NoRoom(what string, n int64) string {
	return fmt.Sprintf("%s of %d bytes does not fit in the run's memory budget (MemoryBytes %d)", what, n, m.limit)
}

// CompileExceeded is the worker-exit message when compiling the program
// would take need bytes of host memory, more than the account holds.
func (m *Memory) CompileExceeded(need int64) string {
	return fmt.Sprintf("%s: compiling the program takes about %.1f MiB of host memory, over MemoryBytes (%d bytes); "+
		"make the program shorter, or pass large data through a binding instead of writing it in the program",
		m.Exceeded(), float64(need)/(1<<20), m.limit)
}

// InputExceeded is the worker-exit message when the run's input, n bytes
// of JSON, did not fit in the account as a value in the guest.
func (m *Memory) InputExceeded(n int64) string {
	return fmt.Sprintf("%s: the run's input (Request.Input, %d bytes of JSON) does not fit in MemoryBytes as a value "+
		"beside the program; pass a smaller input, or raise MemoryBytes", m.Exceeded(), n)
}
