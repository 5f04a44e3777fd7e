package quickjs

import (
	"bytes"
	"context"
	"os"
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/wasm"
)

// splitImage on the generated engine: the split module's segments write
// nothing below the cut, the prefix is what the whole module writes there,
// and the module split where the engine splits it (after the last byte its
// segments write), with that image shared, makes the same memory as the
// whole module (instantiated by engines with and without a shared image).
func TestSplitImage(t *testing.T) {
	ctx := context.Background()
	engine, _, err := wasm.Engine()
	require.NoError(t, err)
	const cut = 64 << 10
	rest, prefix, ok := splitImage(engine, cut)
	require.True(t, ok)
	require.Len(t, prefix, cut)
	require.NotEqual(t, make([]byte, cut), prefix, "the module's constant data")
	for _, s := range dataSpans(rest) {
		require.GreaterOrEqual(t, s.Off, uint64(cut), "a segment below the cut: %+v", s)
	}
	m, err := wasm.Decode(rest)
	require.NoError(t, err, "the split module decodes")
	whole, err := wasm.Decode(engine)
	require.NoError(t, err)
	require.Len(t, m.Data, len(whole.Data), "segment indexes are kept")

	var extent uint64 // the end of the page of the last byte a segment writes
	page := uint64(os.Getpagesize())
	for _, s := range dataSpans(engine) {
		extent = max(extent, (s.Off+s.Len+page-1)/page*page)
	}
	memory := func(opts Options) []byte {
		e, err := NewEngine(ctx, opts)
		require.NoError(t, err)
		defer e.Close(ctx)
		if goruntime.GOOS == "linux" && opts.ShareImage {
			require.Equal(t, extent, e.Shared(), "the engine shares all its segments write")
		} else {
			require.Zero(t, e.Shared())
		}
		in, err := e.Instantiate(ctx, &nopHost{})
		require.NoError(t, err)
		defer in.Close(ctx)
		b, ok := in.Memory().Read(0, in.Memory().Size())
		require.True(t, ok)
		return bytes.Clone(b)
	}
	want := memory(Options{Wasm: engine, MemoryLimitPages: 1024})
	require.True(t, bytes.Equal(prefix, want[:cut]), "the prefix is the memory's start")
	got := memory(Options{Wasm: engine, MemoryLimitPages: 1024, ShareImage: true})
	require.True(t, bytes.Equal(want, got), "the memory of an instance with the shared image")
}

// splitImage on hand-made modules: those it cannot read are refused, not
// mangled, and segments across the cut are split there.
func TestSplitImageSegments(t *testing.T) {
	header := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	mod := func(sections ...[]byte) []byte {
		out := append([]byte(nil), header...)
		for _, s := range sections {
			out = append(out, s...)
		}
		return out
	}
	mem := func(pages byte) []byte { return []byte{5, 3, 1, 0, pages} }
	data := func(body ...byte) []byte { return append([]byte{11, byte(len(body))}, body...) }
	for _, c := range []struct {
		name string
		src  []byte
	}{
		{"no memory section", mod(data(1, 0, 0x41, 0, 0x0b, 1, 7))},
		{"memory smaller than the cut", mod(mem(1), data(1, 0, 0x41, 0, 0x0b, 1, 7))},
		{"offset from a global", mod(mem(4), data(1, 0, 0x23, 0, 0x0b, 1, 7))},
		{"no data section", mod(mem(4))},
		{"truncated", mod(mem(4), data(1, 0, 0x41, 0, 0x0b, 5, 7))},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, ok := splitImage(c.src, 128<<10)
			require.False(t, ok)
		})
	}
	t.Run("segments across the cut", func(t *testing.T) {
		// Memory of 4 wasm pages; a segment of 4 bytes at cut-2, one at 8
		// and a passive one.
		src := mod(mem(4), data(3,
			0, 0x41, 8, 0x0b, 2, 1, 2,
			1, 2, 9, 9,
			0, 0x41, 0xfe, 0xff, 0x07, 0x0b, 4, 3, 4, 5, 6)) // 131070 = 128 KiB - 2
		rest, prefix, ok := splitImage(src, 128<<10)
		require.True(t, ok)
		require.Equal(t, []byte{1, 2}, prefix[8:10])
		require.Equal(t, []byte{3, 4}, prefix[128<<10-2:])
		m, err := wasm.Decode(rest)
		require.NoError(t, err)
		require.Len(t, m.Data, 3)
		require.Empty(t, m.Data[0].Init)
		require.Equal(t, []byte{9, 9}, m.Data[1].Init, "passive, unchanged")
		require.Equal(t, []byte{5, 6}, m.Data[2].Init)
		require.Equal(t, uint64(128<<10), m.Data[2].Offset[0].C)
	})
}
