package quickjs

import (
	"errors"
	"fmt"
)

// The engine's C heap is wasi-libc's dlmalloc (MALLOC_ALIGNMENT 16,
// FOOTERS 0, no mmap). It starts at __heap_base (Layout.HeapBase), which
// wasm-ld places at the end of the original stack region, and grows contiguously with the
// linear memory. A chunk at p has a size word at p+4 (size | flag bits), its
// payload at p+8; a free chunk's size is repeated at the start of the next
// chunk (its prev_foot), and the free-list links follow the size word. The
// last chunk, the top, is followed by a fencepost of topFootSize bytes that
// ends exactly at the end of memory. walkHeap checks all of this.
const (
	chunkAlign   = 16
	chunkPInUse  = 1 // the previous chunk is in use
	chunkCInUse  = 2 // this chunk is in use
	chunkFlag4   = 4 // unused by malloc
	chunkFlags   = chunkPInUse | chunkCInUse | chunkFlag4
	minChunkSize = 16
	topFootSize  = 56 // align_offset(8) + pad_request(sizeof(msegment)) + MIN_CHUNK_SIZE
	// Free chunks smaller than minLargeSize sit in doubly linked small bins
	// (fd, bk); larger ones are tree nodes (fd, bk, child[2], parent, index).
	minLargeSize  = 256
	smallFreeLink = 8
	largeFreeLink = 24
)

// ErrLayoutMismatch is wrapped by the errors of DropSources and ZeroUnused
// when the instance's memory is not laid out as they assume: they then
// changed nothing, and the instance is as good as before.
var ErrLayoutMismatch = errors.New("quickjs: the memory does not have the layout of the pinned build")

// mismatch returns an ErrLayoutMismatch saying what did not check.
func mismatch(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrLayoutMismatch}, args...)...)
}

// chunk is one malloc chunk: it starts at p (its prev_foot) and ends at
// p+size, where the next chunk starts.
type chunk struct {
	p, size uint32
	free    bool
}

// payload is where the chunk's user data starts (what malloc returned).
func (c chunk) payload() uint32 { return c.p + 8 }

// usableEnd is where an in-use chunk's user data ends: it extends over the
// next chunk's prev_foot.
func (c chunk) usableEnd() uint32 { return c.p + c.size + 4 }

// heapWalk is the result of walkHeap: every chunk from the heap base to the
// top chunk, in address order, the top chunk last.
type heapWalk struct {
	chunks []chunk
}

// top is the top chunk: the free space at the end of the heap.
func (w heapWalk) top() chunk { return w.chunks[len(w.chunks)-1] }

// inUseAt returns the in-use chunk whose payload starts at p.
func (w heapWalk) inUseAt(p uint32) (chunk, bool) {
	lo, hi := 0, len(w.chunks)
	for lo < hi {
		mid := (lo + hi) / 2
		if w.chunks[mid].payload() < p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(w.chunks) && w.chunks[lo].payload() == p && !w.chunks[lo].free {
		return w.chunks[lo], true
	}
	return chunk{}, false
}

// walkHeap walks mem's malloc chunks from the heap base. It fails unless
// every chunk is well formed (aligned size, flag bits agreeing with their
// neighbours, no two free chunks adjacent, each free chunk's size repeated
// in the next prev_foot) and the walk ends exactly at a top chunk followed
// by the fencepost at the end of memory.
func walkHeap(mem []byte, heapBase uint32) (heapWalk, error) {
	end := uint32(len(mem))
	p := heapBase
	p += (chunkAlign - (p+8)%chunkAlign) % chunkAlign
	var w heapWalk
	prevFree := false
	for n := 0; ; n++ {
		if p > end || end-p < 8 || n > len(mem)/minChunkSize {
			return heapWalk{}, mismatch("heap walk left memory at %d", p)
		}
		head := le32(mem[p+4:])
		size := head &^ chunkFlags
		switch {
		case head&chunkFlag4 != 0:
			return heapWalk{}, mismatch("heap chunk at %d has an unknown flag", p)
		case size < minChunkSize || size%chunkAlign != 0 || size > end-p:
			return heapWalk{}, mismatch("heap chunk at %d has a bad size %d", p, size)
		case (head&chunkPInUse == 0) != prevFree:
			return heapWalk{}, mismatch("heap chunk at %d disagrees with its predecessor", p)
		}
		c := chunk{p: p, size: size, free: head&chunkCInUse == 0}
		w.chunks = append(w.chunks, c)
		next := p + size
		if !c.free {
			prevFree = false
			p = next
			continue
		}
		if prevFree {
			return heapWalk{}, mismatch("free heap chunks at %d are not coalesced", p)
		}
		if end-next == topFootSize && le32(mem[next+4:]) == topFootSize {
			return w, nil // c is the top chunk
		}
		if end-next < 8 || le32(mem[next:]) != size {
			return heapWalk{}, mismatch("free heap chunk at %d has no matching footer", p)
		}
		prevFree = true
		p = next
	}
}

// walkMemory reads the instance's memory and walks its malloc heap and
// the engine's arenas (walkHeap, walkArenas): the checks every step that
// edits the heap makes before it changes anything. mem aliases the memory
// until the next call into the instance.
func (in *Instance) walkMemory() (mem []byte, heap heapWalk, arenas arenaWalk, err error) {
	mem, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return nil, heapWalk{}, arenaWalk{}, errors.New("quickjs: reading memory")
	}
	if heap, err = walkHeap(mem, in.layout.HeapBase); err != nil {
		return nil, heapWalk{}, arenaWalk{}, err
	}
	if arenas, err = walkArenas(mem, heap, in.rt); err != nil {
		return nil, heapWalk{}, arenaWalk{}, err
	}
	return mem, heap, arenas, nil
}

// ZeroUnused zeroes the bytes of the linear memory that hold nothing: the
// payload of every free malloc chunk after its free-list links, the whole
// top chunk's payload, every free block of the engine's arenas after its
// free-chain link and size class (and the end of each arena that holds no
// block), and the C stack below the stack pointer (dead between calls), and
// the linker's stack region once Init has moved the stack out of it.
// None of these bytes is ever read before it is written, so the instance
// behaves the same, while an image of its memory has fewer non-zero bytes.
// It returns how many non-zero bytes it cleared; when the heap or the
// arenas do not walk exactly (walkHeap, walkArenas), it changes nothing and
// fails with ErrLayoutMismatch. It must not be called while a call into
// the instance is in progress.
func (in *Instance) ZeroUnused() (int, error) {
	mem, w, arenas, err := in.walkMemory()
	if err != nil {
		return 0, err
	}
	spans := arenas.unused()
	if in.stackBase != 0 {
		c, ok := w.inUseAt(in.stackBase)
		sp := in.StackPointer()
		if !ok || sp < c.payload() || sp > c.usableEnd() {
			return 0, mismatch("the stack pointer %d is not inside the stack block at %d", sp, in.stackBase)
		}
		// The stack is in its block: the linker's stack region is dead.
		spans = append(spans, [2]uint32{c.payload(), sp}, [2]uint32{in.layout.StackBase, in.layout.HeapBase})
	}
	for i, c := range w.chunks {
		switch {
		case !c.free:
		case i == len(w.chunks)-1:
			spans = append(spans, [2]uint32{c.payload(), c.p + c.size})
		case c.size < minLargeSize:
			spans = append(spans, [2]uint32{c.payload() + smallFreeLink, c.p + c.size})
		default:
			spans = append(spans, [2]uint32{c.payload() + largeFreeLink, c.p + c.size})
		}
	}
	n := 0
	for _, s := range spans {
		for i := s[0]; i < s[1]; i++ {
			if mem[i] != 0 {
				mem[i] = 0
				n++
			}
		}
	}
	return n, nil
}
