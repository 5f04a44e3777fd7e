// Package linearmem provides wazero memory allocators that back each wasm
// linear memory with its own reserved region of virtual address space:
// Allocator, and Pool, which reuses the regions of freed memories.
//
// wazero's default allocator grows a linear memory with append: every
// memory.grow that exceeds the capacity copies the whole memory (a long
// stretch of Go code with no preemption point once the heap is large), and
// the copy makes every byte of the new buffer resident, touched by the guest
// or not.
//
// The allocator in this package instead reserves the memory's maximum size
// once, with mmap(PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE), and
// commits the newly needed, page-rounded range with
// mprotect(PROT_READ|PROT_WRITE) when the guest grows. The memory never moves
// and is never copied, a grow costs one system call, and pages the guest has
// not written are not resident.
//
// # Use
//
// Put the allocator on the context passed to InstantiateModule:
//
//	ctx = experimental.WithMemoryAllocator(ctx, linearmem.NewAllocator())
//	mod, err := rt.InstantiateModule(ctx, compiled, cfg)
//
// On platforms without mmap, NewAllocator returns nil and
// experimental.WithMemoryAllocator leaves ctx unchanged, so wazero uses its
// default allocator.
//
// wazero passes as max the module's declared maximum, capped by
// wazero.RuntimeConfig.WithMemoryLimitPages; a module that declares no
// maximum, on a runtime with no limit, gets 65536 pages (4 GiB). Reserving
// 4 GiB of address space costs nothing resident on 64-bit systems, but
// configure a limit anyway: it is what bounds the committed size.
//
// # Pooling
//
// A fresh memory costs a page fault for every page its user touches, and on
// virtual machines a first-touch fault can cost tens of microseconds: for an
// instance whose data segments fill 680 KiB, several milliseconds per
// instantiation, far more than the instantiation itself. A Pool reuses the
// reservations of freed memories instead:
//
//	pool := linearmem.NewPool(linearmem.PoolOptions{})
//	defer pool.Close() // after the modules are closed
//	ctx = experimental.WithMemoryAllocator(ctx, pool)
//
// When wazero frees a memory (the module is closed), the pool scrubs it:
// every byte the previous user could have written reads as zero before the
// memory is handed out again (except, for a pool that serves one module,
// the pages PoolOptions.Overwritten says that module's instantiation
// rewrites in full; and a pool with an Image restores the image's pages
// instead, see Image). Only the committed range can have been written. On
// Linux the pool reads /proc/self/pagemap for it, once it has checked that
// the page map tells pages apart: present pages are cleared in place,
// which is cheap and keeps them resident, so the next user touches them
// without faulting; swapped-out pages are dropped with
// madvise(MADV_DONTNEED); absent pages read as zero already and cost
// nothing. Without the page map, mincore splits the range into resident
// pages (cleared in place) and non-resident ones, dropped, since mincore
// cannot tell a swapped-out page from one never touched. Residency only
// chooses between clearing and dropping, so scrubbing is complete whatever
// the kernel does meanwhile; if a system call fails, the memory is
// unmapped instead of reused. Pages beyond the committed range are inaccessible and either
// never committed or dropped, so a later grow finds them zero, as wazero
// requires. A memory that committed more than PoolOptions.MaxKeepBytes has
// the excess dropped and made inaccessible again, and at most
// PoolOptions.MaxIdle memories are kept; a memory is reused only by an
// Allocate whose max gives a reservation of the same size.
//
// By default Free scrubs, on the goroutine that closes the module (about
// 40 µs for a 44-page memory with 700 KiB resident, against 4 ms or more to
// fault in a fresh one); PoolOptions.Background moves it to a goroutine of
// the pool.
//
// # Dropping pages
//
// To give pages back to the kernel (for example the deep part of a shadow
// stack after a deep recursion), keep hold of the *Memory that wazero
// allocated and call Discard:
//
//	var mem *linearmem.Memory
//	alloc := linearmem.NewAllocator()
//	ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
//		func(cap, max uint64) experimental.LinearMemory {
//			lm := alloc.Allocate(cap, max)
//			mem, _ = lm.(*linearmem.Memory)
//			return lm
//		}))
//	...
//	err = mem.Discard(stackBase, stackLowWater-stackBase)
//
// (check alloc for nil first on platforms where Supported is false).
//
// # Lifetime
//
// wazero calls Free when the module is closed, and Free unmaps the region
// (or, with a Pool, scrubs it and hands it to the next module). Unlike a Go
// slice, the mapping does not outlive Free: any []byte obtained from
// api.Memory (Read and friends) is invalid after the module is closed.
// Touching it faults, or, with a Pool, reads zeros or another module's
// memory and writes into it: with a Pool, a use after close is not caught,
// and it breaks the isolation between modules. In particular, do not call api.Module.Close while
// another goroutine is still executing a function of that module; stop it
// with context cancellation and wazero.RuntimeConfig.WithCloseOnContextDone,
// which makes wazero release the memory only once the guest has left wasm
// code. That release happens inside the aborted call, before wazero unwinds
// it, so an experimental.FunctionListener's Abort (and any host function that
// closes its own module, as proc_exit does) must not touch the memory
// afterwards. A Memory that becomes unreachable without Free (a module that
// is never closed) is unmapped by a runtime cleanup; it does not return to
// its Pool.
//
// On Linux with vm.overcommit_memory=2, committing charges the committed
// size against the commit limit; when the kernel refuses, Reallocate returns
// nil and memory.grow returns -1 to the guest.
package linearmem

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// ErrFreed is returned by Discard after Free.
var ErrFreed = errors.New("linearmem: memory has been freed")

// ErrOutOfRange is returned by Discard when the range does not lie within
// the current length of the memory.
var ErrOutOfRange = errors.New("linearmem: range out of bounds")

// ErrTooLarge is returned by Reserve when the requested size cannot be
// reserved on this architecture (it does not fit in an int).
var ErrTooLarge = errors.New("linearmem: reservation too large")

// maxReservation bounds a reservation: unix.Mmap takes its length as an int.
const maxReservation = uint64(math.MaxInt)

var _ experimental.LinearMemory = (*Memory)(nil)

// reservationSize is the length of the mapping that backs a memory of at
// most max bytes, or ErrTooLarge.
func reservationSize(max, pageSize uint64) (uint64, error) {
	size := max
	if size == 0 {
		size = 1 // mmap rejects empty mappings; keep a valid base address.
	}
	if size > maxReservation-pageSize {
		return 0, fmt.Errorf("linearmem: reserve %d bytes: %w", max, ErrTooLarge)
	}
	return roundUp(size, pageSize), nil
}

// reserveMemory reserves a new mapping for a memory of at most max bytes;
// its Free hands the mapping to pool, or unmaps it when pool is nil.
func reserveMemory(max uint64, pool *poolState) (*Memory, error) {
	pageSize := uint64(os.Getpagesize())
	size, err := reservationSize(max, pageSize)
	if err != nil {
		return nil, err
	}
	mapping, err := reserve(size)
	if err != nil {
		return nil, fmt.Errorf("linearmem: reserve %d bytes: %w", size, err)
	}
	if pool != nil && pool.image != nil {
		if err := pool.image.mapOver(mapping); err != nil {
			_ = pool.image.unmap(mapping)
			return nil, err
		}
	}
	m := newMapped(max, pageSize, mapping, 0, pool)
	m.fresh = pool != nil && pool.image != nil
	return m, nil
}

// newMapped wraps a mapping whose first committed bytes are readable,
// writable and zero, and the rest inaccessible and zero.
func newMapped(max, pageSize uint64, mapping []byte, committed uint64, pool *poolState) *Memory {
	m := &Memory{max: max, pageSize: pageSize, mapping: mapping, committed: committed, mapped: true, pool: pool}
	m.cleanup = runtime.AddCleanup(m, func(b []byte) {
		if pool != nil {
			_ = pool.unmap(b)
		} else {
			_ = unmap(b)
		}
	}, mapping)
	return m
}

// Memory is one linear memory, created by Allocator. It implements
// experimental.LinearMemory. Its methods are safe for concurrent use, but
// the bytes it hands out are shared with the guest without synchronisation,
// as with any wazero memory.
type Memory struct {
	mu       sync.Mutex
	max      uint64
	pageSize uint64

	// mapping is the whole reservation; nil for a heap-backed memory and
	// after Free.
	mapping []byte
	cleanup runtime.Cleanup
	// committed is the page-rounded number of bytes of mapping that are
	// readable and writable.
	committed uint64

	// heap backs the memory when the reservation failed.
	heap []byte

	size uint64 // current length
	// sized is the length the memory was first given (at instantiation),
	// from which PoolOptions.PopulateAfter counts its growth.
	sized uint64
	hwm   uint64 // highest length ever handed out, to re-zero on regrow
	freed bool
	// later: Free leaves the scrub to the Allocate that reuses the memory
	// (see ScrubLater).
	later bool

	mapped bool // immutable: set by Reserve

	// grow, if set, is asked before the memory grows (see SetGrowHook).
	grow func(from, to uint64) bool

	// pool, if not nil, receives the mapping on Free (immutable).
	pool *poolState
	// image, for a heap-backed memory of a pool with an image, is copied
	// into the memory as it grows over it (immutable).
	image *Image
	// fresh is set on a new mapping with its pool's image until it is
	// first sized, when it writes the image's learned gap pages
	// (Image.prewriteGaps).
	fresh bool
}

// imageLen is the length of the image mapped over the start of m's
// mapping, 0 if none.
func (m *Memory) imageLen() uint64 {
	if m.pool == nil || m.pool.image == nil || m.mapping == nil {
		return 0
	}
	return m.pool.image.Len()
}

// Mapped reports whether m is backed by a reserved mapping (true) or, after
// a failed reservation, by the Go heap (false).
func (m *Memory) Mapped() bool {
	return m.mapped
}

// Committed returns the number of bytes currently committed (readable and
// writable), a multiple of the OS page size; for a heap-backed memory, the
// capacity of its buffer. Committed bytes are not resident until touched.
func (m *Memory) Committed() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mapping != nil {
		return m.committed
	}
	return uint64(cap(m.heap))
}

// Reallocate implements experimental.LinearMemory: it sets the length of the
// memory to size bytes and returns the memory as a slice of that length and
// capacity. Growing a mapped memory commits the page-rounded new range and
// never moves or copies the memory, so the returned slice always starts at
// the same address. Bytes beyond the previous length read as zero.
//
// Reallocate returns nil if size exceeds the max given to Allocate, if the
// grow hook refuses (see SetGrowHook), if the kernel refuses to commit the
// range, or after Free; wazero turns that into a failed memory.grow.
// Shrinking (which wazero never does) keeps the pages committed.
func (m *Memory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed || size > m.max {
		return nil
	}
	if size > m.size && m.grow != nil && !m.grow(m.size, size) {
		return nil
	}
	var buf []byte
	if m.mapping != nil {
		if size > m.committed {
			end := min(roundUp(size, m.pageSize), uint64(len(m.mapping)))
			if err := commit(m.mapping[m.committed:end]); err != nil {
				return nil
			}
			m.committed = end
		}
		if m.fresh {
			m.fresh = false
			m.pool.image.prewriteGaps(m.mapping[:min(size, m.committed)])
		}
		if m.size == 0 {
			m.sized = size
		} else if m.pool != nil && m.pool.populate && size > m.size {
			// A memory.grow (not the instantiation, which sizes the memory
			// from 0) with PoolOptions.PopulateGrowth: populate what lies
			// past the first PopulateAfter bytes of growth.
			from := max(m.size, m.sized+m.pool.populateAfter) &^ (m.pageSize - 1)
			if to := min(roundUp(size, m.pageSize), m.committed); from < to {
				populate(m.mapping[from:to])
			}
		}
		buf = m.mapping[:size:size]
	} else {
		if size > uint64(cap(m.heap)) {
			// Grow the way wazero's default allocator does.
			m.heap = append(m.heap[:cap(m.heap)], make([]byte, size-uint64(cap(m.heap)))...)
		}
		m.heap = m.heap[:size]
		buf = m.heap[:size:size]
		if m.image != nil && size > m.hwm && m.hwm < m.image.Len() {
			// The bytes grown over read as the image's, as a mapped
			// memory's do.
			m.image.copyTo(buf[m.hwm:], m.hwm)
		}
	}
	if size > m.size && m.size < m.hwm {
		// Regrowing after a shrink: the bytes must read as zero again.
		clear(buf[m.size:min(size, m.hwm)])
	}
	m.size = size
	m.hwm = max(m.hwm, size)
	return buf
}

// SetGrowHook makes every later growth of the memory, from length from to
// length to bytes, ask f first: when f returns false the memory does not
// grow and Reallocate returns nil (a failed memory.grow). f runs on the
// goroutine that grows the memory, the guest's, with the memory's lock
// held: it must not call m's methods. A nil f removes the hook.
func (m *Memory) SetGrowHook(f func(from, to uint64) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.grow = f
}

// Free implements experimental.LinearMemory: it unmaps the reservation (or
// drops the heap buffer), or, for a memory allocated by a Pool, hands the
// reservation back to the pool, which scrubs it for reuse. It is idempotent
// and safe to call concurrently. Every slice previously returned by
// Reallocate is invalid afterwards: it faults, or, with a Pool, aliases the
// memory of whoever is given the reservation next.
func (m *Memory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed {
		return
	}
	m.freed = true
	if m.mapping != nil {
		m.cleanup.Stop()
		if m.pool != nil {
			m.pool.put(m.mapping, m.committed, min(roundUp(m.hwm, m.pageSize), m.committed), m.later)
		} else {
			// Nothing useful can be done if munmap fails: the mapping was
			// created by us with a valid address and length.
			_ = unmap(m.mapping)
		}
		m.mapping = nil
	}
	m.heap = nil
	m.committed, m.size = 0, 0
}

// ScrubLater makes the memory's Free, if it hands the memory back to a Pool,
// leave it there unscrubbed, as ScrubOnAllocate does for every memory of a
// pool: the Allocate that reuses it scrubs it first, on its own goroutine,
// and until then it waits in the pool with its last user's bytes (a pool
// with Background, or one trimming a memory that grew past MaxKeepBytes,
// may scrub it sooner). It suits a memory whose user must get control back
// at once when it frees it, without a scrub or a goroutine woken for one.
func (m *Memory) ScrubLater() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.later = true
}

// StoreUint32 atomically stores v at offset off, which must be a multiple
// of 4 within the committed bytes. Unlike a store through the slice
// Reallocate returned, it may be made from any goroutine while the guest
// runs and grows the memory: the store lands in the memory's mapping, whose
// address never moves. It reports false, and stores nothing, for a memory
// that is heap-backed or freed (so a store that comes late never reaches
// whoever is given the reservation next) or an offset out of range. The
// guest's own accesses to those bytes are not atomic: a store that races
// with a write of the guest's may be lost.
func (m *Memory) StoreUint32(off uint64, v uint32) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.word(off)
	if w != nil {
		atomic.StoreUint32(w, v)
	}
	return w != nil
}

// LoadUint32 atomically loads the 32 bits at offset off, as StoreUint32
// stores them; it reports false where StoreUint32 would.
func (m *Memory) LoadUint32(off uint64) (uint32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.word(off); w != nil {
		return atomic.LoadUint32(w), true
	}
	return 0, false
}

// word returns the 32-bit word of the mapping at off for StoreUint32 and
// LoadUint32, or nil where they refuse it. m.mu must be held.
func (m *Memory) word(off uint64) *uint32 {
	if m.mapping == nil || off%4 != 0 || off+4 > m.committed {
		return nil
	}
	return (*uint32)(unsafe.Pointer(&m.mapping[off]))
}

// Discard zeroes the n bytes at offset off and returns the whole OS pages in
// that range to the kernel with madvise(MADV_DONTNEED), so they stop counting
// towards the process's RSS until the guest touches them again. The memory
// keeps its length and stays committed; afterwards every byte of the range
// reads as zero. Bytes of partially covered pages at either end are zeroed in
// place. On platforms where MADV_DONTNEED does not guarantee zero-filled
// pages, the pages are replaced by a fresh anonymous mapping instead.
//
// The range must lie within the current length of the memory (ErrOutOfRange
// otherwise), and Discard returns ErrFreed after Free. For a heap-backed
// memory it only zeroes the range. Discarding memory the guest still uses
// corrupts its state; call it only between runs or on ranges the guest
// treats as dead (such as a shadow stack below the stack pointer).
func (m *Memory) Discard(off, n uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed {
		return fmt.Errorf("linearmem: discard [%d, +%d): %w", off, n, ErrFreed)
	}
	end := off + n
	if end < off || end > m.size {
		return fmt.Errorf("linearmem: discard [%d, +%d) of %d bytes: %w", off, n, m.size, ErrOutOfRange)
	}
	if n == 0 {
		return nil
	}
	if m.mapping == nil {
		clear(m.heap[off:end])
		return nil
	}
	first, last := roundUp(off, m.pageSize), end/m.pageSize*m.pageSize
	if first >= last {
		clear(m.mapping[off:end])
		return nil
	}
	clear(m.mapping[off:first])
	clear(m.mapping[last:end])
	if img := m.imageLen(); first < img {
		// Dropped, the image's pages would read as the image again.
		// (Pages in its gaps could be dropped; clearing them is as
		// correct.)
		clear(m.mapping[first:min(last, img)])
		first = min(last, img)
		if first == last {
			return nil
		}
	}
	if err := zeroPages(m.mapping[first:last]); err != nil {
		// Keep the documented contract even if the kernel refused.
		clear(m.mapping[first:last])
		return fmt.Errorf("linearmem: discard pages [%d, %d): %w", first, last, err)
	}
	return nil
}

// roundUp rounds n up to a multiple of the power of two page.
func roundUp(n, page uint64) uint64 {
	return (n + page - 1) &^ (page - 1)
}
