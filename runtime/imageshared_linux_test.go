package runtime

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	goruntime "runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/quickjs"
)

// The snapshot's image is shared, not copied: a run's memory maps it from
// one file, so a page is a run's own only once the run writes it. A run
// waiting on a binding owns at most imageOwnBound of its pages and maps
// others from the file; a run that reads the module's
// constant data (Unicode case mapping reads its tables) owns none of the
// first 64 KiB, which no run writes. Copied, every page of the image would
// be each run's own. (Whether pages are resident depends on who used the
// memory before: the pool keeps the file's pages that a user only read
// mapped, and restores those it wrote in place, so they stay its own.)
func TestImageShared(t *testing.T) {
	const page = 4096
	e := testPrivateEngine(t)
	shared := e.qe.Shared()
	require.Positive(t, shared, "the engine shares its image")
	var mem []byte
	e.hooks.attached = func(in *quickjs.Instance) {
		b, ok := in.Memory().Read(0, uint32(shared))
		require.True(t, ok)
		mem = b
	}
	// states reads /proc/self/pagemap for the first n bytes of the image:
	// how many pages are present and the memory's own (anonymous), and
	// how many present and the file's.
	states := func(n int) (own, file int) {
		f, err := os.Open("/proc/self/pagemap")
		require.NoError(t, err)
		defer f.Close()
		raw := make([]byte, 8*(n/page))
		_, err = f.ReadAt(raw, int64(uintptr(unsafe.Pointer(&mem[0]))/page)*8)
		require.NoError(t, err)
		for i := range n / page {
			v := binary.LittleEndian.Uint64(raw[8*i:])
			if v>>63 == 1 {
				if v>>61&1 == 0 {
					own++
				} else {
					file++
				}
			}
		}
		return own, file
	}

	var own, file int
	bindings := []Binding{{Global: "tools", Functions: map[string]Func{
		"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			own, file = states(len(mem))
			return json.RawMessage(`1`), nil
		},
	}}}
	for range 3 { // a fresh memory, then the pool's
		o, err := e.run(context.Background(), `return await tools.wait(0)`, bindings)
		require.NoError(t, err)
		require.Empty(t, o.Kind, o.Message)
		t.Logf("a waiting run owns %d pages of the image and maps %d from the file", own, file)
		require.LessOrEqual(t, own*page, imageOwnBound, "bytes of the image a waiting run owns")
		require.Positive(t, file, "pages a waiting run maps from the file")
	}

	e.hooks.ended = func(*run) { own, file = states(64 << 10) }
	o, err := e.run(context.Background(), `return "straße ǆ".toUpperCase()`, nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, `"STRASSE Ǆ"`, string(o.Value))
	require.Positive(t, file, "the case tables were read")
	require.Zero(t, own, "a page read is the file's, not the run's own copy")
}

// imageOwnBound is the most of the image a run waiting on a binding may
// own: 40 pages (160 KiB). With QuickJS-NG 0.16 (our build) the image had
// 101 pages of 4 KiB that are not zero (88 with 0.10.1), and such a run was
// measured owning 53 to 54 of them (33 with 0.10.1: bench/README.md at 23be69a,
// "Which image pages a run touches"); copied, it would own all 101. Once
// the snapshot ordered its arenas, 49 of 105 (52 of 102 at 1258cef, 56
// before the order); with arenas of 1,280 bytes and a small one per size
// class seeded at the top of the heap (quickjs.Instance.SeedArenas), 31 of
// 100.
const imageOwnBound = 40 * 4096

// The compiled engine holds two file descriptors for its shared image (the
// memory file, and the pool's page map, which its scrub reads), once per
// process (engineFor): Engines made, used and closed one after another open
// none of their own, and leave the process's descriptors as they were.
func TestEngineCloseReleasesImageFiles(t *testing.T) {
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(ents)
	}
	e := testEngine(t) // the compiled engine made, as for the ones below
	require.Positive(t, e.qe.Shared())
	before := count()
	for range 5 {
		e, err := New(context.Background(), Options{Limits: e.limits, CacheDir: testCacheDir(t)})
		require.NoError(t, err)
		require.Positive(t, e.qe.Shared())
		o, err := e.run(context.Background(), "return 1", nil)
		require.NoError(t, err)
		require.Empty(t, o.Kind, o.Message)
		require.NoError(t, e.Close(context.Background()))
	}
	require.LessOrEqual(t, count(), before, "descriptors left by closed engines")
}

// A run cannot make later runs' memories larger: a program that recurses
// as deep as QuickJS allows writes about 119 pages of the guest stack,
// and the engine does not learn them as pages new memories write ahead
// (linearmem learns only short gaps of the image). Of 4 + 2×GOMAXPROCS
// runs started at once afterwards, all but those on the pool's memories
// (at most 2×GOMAXPROCS, which keep what their users wrote, cleared)
// start on new memories owning at most learnedBound bytes of the image's
// span; learned, the stack would be every new memory's own.
func TestDeepRecursionNotLearned(t *testing.T) {
	const page = 4096
	const learnedBound = 128 * page // the image's 88 non-zero pages and its short zero runs
	e := testPrivateEngine(t)
	shared := e.qe.Shared()
	require.Positive(t, shared)
	owned := func(in *quickjs.Instance) int {
		b, ok := in.Memory().Read(0, uint32(shared))
		require.True(t, ok)
		f, err := os.Open("/proc/self/pagemap")
		require.NoError(t, err)
		defer f.Close()
		raw := make([]byte, 8*(len(b)/page))
		_, err = f.ReadAt(raw, int64(uintptr(unsafe.Pointer(&b[0]))/page)*8)
		require.NoError(t, err)
		n := 0
		for i := range len(b) / page {
			if v := binary.LittleEndian.Uint64(raw[8*i:]); v>>63 == 1 && v>>61&1 == 0 {
				n++
			}
		}
		return n * page
	}

	var deep int
	e.hooks.ended = func(r *run) { deep = owned(r.in) }
	o, err := e.run(context.Background(), `function f(n) { return f(n + 1) + 1 }
try { f(0) } catch (e) { return e.name }`, nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, `"RangeError"`, string(o.Value))
	require.Greater(t, deep, learnedBound, "the recursion wrote the stack (about 119 pages of it)")
	e.hooks.ended = nil

	n := 4 + 2*goruntime.GOMAXPROCS(0)
	var mu sync.Mutex
	var starts []int
	e.hooks.attached = func(in *quickjs.Instance) {
		b := owned(in)
		mu.Lock()
		starts = append(starts, b)
		mu.Unlock()
	}
	for _, err := range startWaitingRuns(e, n)() {
		require.NoError(t, err)
	}
	under := 0
	for _, b := range starts {
		if b <= learnedBound {
			under++
		}
	}
	t.Logf("the recursion owned %d KiB; the instances after it started owning %v bytes", deep>>10, starts)
	// The pool keeps at most 2×GOMAXPROCS memories, each holding what its
	// users wrote (cleared in place): the other runs got new memories.
	require.GreaterOrEqual(t, under, n-2*goruntime.GOMAXPROCS(0),
		"instances that started owning at most %d bytes of the image's span", learnedBound)
}
