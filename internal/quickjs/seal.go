package quickjs

import "errors"

// SealStats says what SealFreeSpace took out of the allocators' reach.
type SealStats struct {
	// Chunks and ChunkBytes are the free malloc chunks allocated for good.
	Chunks, ChunkBytes int
	// Arenas, Blocks and BlockBytes are the arenas taken off their
	// free-arena lists and the free blocks they hold.
	Arenas, Blocks, BlockBytes int
}

// SealFreeSpace leaves the holes between the live objects of the heap
// where they are, so that a run of a snapshot taken afterwards writes its
// new objects side by side on fresh pages instead of into holes spread
// over the image, each of which would make one more page of the image the
// run's own. It allocates every free malloc chunk but the top chunk, with
// a malloc of exactly its size, and zeroes it; and it takes every arena of
// the engine's small-block allocator off its size class's list of arenas
// with free blocks (SeedArenas then gives each class a small arena of its
// own). Nothing is written into a hole but the zeroes: the chunks stay
// allocated for the instance's life (they are the leak), an arena taken
// off its list is used again once it has been full, as any arena is, and
// freed when its last block is. When the heap or the arenas do not walk
// (walkHeap, walkArenas), it changes nothing; when a malloc does not take
// the chunk it was meant to take, it frees what it took; both fail with
// ErrLayoutMismatch, and the instance is as good as before. It must run
// after the last allocation that should reuse a hole, and not while a
// call into the instance is in progress.
func (in *Instance) SealFreeSpace() (SealStats, error) {
	var st SealStats
	mem, w, arenas, err := in.walkMemory()
	if err != nil {
		return st, err
	}
	if st.Chunks, st.ChunkBytes, err = in.sealChunks(w); err != nil {
		return st, err
	}
	// The chunks' mallocs wrote only malloc's own state and chunk heads:
	// the arenas are as walked.
	mem, _ = in.mem.Read(0, in.mem.Size())
	st.Arenas, st.Blocks, st.BlockBytes = detachArenas(mem, arenas, in.rt)
	return st, nil
}

// mallocChunkOverhead is what dlmalloc adds to a request (the chunk's size
// word): a malloc of a chunk's size less this takes a chunk of exactly
// that size.
const mallocChunkOverhead = 4

// sealChunks allocates each free chunk of w but the top one and zeroes
// it, then checks that exactly those chunks were taken.
func (in *Instance) sealChunks(w heapWalk) (chunks, bytes int, err error) {
	var got []uint32
	undo := func(err error) (int, int, error) {
		for _, p := range got {
			if ferr := in.Free(p); ferr != nil {
				return 0, 0, ferr
			}
		}
		return 0, 0, err
	}
	for _, c := range w.chunks[:len(w.chunks)-1] {
		if !c.free {
			continue
		}
		p, err := in.malloc(c.size - mallocChunkOverhead)
		if err != nil {
			return undo(err)
		}
		got = append(got, p)
	}
	mem, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return undo(errors.New("quickjs: reading memory"))
	}
	after, err := walkHeap(mem, in.layout.HeapBase)
	if err != nil {
		return undo(err)
	}
	if after.top() != w.top() || len(after.chunks) != len(w.chunks) {
		return undo(mismatch("allocating the free chunks changed the heap's chunks"))
	}
	for _, c := range after.chunks[:len(after.chunks)-1] {
		if c.free {
			return undo(mismatch("the free chunk at %d was not allocated", c.p))
		}
	}
	for _, p := range got {
		c, _ := after.inUseAt(p)
		clear(mem[c.payload() : c.p+c.size])
		bytes += int(c.size)
	}
	return len(got), bytes, nil
}

// detachArenas takes every arena off its free-arena list, linking its
// free_link to itself, which is what list_del then finds when the arena's
// last block is freed. It returns the arenas taken off, and their free
// blocks and those blocks' bytes.
func detachArenas(mem []byte, w arenaWalk, rt uint32) (arenas, blocks, bytes int) {
	for class := range arenaClasses {
		var list []uint32
		// walkArenas checked the list.
		_ = walkList(mem, rt+rtFreeArenaLists+8*uint32(class), arenaFreeLink, func(ar uint32) error {
			list = append(list, ar)
			return nil
		})
		for _, ar := range list {
			listDel(mem, ar+arenaFreeLink)
			putLE32(mem[ar+arenaFreeLink:], ar+arenaFreeLink)
			putLE32(mem[ar+arenaFreeLink+4:], ar+arenaFreeLink)
			arenas++
			n := w.arenas[ar].freeBlocks()
			blocks += n
			bytes += n * int(arenaBlockSizes[class])
		}
	}
	return arenas, blocks, bytes
}

// freeBlocks counts the arena's free blocks.
func (a arena) freeBlocks() int {
	n := 0
	for _, f := range a.free {
		if f {
			n++
		}
	}
	return n
}
