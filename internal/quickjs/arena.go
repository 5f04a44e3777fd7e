package quickjs

import (
	"errors"
	"fmt"
)

// QuickJS-NG 0.16 serves every js_malloc_rt request through its own
// small-block allocator on top of malloc (wasm32 offsets, checked by
// walkArenas). Each allocation p has an 8-byte block header at p-8: a u16
// block index (blockLarge for a block malloc'd on its own), a u8 size class
// index (blockLargeClass for a large block), a byte holding the GC object
// type (low 7 bits) and the cycle collector's mark, then the reference
// count. A small block (header and payload together at most 512 bytes)
// lives in an arena of one size class, of arenaSize bytes (QuickJS-NG's
// 4 KiB, edited by wasm/upstream/build.sh): a malloc'd JSArena (free_link,
// link, block_size_idx, n_used_blocks, n_blocks, first_free_block) followed
// by n_blocks blocks of the class's size; its free blocks are chained by
// their u16 index. JSRuntime keeps, per size class, the list of its arenas
// and the list of those not full (or those SealFreeSpace left there).
//
// The runtime counts, in malloc_size, each allocation's usable size plus
// mallocOverhead: a small block's usable size is its class's size minus
// the header; a large block's is 0, since js__malloc_usable_size is 0 on
// WASI.
const (
	rtArenaLists     = 40  // JSRuntime.arena_state.arena_list[arenaClasses]
	rtFreeArenaLists = 288 // JSRuntime.arena_state.free_arena_list[arenaClasses]
	arenaClasses     = 31

	arenaFreeLink  = 0
	arenaLink      = 8
	arenaClass     = 16
	arenaUsed      = 18
	arenaBlocks    = 20
	arenaFirstFree = 22
	arenaHeader    = 24 // sizeof(JSArena): the blocks start here
	arenaSize      = 1280

	blockHeader     = 8
	blockGCType     = 3
	blockLarge      = 0xffff // JS_ARENA_FREE_NIL: a large block, or the end of a free chain
	blockLargeClass = 0xff
	gcTypeMask      = 0x7f
)

// arenaBlockSizes is arena_block_sizes: each size class's block size,
// header included.
var arenaBlockSizes = [arenaClasses]uint32{
	16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128,
	144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512,
}

// arena is one checked JSArena: its size class and which of its blocks
// are free.
type arena struct {
	class int
	free  []bool
	end   uint32 // the malloc chunk's usable end, relative to the arena
}

// arenaWalk is the result of walkArenas: every arena, by address.
type arenaWalk struct {
	arenas map[uint32]arena
}

// block is one allocation of js_malloc_rt: its payload is [p, end).
type block struct {
	p, end uint32
	large  bool
}

// walkArenas checks every arena of the runtime at rt against the malloc
// heap and the allocator's invariants: each arena is an in-use malloc
// chunk of its list's size class, holds at most as many blocks as fit in arenaSize,
// its free chain names each free block once and the others are in use,
// and only arenas not full are on the free-arena list, and every arena not
// full is, unless its link there is linked to itself (SealFreeSpace). It then
// checks the runtime's allocation counters: malloc_size is mallocOverhead
// per allocation plus the usable size of every small block in use.
func walkArenas(mem []byte, heap heapWalk, rt uint32) (arenaWalk, error) {
	w := arenaWalk{arenas: map[uint32]arena{}}
	u32 := func(p uint32) uint32 { return le32(mem[p:]) }
	var usable uint32
	for class := range arenaClasses {
		notFull := map[uint32]bool{}
		err := walkList(mem, rt+rtArenaLists+8*uint32(class), arenaLink, func(ar uint32) error {
			a, used, err := checkArena(mem, heap, ar, class)
			if err != nil {
				return err
			}
			if _, dup := w.arenas[ar]; dup {
				return mismatch("the arena at %d is listed twice", ar)
			}
			w.arenas[ar] = a
			if used < len(a.free) {
				notFull[ar] = true
			}
			usable += uint32(used) * (arenaBlockSizes[class] - blockHeader)
			return nil
		})
		if err != nil {
			return arenaWalk{}, err
		}
		err = walkList(mem, rt+rtFreeArenaLists+8*uint32(class), arenaFreeLink, func(ar uint32) error {
			if !notFull[ar] {
				return mismatch("the arena at %d is on a free-arena list but not free", ar)
			}
			delete(notFull, ar)
			return nil
		})
		if err != nil {
			return arenaWalk{}, err
		}
		for ar := range notFull {
			// Off the list for good (SealFreeSpace): linked to itself.
			if u32(ar+arenaFreeLink) != ar+arenaFreeLink || u32(ar+arenaFreeLink+4) != ar+arenaFreeLink {
				return arenaWalk{}, mismatch("the arena at %d has free blocks but is not on its free-arena list", ar)
			}
		}
	}
	count, size := u32(rt+rtMallocCount), u32(rt+rtMallocSize)
	if count == 0 || size != count*mallocOverhead+usable {
		return arenaWalk{}, mismatch("the runtime's allocation counters do not check (%d allocations, %d bytes, %d in small blocks)",
			count, size, usable)
	}
	return w, nil
}

// walkList calls f with each element of the list_head list at head, whose
// links are at offset link in the element, after checking that the list
// is well formed.
func walkList(mem []byte, head, link uint32, f func(elem uint32) error) error {
	u32 := func(p uint32) uint32 {
		if p > uint32(len(mem))-4 {
			return 0
		}
		return le32(mem[p:])
	}
	prev := head
	for node, n := u32(head+4), 0; node != head; node, n = u32(node+4), n+1 {
		if node < link || u32(node) != prev || n > len(mem)/arenaHeader {
			return mismatch("the list at %d is broken at %d", head, node)
		}
		if err := f(node - link); err != nil {
			return err
		}
		prev = node
	}
	if u32(head) != prev {
		return mismatch("the list at %d does not close", head)
	}
	return nil
}

// checkArena checks the arena at ar of the given size class and returns it
// and how many of its blocks are in use.
func checkArena(mem []byte, heap heapWalk, ar uint32, class int) (arena, int, error) {
	fail := func(format string, args ...any) (arena, int, error) {
		return arena{}, 0, mismatch("the arena at %d does not check: %s", ar, fmt.Sprintf(format, args...))
	}
	u16 := func(p uint32) int { return int(mem[p]) | int(mem[p+1])<<8 }
	bs := arenaBlockSizes[class]
	n := u16(ar + arenaBlocks)
	c, ok := heap.inUseAt(ar)
	if !ok || c.usableEnd()-ar < arenaHeader+uint32(n)*bs {
		return fail("not a heap allocation of its size")
	}
	used := u16(ar + arenaUsed)
	if int(mem[ar+arenaClass]) != class || n == 0 || n > int((arenaSize-arenaHeader)/bs) || used == 0 || used > n {
		return fail("class %d, %d of %d blocks used", mem[ar+arenaClass], used, n)
	}
	free := make([]bool, n)
	nfree := 0
	for i := u16(ar + arenaFirstFree); i != blockLarge; nfree++ {
		if i >= n || free[i] || nfree >= n {
			return fail("its free chain is broken at block %d", i)
		}
		free[i] = true
		h := ar + arenaHeader + uint32(i)*bs
		if int(mem[h+2]) != class {
			return fail("free block %d is of class %d", i, mem[h+2])
		}
		i = u16(h)
	}
	if nfree != n-used {
		return fail("%d blocks free, %d used of %d", nfree, used, n)
	}
	return arena{class: class, free: free, end: c.usableEnd() - ar}, used, nil
}

// unused returns the spans of the arenas that hold nothing: each free
// block but its first bytes (the free chain's link and the size class,
// which js_arena_malloc reads), and the end of each arena after its last
// block.
func (w arenaWalk) unused() [][2]uint32 {
	var spans [][2]uint32
	for ar, a := range w.arenas {
		bs := arenaBlockSizes[a.class]
		for i, free := range a.free {
			if free {
				h := ar + arenaHeader + uint32(i)*bs
				spans = append(spans, [2]uint32{h + blockGCType, h + bs})
			}
		}
		last := ar + arenaHeader + uint32(len(a.free))*bs
		spans = append(spans, [2]uint32{last, ar + a.end})
	}
	return spans
}

// block returns the allocation whose payload starts at p, after checking
// its header: a large block is an in-use malloc chunk of its own, a small
// one a block in use in a checked arena.
func (w arenaWalk) block(mem []byte, heap heapWalk, p uint32) (block, bool) {
	if p < blockHeader || p > uint32(len(mem))-blockHeader {
		return block{}, false
	}
	h := p - blockHeader
	idx, class := uint32(mem[h])|uint32(mem[h+1])<<8, mem[h+2]
	if idx == blockLarge {
		c, ok := heap.inUseAt(h)
		if !ok || class != blockLargeClass {
			return block{}, false
		}
		return block{p: p, end: c.usableEnd(), large: true}, true
	}
	if int(class) >= arenaClasses {
		return block{}, false
	}
	bs := arenaBlockSizes[class]
	ar := h - idx*bs - arenaHeader
	a, ok := w.arenas[ar]
	if !ok || a.class != int(class) || int(idx) >= len(a.free) || a.free[idx] {
		return block{}, false
	}
	return block{p: p, end: h + bs}, true
}

// freeBlock does what js_free_rt does with a checked block: it counts the
// block out of the runtime's allocation counters, then gives a large block
// back to malloc, or a small one to its arena (zeroing it, so that a
// snapshot does not carry what it held), giving the arena back to malloc
// when it is then empty. Any error is a failed call into the instance.
func (in *Instance) freeBlock(b block) error {
	mem, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return errors.New("quickjs: reading memory")
	}
	put16 := func(p uint32, v int) { mem[p], mem[p+1] = byte(v), byte(v>>8) }
	u16 := func(p uint32) int { return int(mem[p]) | int(mem[p+1])<<8 }
	h := b.p - blockHeader
	counter := func(off, minus uint32) { putLE32(mem[in.rt+off:], le32(mem[in.rt+off:])-minus) }
	counter(rtMallocCount, 1)
	if b.large {
		counter(rtMallocSize, mallocOverhead)
		return in.Free(h)
	}
	class := uint32(mem[h+2])
	bs := arenaBlockSizes[class]
	counter(rtMallocSize, bs)
	idx := u16(h)
	ar := h - uint32(idx)*bs - arenaHeader
	clear(mem[h+blockGCType : h+bs]) // the GC byte, the count and the payload
	put16(h, u16(ar+arenaFirstFree))
	put16(ar+arenaFirstFree, idx)
	used, n := u16(ar+arenaUsed), u16(ar+arenaBlocks)
	if used == n { // list_add(&ar->free_link, &free_arena_list[class])
		listAdd(mem, ar+arenaFreeLink, in.rt+rtFreeArenaLists+8*class)
	}
	put16(ar+arenaUsed, used-1)
	if used > 1 {
		return nil
	}
	listDel(mem, ar+arenaLink)
	listDel(mem, ar+arenaFreeLink)
	return in.Free(ar)
}

// listAdd is list.h's list_add: it links el in first after head.
func listAdd(mem []byte, el, head uint32) {
	next := le32(mem[head+4:])
	putLE32(mem[el:], head)
	putLE32(mem[el+4:], next)
	putLE32(mem[next:], el)
	putLE32(mem[head+4:], el)
}

// listDel is list.h's list_del: it unlinks el and clears its links.
func listDel(mem []byte, el uint32) {
	prev, next := le32(mem[el:]), le32(mem[el+4:])
	putLE32(mem[prev+4:], next)
	putLE32(mem[next:], prev)
	putLE32(mem[el:], 0)
	putLE32(mem[el+4:], 0)
}

// putLE32 writes v little-endian at b.
func putLE32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
