package quickjs

import (
	"errors"
	"fmt"
)

// SeedStats says what SeedArenas added to the heap.
type SeedStats struct {
	// Arenas is how many small arenas it made, one per size class, and
	// Bytes the bytes they take (their malloc chunks' requests).
	Arenas, Bytes int
}

// seedArenaBytes is about how many bytes of blocks SeedArenas gives each
// size class.
const seedArenaBytes = 512

// seedBlocks is how many blocks the small arena of class holds: about
// seedArenaBytes of them, and at least two, since one of them is held
// for good (see SeedArenas).
func seedBlocks(class int) uint32 {
	return max(2, seedArenaBytes/arenaBlockSizes[class])
}

// SeedArenas gives every size class of the engine's small-block allocator
// an arena of a few blocks of its own (seedBlocks), the arenas side by
// side at the top of the heap, and puts each first on its class's list of
// arenas with free blocks. Run after SealFreeSpace, which takes every
// other arena off those lists, it makes a snapshot whose runs write their
// first blocks of every size on the same few pages, blocks that would
// otherwise go to an arena of the image per size, each arena a page or
// two of the image the run would then own; and every snapshot so made
// offers a run the same free blocks, whatever its prelude left in the
// heap, so that a run takes the same allocation paths, and spends the same
// fuel, in snapshots of different preludes. Once a small arena is full,
// js_arena_malloc makes an arena of the usual size, as it does when no
// arena has free blocks.
//
// An arena is a malloc chunk that js_arena_free gives back to malloc when
// its last block is freed. Each small arena therefore keeps its last block
// allocated for the instance's life, counted in the runtime's allocation
// counters as js_malloc_rt counts a block, so that a run's temporaries do
// not free the arena and send the next block of its size to a new one.
// Nothing refers to that block. The small arenas have fewer blocks than
// arena_new gives, which the allocator allows: js_arena_malloc and
// js_arena_free read an arena's block count from its header.
//
// It checks the heap and the arenas first (walkHeap, walkArenas) and
// changes nothing when they do not walk, failing with ErrLayoutMismatch;
// once the arenas are written it checks them again, and a failure then is
// a plain error: the instance is not to be used. It must not be called
// while a call into the instance is in progress.
func (in *Instance) SeedArenas() (SeedStats, error) {
	var st SeedStats
	if _, _, _, err := in.walkMemory(); err != nil {
		return st, err
	}
	var got [arenaClasses]uint32
	for class := range arenaClasses {
		p, err := in.malloc(arenaHeader + seedBlocks(class)*arenaBlockSizes[class])
		if err != nil {
			for _, q := range got[:class] {
				if ferr := in.Free(q); ferr != nil {
					return st, ferr
				}
			}
			return st, err
		}
		got[class] = p
	}
	// malloc may have grown the memory.
	mem, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return st, errors.New("quickjs: reading memory")
	}
	for class, ar := range got {
		st.Bytes += int(seedArena(mem, in.rt, ar, class))
	}
	st.Arenas = len(got)
	if _, _, _, err := in.walkMemory(); err != nil {
		// Not wrapped (%v): not ErrLayoutMismatch, which callers tolerate.
		return st, fmt.Errorf("quickjs: the seeded arenas do not check: %v", err)
	}
	return st, nil
}

// seedArena writes, at ar (a malloc'd chunk big enough), the arena
// SeedArenas gives class: its blocks chained free in index order but the
// last, which is in use and counted in the runtime's allocation counters;
// and links it first on both of its class's lists. It returns the arena's
// size.
func seedArena(mem []byte, rt, ar uint32, class int) uint32 {
	bs, n := arenaBlockSizes[class], seedBlocks(class)
	size := arenaHeader + n*bs
	clear(mem[ar : ar+size])
	put16 := func(p, v uint32) { mem[p], mem[p+1] = byte(v), byte(v>>8) }
	mem[ar+arenaClass] = byte(class)
	put16(ar+arenaUsed, 1)
	put16(ar+arenaBlocks, n)
	put16(ar+arenaFirstFree, 0)
	for i := range n {
		h := ar + arenaHeader + i*bs
		switch {
		case i == n-1: // held for good: in use, its own index
			put16(h, i)
		case i == n-2: // the last free block ends the chain
			put16(h, blockLarge)
		default:
			put16(h, i+1)
		}
		mem[h+2] = byte(class)
	}
	counter := func(off, plus uint32) { putLE32(mem[rt+off:], le32(mem[rt+off:])+plus) }
	counter(rtMallocCount, 1)
	counter(rtMallocSize, bs) // mallocOverhead and the block's usable size
	listAdd(mem, ar+arenaLink, rt+rtArenaLists+8*uint32(class))
	listAdd(mem, ar+arenaFreeLink, rt+rtFreeArenaLists+8*uint32(class))
	return size
}
