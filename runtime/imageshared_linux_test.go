package runtime

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/quickjs"
)

// The engine's constant pages are shared, not copied: a run's memory maps
// them from one file, so none of them is a run's own copy, whether the run
// never reads them (one that awaits a binding) or reads them (Unicode case
// mapping reads the module's tables). Copied, every one of them would be.
// (Whether they are resident depends on who used the memory before: the
// pool keeps the file's pages that a user only read mapped; see
// linearmem's TestPoolImage for a fresh memory, which has none.)
func TestConstantPagesShared(t *testing.T) {
	const page = 4096
	e := testEngine(t)
	shared := e.qe.Shared()
	require.Equal(t, uint64(64<<10), shared, "the engine shares the first 64 KiB window of its constant pages")
	var start []byte
	e.hooks.attached = func(in *quickjs.Instance) {
		b, ok := in.Memory().Read(0, uint32(shared))
		require.True(t, ok)
		start = b
	}
	// states reads /proc/self/pagemap for the shared pages: present, and
	// the memory's own (anonymous) rather than the file's.
	states := func() (present, own int) {
		f, err := os.Open("/proc/self/pagemap")
		require.NoError(t, err)
		defer f.Close()
		n := len(start) / page
		raw := make([]byte, 8*n)
		_, err = f.ReadAt(raw, int64(uintptr(unsafe.Pointer(&start[0]))/page)*8)
		require.NoError(t, err)
		for i := range n {
			v := binary.LittleEndian.Uint64(raw[8*i:])
			if v>>63 == 1 {
				present++
				if v>>61&1 == 0 {
					own++
				}
			}
		}
		return present, own
	}

	waiting := -1
	bindings := []Binding{{Global: "tools", Functions: map[string]Func{
		"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			_, waiting = states()
			return json.RawMessage(`1`), nil
		},
	}}}
	o, err := e.run(context.Background(), `return await tools.wait(0)`, bindings)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Zero(t, waiting, "shared pages that are a waiting run's own")

	var present, own int
	e.hooks.ended = func(*run) { present, own = states() }
	o, err = e.run(context.Background(), `return "straße ǆ".toUpperCase()`, nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, `"STRASSE Ǆ"`, string(o.Value))
	require.Positive(t, present, "the case tables were read")
	require.Zero(t, own, "a page read is the file's, not the run's own copy")
}

// An engine's shared image holds two file descriptors (the memory file and
// the page map); closing the engine closes both: engines made and closed
// one after another leave the process's descriptors as they were.
func TestEngineCloseReleasesImageFiles(t *testing.T) {
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(ents)
	}
	e := testEngine(t) // the compiled engine cached, as for the ones below
	require.Positive(t, e.qe.Shared())
	before := count()
	for range 5 {
		e, err := New(context.Background(), Options{Limits: e.limits, CacheDir: testCacheDir(t)})
		require.NoError(t, err)
		require.Positive(t, e.qe.Shared())
		require.Greater(t, count(), before, "an open engine holds its image's files")
		require.NoError(t, e.Close(context.Background()))
	}
	require.LessOrEqual(t, count(), before, "descriptors left by closed engines")
}
