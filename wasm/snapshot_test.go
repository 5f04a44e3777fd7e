package wasm

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestImageSegments(t *testing.T) {
	mem := make([]byte, 4*65536)
	copy(mem[100:], "abc")
	copy(mem[110:], "de") // within the gap: same segment
	copy(mem[5000:], "far")
	mem[len(mem)-1] = 7
	segs := imageSegments(mem)
	require.Len(t, segs, 3)
	require.Equal(t, int32(100), segs[0].Offset[0].i32())
	require.Equal(t, append([]byte("abc"), append(make([]byte, 7), "de"...)...), segs[0].Init)
	require.Equal(t, int32(5000), segs[1].Offset[0].i32())
	require.Equal(t, []byte("far"), segs[1].Init)
	require.Equal(t, []byte{7}, segs[2].Init)

	// Re-applying the segments to a zeroed memory gives the image back.
	again := make([]byte, len(mem))
	for _, s := range segs {
		copy(again[s.Offset[0].i32():], s.Init)
	}
	require.True(t, bytes.Equal(mem, again))
	require.Empty(t, imageSegments(make([]byte, 65536)))
}

func TestSnapshotRewritesState(t *testing.T) {
	m, err := Decode(QuickJS())
	require.NoError(t, err)
	require.NoError(t, ExportStackPointer(m))
	mem := make([]byte, 8*65536)
	copy(mem[2048:], "state")
	// __stack_pointer, and __heap_base and __data_end, which are immutable:
	// the snapshot keeps their values.
	require.Len(t, m.Globals, 3)
	immutable := slices.Clone(m.Globals[1:])
	require.NoError(t, Snapshot(m, mem, []uint64{123456, 1, 2}))
	require.Equal(t, uint32(8), m.Memories[0].Min)
	require.Len(t, m.Data, 1)
	require.Equal(t, int32(123456), m.Globals[0].Init[0].i32())
	require.Equal(t, immutable, m.Globals[1:])
	if m.DataCount != nil {
		require.Equal(t, uint32(1), *m.DataCount)
	}
	out, err := m.Encode()
	require.NoError(t, err)
	back, err := Decode(out)
	require.NoError(t, err)
	require.Equal(t, []byte("state"), back.Data[0].Init)

	require.Error(t, Snapshot(m, mem[:100], []uint64{1}), "partial page")
	require.Error(t, Snapshot(m, mem, nil), "missing global values")
}
