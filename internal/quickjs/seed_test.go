package quickjs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// seededArena is what the test reads of one small arena of SeedArenas.
type seededArena struct {
	at, blocks, used uint32
}

// seededArenas returns, per size class, the arena first on its free-arena
// list, checking that it is the only one there.
func seededArenas(t *testing.T, in *Instance) [arenaClasses]seededArena {
	t.Helper()
	mem := memory(t, in)
	u16 := func(p uint32) uint32 { return uint32(mem[p]) | uint32(mem[p+1])<<8 }
	var got [arenaClasses]seededArena
	for class := range arenaClasses {
		n := 0
		require.NoError(t, walkList(mem, in.rt+rtFreeArenaLists+8*uint32(class), arenaFreeLink, func(ar uint32) error {
			got[class] = seededArena{at: ar, blocks: u16(ar + arenaBlocks), used: u16(ar + arenaUsed)}
			n++
			return nil
		}))
		require.Equal(t, 1, n, "class %d: arenas on its free-arena list", class)
	}
	return got
}

// SeedArenas, after SealFreeSpace, leaves one arena on each size class's
// free-arena list: a small one, at the top of the heap beside the others,
// with one block held for good and counted; the heap and the arenas walk,
// the engine's next small blocks come from those arenas, and a small arena
// outlives every block a run frees into it.
func TestSeedArenas(t *testing.T) {
	in := newStackInstance(t)
	churn(t, in)
	evalText(t, in, `globalThis.keep = []; for (let i = 0; i < 3000; i++) { const o = {i, s: 'v' + i}; if (i % 3 == 0) keep.push(o) }; 'ok'`)
	_, err := in.SealFreeSpace()
	require.NoError(t, err)
	top := mustWalk(t, in).top()
	count, size := mallocState(t, in)

	st, err := in.SeedArenas()
	require.NoError(t, err)
	require.Equal(t, arenaClasses, st.Arenas)
	_, err = walkArenas(memory(t, in), mustWalk(t, in), in.rt)
	require.NoError(t, err, "the arenas walk")

	seeded := seededArenas(t, in)
	var heldBytes uint32
	lo, hi := seeded[0].at, seeded[0].at
	for class, a := range seeded {
		require.Equal(t, seedBlocks(class), a.blocks, "class %d", class)
		require.Equal(t, uint32(1), a.used, "class %d: the block held for good", class)
		require.GreaterOrEqual(t, a.at, top.p, "class %d: from the top chunk", class)
		heldBytes += arenaBlockSizes[class]
		lo, hi = min(lo, a.at), max(hi, a.at+arenaHeader+a.blocks*arenaBlockSizes[class])
	}
	require.LessOrEqual(t, int(hi-lo), st.Bytes+arenaClasses*16, "the arenas are side by side (a chunk adds at most 16 bytes)")
	c, s := mallocState(t, in)
	require.Equal(t, [2]uint32{count + arenaClasses, size + heldBytes}, [2]uint32{c, s}, "the held blocks are counted")

	// The engine's next small blocks come from the small arenas.
	evalText(t, in, `globalThis.more = [{a: 1}, 'x'.repeat(20), [1, 2, 3]]; 'ok'`)
	used := 0
	for class, a := range seededArenas(t, in) {
		require.Equal(t, seeded[class].at, a.at, "class %d", class)
		used += int(a.used) - 1
	}
	require.Positive(t, used, "blocks taken from the small arenas")

	// Churn fills them, the engine makes arenas of its own, and freeing
	// every new block leaves each small arena in place, holding its block.
	require.Equal(t, "1000", evalText(t, in,
		`for (let i = 0; i < 3000; i++) ({i, s: 'w' + i}); globalThis.more = null; String(keep.length)`))
	mem := memory(t, in)
	for class, a := range seeded {
		found := false
		require.NoError(t, walkList(mem, in.rt+rtArenaLists+8*uint32(class), arenaLink, func(ar uint32) error {
			found = found || ar == a.at
			return nil
		}))
		require.True(t, found, "class %d: the small arena is still the engine's", class)
		require.Equal(t, byte(class), mem[a.at+arenaClass])
	}
	_, err = walkArenas(mem, mustWalk(t, in), in.rt)
	require.NoError(t, err, "the arenas walk after the engine used them")
}
