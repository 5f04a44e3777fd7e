package linearmem

import "github.com/tetratelabs/wazero/experimental"

// The allocator without a pool, which the tests and benchmarks compare the
// pool with (a fresh reservation for every memory, unmapped by Free). The
// runtime always uses a Pool.

var _ experimental.MemoryAllocator = (*Allocator)(nil)

// Allocator is an experimental.MemoryAllocator that backs every linear
// memory with a reserved, never-moving mapping. It is stateless: the zero
// value is ready to use, and one Allocator may be shared by any number of
// runtimes and goroutines.
type Allocator struct{}

// NewAllocator returns an *Allocator as an experimental.MemoryAllocator, or
// nil when the platform has no mmap (Supported is false). A nil allocator
// passed to experimental.WithMemoryAllocator selects wazero's default.
func NewAllocator() experimental.MemoryAllocator {
	if !supported {
		return nil
	}
	return &Allocator{}
}

// Allocate implements experimental.MemoryAllocator. It reserves max bytes of
// address space (see Reserve); cap is ignored, since committing is cheap.
//
// Allocate cannot report an error to wazero, so if the reservation fails
// (address space exhausted, or max too large for a 32-bit address space) it
// returns a Memory backed by the Go heap that grows like wazero's default
// allocator; Mapped reports which one was returned. A heap-backed memory may
// move when it grows and therefore must not back a shared memory.
func (a *Allocator) Allocate(cap, max uint64) experimental.LinearMemory {
	m, err := a.Reserve(max)
	if err != nil {
		return &Memory{max: max}
	}
	return m
}

// Reserve reserves address space for a memory of at most max bytes, rounded
// up to the OS page size, with nothing committed. The returned Memory has
// length 0 until Reallocate grows it.
func (a *Allocator) Reserve(max uint64) (*Memory, error) {
	return reserveMemory(max, nil)
}
