package quickjs

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// SealFreeSpace leaves no free malloc chunk but the top one and no arena
// on a free-arena list; the heap and the arenas still walk, live blocks keep their
// bytes, new allocations come from the top chunk, and the engine goes on
// as before, freeing into the arenas taken off their lists.
func TestSealFreeSpace(t *testing.T) {
	in := newStackInstance(t)
	live, sizes := churn(t, in)
	evalText(t, in, `globalThis.keep = []; for (let i = 0; i < 3000; i++) { const o = {i, s: 'v' + i}; if (i % 3 == 0) keep.push(o) }; 'ok'`)
	mem := memory(t, in)
	before, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err)
	freeChunks := 0
	for _, c := range before.chunks[:len(before.chunks)-1] {
		if c.free {
			freeChunks++
		}
	}
	require.Positive(t, freeChunks, "the churn left free chunks")
	count, size := mallocState(t, in)

	st, err := in.SealFreeSpace()
	require.NoError(t, err)
	require.Equal(t, freeChunks, st.Chunks)
	require.Positive(t, st.Arenas, "arenas with free blocks taken off their lists")
	require.Positive(t, st.BlockBytes)

	mem = memory(t, in)
	after, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err, "the heap still walks")
	require.Equal(t, before.top(), after.top(), "the top chunk is untouched")
	sealed := 0
	for i, c := range after.chunks[:len(after.chunks)-1] {
		require.False(t, c.free, "chunk %d at %d is free", i, c.p)
		if before.chunks[i].free {
			sealed += int(c.size)
			require.Zero(t, nonZero(mem[c.payload():c.p+c.size]), "the sealed chunk at %d holds nothing", c.p)
		}
	}
	require.Equal(t, st.ChunkBytes, sealed)
	for i, p := range live {
		require.Equal(t, bytes.Repeat([]byte{0xcd}, int(sizes[i])), mem[p:p+sizes[i]], "live block %d", i)
	}
	arenas, err := walkArenas(mem, after, in.rt)
	require.NoError(t, err, "the arenas still walk")
	for class := range arenaClasses {
		n := 0
		require.NoError(t, walkList(mem, in.rt+rtFreeArenaLists+8*uint32(class), arenaFreeLink, func(uint32) error { n++; return nil }))
		require.Zero(t, n, "class %d has an arena on its free-arena list", class)
	}
	require.Equal(t, [2]uint32{count, size}, func() [2]uint32 { c, s := mallocState(t, in); return [2]uint32{c, s} }())
	require.NotEmpty(t, arenas.arenas)

	// A large allocation comes from the top chunk, not from a hole.
	p := fill(t, in, 3000, 0x11)
	require.GreaterOrEqual(t, p, after.top().p)
	require.NoError(t, in.Free(p))
	// The engine frees into arenas off their lists and allocates anew.
	require.Equal(t, "1000,1498500,v2997", evalText(t, in,
		`for (let i = 0; i < 3000; i++) ({i, s: 'w' + i}); [keep.length, keep.reduce((a, o) => a + o.i, 0), keep.at(-1).s].join()`))
	require.Equal(t, "0", evalText(t, in, `keep.length = 0; globalThis.keep = null; String(0)`))
	_, err = walkArenas(memory(t, in), mustWalk(t, in), in.rt)
	require.NoError(t, err, "the arenas walk after the engine freed into them")
}

// On a heap that does not walk, SealFreeSpace and SeedArenas change
// nothing.
func TestHeapTrimsRefuseABrokenHeap(t *testing.T) {
	for _, tc := range []struct {
		name string
		trim func(*Instance) error
	}{
		{"SealFreeSpace", func(in *Instance) error { _, err := in.SealFreeSpace(); return err }},
		{"SeedArenas", func(in *Instance) error { _, err := in.SeedArenas(); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newStackInstance(t)
			churn(t, in)
			mem := memory(t, in)
			top := mustWalk(t, in).top()
			fence := le32(mem[top.p+top.size+4:])
			putLeUint32(mem[top.p+top.size+4:], 0)
			before := bytes.Clone(mem)
			require.ErrorIs(t, tc.trim(in), ErrLayoutMismatch)
			require.True(t, bytes.Equal(before, memory(t, in)), "memory changed")
			putLeUint32(mem[top.p+top.size+4:], fence)
		})
	}
}

// mustWalk walks the instance's heap.
func mustWalk(t testing.TB, in *Instance) heapWalk {
	t.Helper()
	w, err := walkHeap(memory(t, in), in.layout.HeapBase)
	require.NoError(t, err)
	return w
}
