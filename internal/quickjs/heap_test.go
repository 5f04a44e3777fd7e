package quickjs

import (
	"bytes"
	"testing"

	"github.com/coderun/coderun/wasm"
	"github.com/stretchr/testify/require"
)

// newStackInstance is newInstance with the C stack moved to a malloc'd
// block, as the runtime's instances have it.
func newStackInstance(t testing.TB) *Instance {
	t.Helper()
	in := newInstanceWith(t, &nopHost{}, InitOptions{StackBytes: 256 << 10, StackMargin: 8 << 10},
		wasm.ExportStackPointer, wasm.AddDispatcher)
	require.NotZero(t, in.stackBase)
	return in
}

// memory returns the instance's whole linear memory (a view).
func memory(t testing.TB, in *Instance) []byte {
	t.Helper()
	mem, ok := in.mem.Read(0, in.mem.Size())
	require.True(t, ok)
	return mem
}

// fill allocates n bytes of guest memory filled with b.
func fill(t testing.TB, in *Instance, n uint32, b byte) uint32 {
	t.Helper()
	p, err := in.malloc(n)
	require.NoError(t, err)
	buf, ok := in.mem.Read(p, n)
	require.True(t, ok)
	for i := range buf {
		buf[i] = b
	}
	return p
}

// churn leaves the heap with free chunks of both kinds (small-bin and
// tree) between live ones, all filled with 0xab, and garbage from the
// engine. It returns the live blocks, filled with 0xcd.
func churn(t testing.TB, in *Instance) (live []uint32, liveSizes []uint32) {
	t.Helper()
	for i, n := range []uint32{24, 200, 1000, 5000, 40, 70000} {
		p := fill(t, in, n, 0xab)
		keep := fill(t, in, 32+uint32(i), 0xcd)
		live, liveSizes = append(live, keep), append(liveSizes, 32+uint32(i))
		require.NoError(t, in.Free(p))
	}
	v, err := in.Eval(`let a = []; for (let i = 0; i < 2000; i++) a.push({i, s: 'x' + i}); JSON.stringify(a).length`, "t.js", EvalGlobal)
	require.NoError(t, err)
	require.NoError(t, in.FreeValue(v))
	return live, liveSizes
}

// The walk covers the heap exactly: chunks follow each other from the
// heap base to the top chunk, whose fencepost ends at the end of memory;
// live blocks are in-use chunks, and no two free chunks touch.
func TestWalkHeap(t *testing.T) {
	in := newStackInstance(t)
	live, _ := churn(t, in)
	mem := memory(t, in)
	w, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err)
	require.Greater(t, len(w.chunks), 100)
	free := 0
	for i, c := range w.chunks {
		if i > 0 {
			prev := w.chunks[i-1]
			require.Equal(t, prev.p+prev.size, c.p, "chunk %d does not follow its predecessor", i)
			require.False(t, prev.free && c.free, "two free chunks touch at %d", c.p)
		}
		if c.free {
			free++
		}
	}
	top := w.top()
	require.True(t, top.free)
	require.Equal(t, uint32(len(mem)), top.p+top.size+topFootSize)
	require.Greater(t, free, 1, "the churn left free chunks besides the top")
	for _, p := range append(live, in.stackBase) {
		_, ok := w.inUseAt(p)
		require.True(t, ok, "block %d is not an in-use chunk", p)
	}
}

// Any inconsistency makes the walk fail instead of guessing.
func TestWalkHeapRejectsCorruption(t *testing.T) {
	in := newStackInstance(t)
	churn(t, in)
	mem := memory(t, in)
	w, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err)
	var used, free chunk
	for _, c := range w.chunks[:len(w.chunks)-1] {
		if c.free && free.p == 0 {
			free = c
		}
		if !c.free && used.p == 0 && c.size >= 64 {
			used = c
		}
	}
	require.NotZero(t, free.p)
	require.NotZero(t, used.p)
	top := w.top()
	put := func(b []byte, off, v uint32) { putLeUint32(b[off:], v) }
	for _, tc := range []struct {
		name    string
		corrupt func(b []byte) []byte
	}{
		{"size overruns memory", func(b []byte) []byte { put(b, used.p+4, 0xfffff0|chunkCInUse|chunkPInUse); return b }},
		{"size off by a chunk", func(b []byte) []byte { put(b, used.p+4, le32(b[used.p+4:])+16); return b }},
		{"unaligned size", func(b []byte) []byte { put(b, used.p+4, le32(b[used.p+4:])+8); return b }},
		{"unknown flag", func(b []byte) []byte { put(b, used.p+4, le32(b[used.p+4:])|chunkFlag4); return b }},
		{"free chunk without footer", func(b []byte) []byte { put(b, free.p+free.size, free.size+16); return b }},
		{"free chunk marked in use", func(b []byte) []byte { put(b, free.p+4, le32(b[free.p+4:])|chunkCInUse); return b }},
		{"no fencepost", func(b []byte) []byte { put(b, top.p+top.size+4, 0); return b }},
		{"memory grew past the heap", func(b []byte) []byte { return append(b, make([]byte, 65536)...) }},
		{"heap cut short", func(b []byte) []byte { return b[:top.p+8] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := walkHeap(tc.corrupt(bytes.Clone(mem)), in.layout.HeapBase)
			require.Error(t, err)
		})
	}
}

func putLeUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func nonZero(b []byte) int {
	n := 0
	for _, x := range b {
		if x != 0 {
			n++
		}
	}
	return n
}

// ZeroUnused clears exactly the unused bytes — free chunks past their
// links, the top chunk, the stack below its pointer — and leaves live
// blocks, the heap's bookkeeping and the engine working.
func TestZeroUnused(t *testing.T) {
	in := newStackInstance(t)
	live, sizes := churn(t, in)
	mem := memory(t, in)
	below := nonZero(mem[in.stackBase:in.StackPointer()])
	require.NotZero(t, below, "the churn used the stack")

	// A freed block between live ones: a free tree chunk (perhaps merged
	// with a free predecessor), its bytes past the links unused.
	big := fill(t, in, 50000, 0xab)
	guard := fill(t, in, 32, 0xcd)
	live, sizes = append(live, guard), append(sizes, 32)
	require.NoError(t, in.Free(big))
	before := nonZero(mem)

	n, err := in.ZeroUnused()
	require.NoError(t, err)
	mem = memory(t, in)
	require.Equal(t, before-n, nonZero(mem), "the count of cleared bytes is exact")
	require.Zero(t, nonZero(mem[big+largeFreeLink:big+50000]), "the freed block was cleared")
	require.GreaterOrEqual(t, n, 50000-largeFreeLink)
	require.Zero(t, nonZero(mem[in.stackBase:in.StackPointer()]))

	w, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err, "the heap still walks")
	for i, c := range w.chunks {
		if !c.free {
			continue
		}
		from := c.payload() + smallFreeLink
		switch {
		case i == len(w.chunks)-1:
			from = c.payload()
		case c.size >= minLargeSize:
			from = c.payload() + largeFreeLink
		}
		require.Zero(t, nonZero(mem[from:c.p+c.size]), "free chunk at %d", c.p)
	}
	for i, p := range live {
		require.Equal(t, bytes.Repeat([]byte{0xcd}, int(sizes[i])), mem[p:p+sizes[i]], "live block %d", i)
	}

	// The allocator and the engine go on as before.
	for _, n := range []uint32{24, 1000, 70000, 300000} {
		p := fill(t, in, n, 0x11)
		require.NoError(t, in.Free(p))
	}
	v, err := in.Eval(`let b = []; for (let i = 0; i < 5000; i++) b.push({i, s: 'y' + i}); b.map(o => o.i).reduce((x, y) => x + y, 0)`, "t.js", EvalGlobal)
	require.NoError(t, err)
	f, ok := v.Number()
	require.True(t, ok)
	require.Equal(t, float64(4999*5000/2), f)
}

// On a heap that does not walk, ZeroUnused changes nothing.
func TestZeroUnusedRefusesABrokenHeap(t *testing.T) {
	in := newStackInstance(t)
	churn(t, in)
	mem := memory(t, in)
	w, err := walkHeap(mem, in.layout.HeapBase)
	require.NoError(t, err)
	top := w.top()
	fence := le32(mem[top.p+top.size+4:])
	putLeUint32(mem[top.p+top.size+4:], 0)
	before := bytes.Clone(mem)
	_, err = in.ZeroUnused()
	require.Error(t, err)
	require.True(t, bytes.Equal(before, memory(t, in)), "memory changed")
	putLeUint32(mem[top.p+top.size+4:], fence)
}

// ZeroUnused clears the engine's free arena blocks (all but their free-chain
// link and size class), the end of each arena past its blocks, and the
// linker's stack region that Init left: the engine goes on as before.
func TestZeroUnusedClearsArenas(t *testing.T) {
	in := newStackInstance(t)
	evalText(t, in, `globalThis.keep = []; for (let i = 0; i < 3000; i++) { const o = {i, s: 'v' + i}; if (i % 3 == 0) keep.push(o) }; 'ok'`)
	freeBytes := func() int {
		mem, n := memory(t, in), 0
		for ar, a := range arenasOf(t, in).arenas {
			bs := arenaBlockSizes[a.class]
			for i, free := range a.free {
				if h := ar + arenaHeader + uint32(i)*bs; free {
					n += nonZero(mem[h+blockGCType : h+bs])
				}
			}
			n += nonZero(mem[ar+arenaHeader+uint32(len(a.free))*bs : ar+a.end])
		}
		return n
	}
	stackRegion := func() int { return nonZero(memory(t, in)[in.layout.StackBase:in.layout.HeapBase]) }
	require.NotZero(t, freeBytes(), "the program left freed blocks holding data")
	require.NotZero(t, stackRegion(), "the runtime was created on the linker's stack")
	count, size := mallocState(t, in)

	_, err := in.ZeroUnused()
	require.NoError(t, err)
	require.Zero(t, freeBytes())
	require.Zero(t, stackRegion())
	afterCount, afterSize := mallocState(t, in)
	require.Equal(t, [2]uint32{count, size}, [2]uint32{afterCount, afterSize})
	require.Equal(t, "1000,1498500,v2997", evalText(t, in,
		`for (let i = 0; i < 3000; i++) ({i, s: 'w' + i}); [keep.length, keep.reduce((a, o) => a + o.i, 0), keep.at(-1).s].join()`))
}
