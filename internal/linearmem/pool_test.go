//go:build linux

package linearmem_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"

	"github.com/coderun/coderun/internal/linearmem"
)

// poolModes are the two places a Pool scrubs: its goroutine, or Free.
var poolModes = []struct {
	name   string
	inline bool
}{
	{name: "in-free", inline: true},
	{name: "background"},
}

func newPool(t testing.TB, opts linearmem.PoolOptions) *linearmem.Pool {
	t.Helper()
	p := linearmem.NewPool(opts)
	require.NotNil(t, p)
	if os.Getenv(noPageMapEnv) != "" {
		linearmem.ForgetPageMap(p)
	}
	t.Cleanup(p.Close)
	return p
}

// noPageMapEnv, set, makes every pool of the tests scrub as it does where
// /proc/self/pagemap cannot be read (TestPoolsWithoutPageMap).
const noPageMapEnv = "LINEARMEM_TEST_NO_PAGEMAP"

// Pools scrub in one pass over /proc/self/pagemap, or, where it cannot be
// read, with mincore and by comparing the image's pages: every pool test
// runs again in a child process whose pools have no page map.
func TestPoolsWithoutPageMap(t *testing.T) {
	if os.Getenv(noPageMapEnv) != "" {
		t.Skip("the child")
	}
	out := rerunPoolTests(t, noPageMapEnv)
	require.Contains(t, out, "--- PASS: TestPoolImageGaps")
	require.Contains(t, out, "--- PASS: TestPoolReuse")
	require.NotContains(t, out, "--- FAIL")
}

func allocate(t testing.TB, a experimental.MemoryAllocator, max uint64) *linearmem.Memory {
	t.Helper()
	mem, ok := a.Allocate(0, max).(*linearmem.Memory)
	require.True(t, ok)
	require.True(t, mem.Mapped())
	return mem
}

// resident reports, for each OS page of the page-aligned b, whether it is
// resident (mincore).
func resident(t testing.TB, b []byte) []bool {
	t.Helper()
	ps := os.Getpagesize()
	vec := make([]byte, (len(b)+ps-1)/ps)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
		uintptr(unsafe.Pointer(&vec[0])))
	require.Zero(t, errno)
	out := make([]bool, len(vec))
	for i, v := range vec {
		out[i] = v&1 != 0
	}
	return out
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// waitIdle waits until the pool's goroutine has nothing left to do.
func waitIdle(t testing.TB, p *linearmem.Pool, idle int) {
	t.Helper()
	require.Eventually(t, func() bool {
		st := p.Stats()
		return st.Pending == 0 && st.Idle == idle
	}, 5*time.Second, time.Millisecond, "stats %+v", p.Stats())
}

func TestPoolReuse(t *testing.T) {
	const (
		max     = 64 * wasmPage
		initial = 4 * wasmPage
		grown   = 9*wasmPage + 100 // not page-aligned
	)
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{Background: !mode.inline})

			mem := allocate(t, p, max)
			buf := mem.Reallocate(initial)
			require.Len(t, buf, initial)
			first := base(buf)
			for off := 0; off < initial; off += 1000 {
				buf[off] = byte(off/1000 + 1)
			}
			buf[initial-1] = 0xee // the very end of the initial size
			buf = mem.Reallocate(grown)
			require.Equal(t, first, base(buf))
			for off := initial; off < grown; off += 777 {
				buf[off] = 0xaa
			}
			buf[grown-1] = 0xbb // the very end after a grow
			committed := mem.Committed()
			ps := uint64(os.Getpagesize())
			require.Equal(t, (grown+ps-1)/ps*ps, committed)
			mem.Free()
			require.Nil(t, mem.Reallocate(wasmPage), "a freed memory stays dead")
			require.Equal(t, 1, p.Stats().Idle)
			// While the pool has room, Allocate does not take a memory that
			// is still to be scrubbed.
			waitIdle(t, p, 1)

			again := allocate(t, p, max)
			defer again.Free()
			st := p.Stats()
			require.Equal(t, uint64(1), st.Reused)
			require.Equal(t, uint64(1), st.Fresh)
			require.Zero(t, st.Idle)
			require.Equal(t, committed, again.Committed(), "committed pages are kept")

			buf = again.Reallocate(initial / 2)
			require.Len(t, buf, initial/2)
			require.Equal(t, initial/2, cap(buf))
			require.Equal(t, first, base(buf), "the reservation is reused")
			// Every byte of the committed range reads zero.
			buf = again.Reallocate(committed)
			require.Len(t, buf, int(committed))
			require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
			// Growth beyond what was committed works and reads zero.
			buf = again.Reallocate(20 * wasmPage)
			require.Equal(t, first, base(buf))
			require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
			buf[len(buf)-1] = 1
		})
	}
}

// TestPoolScrubSkipsUntouchedPages checks that scrubbing a memory does not
// fault in the pages its user never touched: a 44-page memory, as coderun's
// snapshot has, whose first 680 KiB and last 64 KiB were written and whose
// 2 MiB middle was not.
func TestPoolScrubSkipsUntouchedPages(t *testing.T) {
	const (
		size   = 44 * wasmPage
		head   = 680 * kib
		tail   = 64 * kib
		middle = size - head - tail
	)
	if mode := os.Getenv(childEnv); mode != "" {
		inline := strings.HasPrefix(mode, "in-free")
		// "+read": the guest also read the middle, which maps the
		// kernel's zero page there (resident, but nothing to clear).
		readMiddle := strings.HasSuffix(mode, "+read")
		p := linearmem.NewPool(linearmem.PoolOptions{Background: !inline})
		defer p.Close()
		mem := allocate(t, p, 1024*wasmPage)
		buf := mem.Reallocate(size)
		for i := range head {
			buf[i] = byte(i) | 1
		}
		for i := size - tail; i < size; i++ {
			buf[i] = 0x5a
		}
		if readMiddle {
			require.Equal(t, -1, firstMismatch(buf[head:size-tail], 4*kib, func(int) byte { return 0 }))
		}
		settle()
		before := rss(t)
		mem.Free()
		if !inline {
			waitIdle(t, p, 1)
		}
		again := allocate(t, p, 1024*wasmPage)
		buf = again.Reallocate(size)
		require.Equal(t, uint64(1), p.Stats().Reused)
		after := rss(t)
		res := resident(t, buf)
		ps := os.Getpagesize()
		midResident := countTrue(res[head/ps : (size-tail)/ps])
		if readMiddle {
			// Still mapped to the zero page: resident, but not counted in
			// RSS. Report how many are not.
			midResident = len(res[head/ps:(size-tail)/ps]) - midResident
		}
		headResident := countTrue(res[:head/ps])
		require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
		fmt.Printf("linearmem.before=%d\nlinearmem.after=%d\nlinearmem.mid=%d\nlinearmem.head=%d\n",
			before, after, midResident, headResident)
		again.Free()
		return
	}
	for _, mode := range []string{"background", "in-free", "background+read", "in-free+read"} {
		t.Run(mode, func(t *testing.T) {
			vals := runChild(t, "TestPoolScrubSkipsUntouchedPages", mode)
			before, after := vals["before"], vals["after"]
			require.NotZero(t, before)
			t.Logf("RSS before Free %d KiB, after reuse %d KiB; after scrub %d of %d head pages resident, %d of %d middle pages changed residency",
				before/kib, after/kib, vals["head"], head/os.Getpagesize(), vals["mid"], middle/os.Getpagesize())
			require.Less(t, after, before+middle/2, "scrubbing faulted in the untouched middle")
			require.Zero(t, vals["mid"], "the scrub changed the residency of the middle")
			require.Equal(t, uint64(head/os.Getpagesize()), vals["head"], "touched pages stay resident for reuse")
		})
	}
}

func TestPoolMaxIdle(t *testing.T) {
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{MaxIdle: 2, Background: !mode.inline})
			var mems []*linearmem.Memory
			var bases []uintptr
			for range 4 {
				m := allocate(t, p, 16*wasmPage)
				buf := m.Reallocate(2 * wasmPage)
				buf[wasmPage] = 9
				mems = append(mems, m)
				bases = append(bases, base(buf))
			}
			for _, m := range mems {
				m.Free()
				require.LessOrEqual(t, p.Stats().Idle, 2)
			}
			waitIdle(t, p, 2)
			require.Eventually(t, func() bool { return p.Stats().Unmapped == 2 }, 5*time.Second, time.Millisecond)

			var got []uintptr
			for range 3 {
				m := allocate(t, p, 16*wasmPage)
				defer m.Free()
				buf := m.Reallocate(2 * wasmPage)
				require.Zero(t, buf[wasmPage])
				got = append(got, base(buf))
			}
			require.NotEqual(t, got[0], got[1])
			require.Contains(t, bases, got[0])
			require.Contains(t, bases, got[1])
			if mode.inline {
				// The two most recently freed are kept, the latest first. (The
				// pool's goroutine may take one out of the order while it
				// scrubs it.)
				require.Equal(t, bases[3], got[0])
				require.Equal(t, bases[2], got[1])
			}
			st := p.Stats()
			require.Equal(t, uint64(2), st.Reused)
			require.Equal(t, uint64(5), st.Fresh)
		})
	}

	t.Run("negative keeps none", func(t *testing.T) {
		p := newPool(t, linearmem.PoolOptions{MaxIdle: -1})
		m := allocate(t, p, 16*wasmPage)
		m.Reallocate(wasmPage)[0] = 1
		m.Free()
		st := p.Stats()
		require.Zero(t, st.Idle)
		require.Equal(t, uint64(1), st.Unmapped)
		allocate(t, p, 16*wasmPage).Free()
		require.Equal(t, uint64(2), p.Stats().Fresh)
	})
}

func TestPoolMaxKeepBytes(t *testing.T) {
	const keep = mib
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{MaxKeepBytes: keep, Background: !mode.inline})
			mem := allocate(t, p, 256*wasmPage)
			buf := mem.Reallocate(4 * mib)
			for i := 0; i < len(buf); i += 512 {
				buf[i] = 0x77
			}
			buf[len(buf)-1] = 0x78
			mem.Free()
			waitIdle(t, p, 1)
			require.Equal(t, uint64(1), p.Stats().Trimmed)

			again := allocate(t, p, 256*wasmPage)
			defer again.Free()
			require.Equal(t, uint64(keep), again.Committed(), "trimmed to MaxKeepBytes")
			buf = again.Reallocate(keep)
			require.Equal(t, keep/os.Getpagesize(), countTrue(resident(t, buf)), "the kept part stays resident")
			buf = again.Reallocate(4 * mib)
			require.Zero(t, countTrue(resident(t, buf[keep:])), "the part above MaxKeepBytes was released")
			require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
		})
	}

	t.Run("small memories are not trimmed", func(t *testing.T) {
		p := newPool(t, linearmem.PoolOptions{MaxKeepBytes: keep})
		mem := allocate(t, p, 256*wasmPage)
		mem.Reallocate(keep)[keep-1] = 1
		mem.Free()
		again := allocate(t, p, 256*wasmPage)
		defer again.Free()
		require.Equal(t, uint64(keep), again.Committed())
		require.Zero(t, p.Stats().Trimmed)
		require.Zero(t, again.Reallocate(keep)[keep-1])
	})
}

func TestPoolMatchesMax(t *testing.T) {
	p := newPool(t, linearmem.PoolOptions{})
	mem := allocate(t, p, 16*wasmPage)
	b16 := base(mem.Reallocate(wasmPage))
	mem.Free()

	other := allocate(t, p, 32*wasmPage)
	defer other.Free()
	require.NotEqual(t, b16, base(other.Reallocate(wasmPage)))
	require.Equal(t, 1, p.Stats().Idle, "the 16-page memory is still kept")
	require.Nil(t, other.Reallocate(32*wasmPage+1))

	same := allocate(t, p, 16*wasmPage)
	defer same.Free()
	require.Equal(t, b16, base(same.Reallocate(wasmPage)))
	require.Nil(t, same.Reallocate(16*wasmPage+1), "max still applies")
	st := p.Stats()
	require.Equal(t, uint64(1), st.Reused)
	require.Equal(t, uint64(2), st.Fresh)

	// A max too large to reserve falls back to the heap, as with Allocator.
	heap, ok := p.Allocate(0, 1<<63).(*linearmem.Memory)
	require.True(t, ok)
	require.False(t, heap.Mapped())
	heap.Reallocate(wasmPage)[0] = 1
	heap.Free()
	require.Zero(t, p.Stats().Idle, "a heap-backed memory is not kept")
}

func TestPoolClose(t *testing.T) {
	const size = 1 << 30
	vmSize := func() uint64 {
		b, err := os.ReadFile("/proc/self/statm")
		require.NoError(t, err)
		n, err := strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
		require.NoError(t, err)
		return n * uint64(os.Getpagesize())
	}
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := linearmem.NewPool(linearmem.PoolOptions{Background: !mode.inline})
			before := vmSize()
			a, b := allocate(t, p, size), allocate(t, p, size)
			a.Reallocate(wasmPage)[0] = 1
			b.Reallocate(wasmPage)[0] = 1
			a.Free()
			require.GreaterOrEqual(t, vmSize(), before+2*size, "a freed memory stays mapped in the pool")

			p.Close()
			p.Close()
			st := p.Stats()
			require.Zero(t, st.Idle)
			require.Zero(t, st.Pending)
			require.Equal(t, uint64(1), st.Unmapped)
			require.Less(t, vmSize(), before+2*size, "Close unmapped the idle memory")

			b.Free() // unmapped directly
			require.Zero(t, p.Stats().Idle)
			require.Equal(t, uint64(2), p.Stats().Unmapped)
			require.Less(t, vmSize(), before+size)

			// Still allocates, without reuse.
			c := allocate(t, p, 16*wasmPage)
			c.Reallocate(wasmPage)[5] = 5
			c.Free()
			require.Equal(t, uint64(3), p.Stats().Fresh)
			require.Equal(t, uint64(3), p.Stats().Unmapped)
		})
	}
}

// TestPoolWazeroIsolation instantiates a module many times in sequence with
// a Pool: every instance writes its own marks all over its memory, also after
// growing it, and checks that it sees none of its predecessor's.
func TestPoolWazeroIsolation(t *testing.T) {
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			ctx := context.Background()
			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithMemoryLimitPages(64))
			defer rt.Close(ctx)
			compiled, err := rt.CompileModule(ctx, testModule())
			require.NoError(t, err)
			p := newPool(t, linearmem.PoolOptions{MaxIdle: 2, Background: !mode.inline})
			ctx = experimental.WithMemoryAllocator(ctx, p)

			const runs = 40
			bases := map[uintptr]int{}
			for n := range runs {
				mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(""))
				require.NoError(t, err)
				call := func(name string, args ...uint64) int32 {
					t.Helper()
					res, err := mod.ExportedFunction(name).Call(ctx, args...)
					require.NoError(t, err)
					if len(res) == 0 {
						return 0
					}
					return int32(res[0])
				}
				b, ok := mod.Memory().Read(0, 1)
				require.True(t, ok)
				bases[base(b)]++

				// Instance n grows to 2+n%7 pages: sometimes less than its
				// predecessor, sometimes more.
				pages := uint64(2 + n%7)
				require.Equal(t, int32(1), call("grow", pages-1))
				for off := uint64(0); off < pages*wasmPage; off += 4 * kib {
					require.Zero(t, call("load", off), "run %d sees a stale word at %d", n, off)
					require.Zero(t, call("load", off+4*kib-4), "run %d sees a stale word at %d", n, off+4*kib-4)
				}
				for off := uint64(0); off < pages*wasmPage; off += 4 * kib {
					call("store", off, uint64(n+1))
					call("store", off+4*kib-4, uint64(n+1))
				}
				require.Equal(t, int32(n+1), call("load", pages*wasmPage-4))
				require.NoError(t, mod.Close(ctx))
			}
			st := p.Stats()
			t.Logf("%d runs: %d distinct memories, stats %+v", runs, len(bases), st)
			require.Equal(t, uint64(runs), st.Reused+st.Fresh)
			require.GreaterOrEqual(t, st.Reused, uint64(runs-3))
			require.LessOrEqual(t, len(bases), 3)
		})
	}
}

func TestPoolConcurrent(t *testing.T) {
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := linearmem.NewPool(linearmem.PoolOptions{MaxIdle: 3, MaxKeepBytes: 4 * wasmPage, Background: !mode.inline})
			const (
				workers = 8
				iters   = 150
			)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					for i := range iters {
						max := uint64(16 * wasmPage)
						if rng.IntN(8) == 0 {
							max = 32 * wasmPage
						}
						mem, ok := p.Allocate(0, max).(*linearmem.Memory)
						if !ok {
							t.Error("not a *Memory")
							return
						}
						buf := mem.Reallocate(uint64(1+rng.IntN(8)) * wasmPage)
						if off := firstMismatch(buf, 64, func(int) byte { return 0 }); off >= 0 {
							t.Errorf("worker %d iteration %d: stale byte at %d", w, i, off)
							return
						}
						mark := byte(w*iters + i | 1)
						for off := 0; off < len(buf); off += 64 {
							buf[off] = mark
						}
						_ = p.Stats()
						mem.Free()
					}
				})
			}
			wg.Wait()
			st := p.Stats()
			t.Logf("stats %+v", st)
			require.LessOrEqual(t, st.Idle, 3)
			require.Equal(t, uint64(workers*iters), st.Reused+st.Fresh)
			require.Positive(t, st.Reused)
			p.Close()
			require.Zero(t, p.Stats().Idle)
			require.Equal(t, st.Fresh, p.Stats().Unmapped, "every reservation is unmapped after Close")
		})
	}

	for _, mode := range poolModes {
		t.Run("close while freeing/"+mode.name, func(t *testing.T) {
			testCloseWhileFreeing(t, linearmem.PoolOptions{MaxIdle: 4, Background: !mode.inline})
		})
	}
}

func testCloseWhileFreeing(t *testing.T, opts linearmem.PoolOptions) {
	p := linearmem.NewPool(opts)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				mem := p.Allocate(0, 16*wasmPage)
				mem.Reallocate(2 * wasmPage)[wasmPage] = 1
				mem.Free()
			}
		})
	}
	time.Sleep(time.Millisecond)
	p.Close()
	wg.Wait()
	st := p.Stats()
	require.Zero(t, st.Idle)
	require.Equal(t, st.Fresh, st.Unmapped)
}

// BenchmarkReuse is the allocator's share of instantiating coderun's
// snapshot: allocate a 44-page memory, copy a 680 KiB image into it (as
// wazero's applyData does), write a few pages of guest stack, free it.
// "fresh" reserves and unmaps a new mapping every time (NewAllocator), so
// every touched page is a first-touch page fault; the pools reuse scrubbed
// memories. "pool" scrubs in Free, on the measured goroutine;
// "pool-background" on the pool's goroutine when it gets a processor in
// time, else in Allocate (see PoolStats.ScrubbedByAllocate).
func BenchmarkReuse(b *testing.B) {
	const (
		size  = 44 * wasmPage
		image = 680 * kib
		stack = 32 * kib
		max   = 1024 * wasmPage
	)
	img := make([]byte, image)
	for i := range img {
		img[i] = byte(i*7) | 1
	}
	allocators := []struct {
		name  string
		alloc func(b *testing.B) experimental.MemoryAllocator
	}{
		{name: "fresh", alloc: func(*testing.B) experimental.MemoryAllocator { return linearmem.NewAllocator() }},
		{name: "pool", alloc: func(b *testing.B) experimental.MemoryAllocator {
			return newPool(b, linearmem.PoolOptions{})
		}},
		{name: "pool-background", alloc: func(b *testing.B) experimental.MemoryAllocator {
			return newPool(b, linearmem.PoolOptions{Background: true})
		}},
	}
	for _, a := range allocators {
		b.Run(a.name, func(b *testing.B) {
			alloc := a.alloc(b)
			b.SetBytes(image)
			for b.Loop() {
				mem := alloc.Allocate(size, max)
				buf := mem.Reallocate(size)
				copy(buf, img)
				for i := 2*mib - stack; i < 2*mib; i += 16 { // the guest stack grows down
					buf[i] = 0x5a
				}
				mem.Free()
			}
		})
	}
}

// In inline mode a memory that grew past MaxKeepBytes is not scrubbed by
// Free (trimming a big heap takes milliseconds) but by the pool's goroutine;
// it is still zero when reused.
func TestPoolLargeMemoriesScrubInBackground(t *testing.T) {
	const keep = mib
	p := newPool(t, linearmem.PoolOptions{MaxKeepBytes: keep})
	mem := allocate(t, p, 256*wasmPage)
	buf := mem.Reallocate(8 * mib)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 0x55
	}
	mem.Free()
	waitIdle(t, p, 1)
	require.Equal(t, uint64(1), p.Stats().Trimmed)
	again := allocate(t, p, 256*wasmPage)
	defer again.Free()
	require.Equal(t, uint64(1), p.Stats().Reused)
	buf = again.Reallocate(8 * mib)
	require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
}

// With PopulateGrowth, a grow makes the new pages resident (and zero) at
// once; the sizing at instantiation (a grow from 0) does not, nor, with
// PopulateAfter, the first PopulateAfter bytes of growth past that sizing,
// which fault in only as they are touched.
func TestPoolPopulateGrowth(t *testing.T) {
	pages := func(n int) int { return n / os.Getpagesize() }
	tests := []struct {
		name     string
		populate bool
		after    uint64
		// want is how many pages of each MiB past the first are resident
		// after growing to 2 MiB and then to 3 MiB.
		want [2]int
	}{
		{"off", false, 0, [2]int{0, 0}},
		{"on", true, 0, [2]int{pages(mib), pages(mib)}},
		{"after half the first grow", true, mib / 2, [2]int{pages(mib / 2), pages(mib)}},
		{"after the first grow", true, mib, [2]int{0, pages(mib)}},
		{"after both grows", true, 2 * mib, [2]int{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{PopulateGrowth: tt.populate, PopulateAfter: tt.after})
			mem := allocate(t, p, 256*wasmPage)
			defer mem.Free()
			buf := mem.Reallocate(mib)
			require.Zero(t, countTrue(resident(t, buf)), "the first sizing is not populated")
			buf = mem.Reallocate(2 * mib)
			got := countTrue(resident(t, buf[mib:]))
			if tt.want[0] > 0 && got == 0 {
				t.Skip("MADV_POPULATE_WRITE is not supported by this kernel")
			}
			require.Equal(t, tt.want[0], got, "resident pages of the first grow")
			if tt.want[0] < pages(mib) {
				// What is left out is the start of the growth, never its end.
				require.Zero(t, countTrue(resident(t, buf[mib:2*mib-tt.want[0]*os.Getpagesize()])))
			}
			buf = mem.Reallocate(3 * mib)
			require.Equal(t, tt.want[1], countTrue(resident(t, buf[2*mib:])), "resident pages of the second grow")
			require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
		})
	}
}

// Memories scrubbed by the Allocate that reuses them: every memory of a pool
// with ScrubOnAllocate, and one freed after Memory.ScrubLater in a pool that
// otherwise scrubs on Free. Free only keeps such a memory; the next Allocate
// takes it, before a clean memory in the pool (so that the bytes of its last
// user do not stay there), and scrubs it. A memory above MaxKeepBytes is
// still trimmed and scrubbed by the pool's goroutine, never by Allocate.
func TestPoolScrubbedByAllocate(t *testing.T) {
	const keep = mib
	tests := []struct {
		name    string
		lazy    bool // ScrubOnAllocate; else the memory is freed after ScrubLater
		clean   bool // a clean memory is in the pool too
		size    int
		byAlloc uint64 // ScrubbedByAllocate after the reuse (0: scrubbed by the pool's goroutine)
	}{
		{"ScrubOnAllocate", true, false, keep / 2, 1},
		{"ScrubOnAllocate, above MaxKeepBytes", true, false, 4 * mib, 0},
		{"ScrubLater", false, false, keep / 2, 1},
		{"ScrubLater, before a clean one", false, true, keep / 2, 1},
		{"ScrubLater, above MaxKeepBytes", false, false, 4 * mib, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{ScrubOnAllocate: tt.lazy, MaxKeepBytes: keep})
			mem := allocate(t, p, 256*wasmPage)
			if tt.clean {
				other := allocate(t, p, 256*wasmPage)
				other.Reallocate(wasmPage)
				other.Free()
			}
			buf := mem.Reallocate(uint64(tt.size))
			for i := range buf {
				buf[i] = 0x5a
			}
			if !tt.lazy {
				mem.ScrubLater()
			}
			mem.Free()
			if tt.byAlloc == 1 {
				st := p.Stats()
				require.Equal(t, 1, st.Pending, "Free scrubbed: %+v", st)
			} else {
				waitIdle(t, p, 1)
			}
			again := allocate(t, p, 256*wasmPage)
			defer again.Free()
			st := p.Stats()
			require.Equal(t, tt.byAlloc, st.ScrubbedByAllocate, "%+v", st)
			require.Zero(t, st.Pending, "%+v", st)
			buf = again.Reallocate(uint64(tt.size))
			require.Equal(t, -1, firstMismatch(buf, 1, func(int) byte { return 0 }))
		})
	}
}

// TestPoolOverwritten checks PoolOptions.Overwritten: after a memory whose
// every byte was written is freed and reused, the pages wholly inside a span
// still hold what the previous user wrote (its next user overwrites them, as
// wazero does with data segments), and every other byte, including the
// parts of pages that a span covers only in part, reads zero; pages that
// were never resident stay out of the way.
func TestPoolOverwritten(t *testing.T) {
	ps := os.Getpagesize()
	spans := []linearmem.Span{
		{Off: 0, Len: uint64(2 * ps)},                      // pages 0 and 1
		{Off: uint64(3*ps + 100), Len: uint64(3*ps - 100)}, // page 3 in part, 4 and 5 whole
		{Off: uint64(5 * ps), Len: uint64(ps)},             // page 5 again (merged)
		{Off: uint64(8*ps + 1), Len: uint64(ps)},           // no whole page
		{Off: uint64(10 * ps), Len: 0},                     // empty
		{Off: uint64(12 * ps), Len: uint64(2 * ps)},        // pages 12, 13: never touched
	}
	kept := map[int]bool{0: true, 1: true, 4: true, 5: true}
	const pages = 16
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{Background: !mode.inline, Overwritten: spans})
			mem := allocate(t, p, 64*wasmPage)
			buf := mem.Reallocate(wasmPage)
			require.GreaterOrEqual(t, len(buf), pages*ps)
			for i := range pages * ps {
				if i/ps != 12 && i/ps != 13 {
					buf[i] = byte(i%251 + 1)
				}
			}
			require.Zero(t, countTrue(resident(t, buf[12*ps:14*ps])), "pages 12 and 13 never touched")
			mem.Free()
			waitIdle(t, p, 1)

			again := allocate(t, p, 64*wasmPage)
			defer again.Free()
			buf = again.Reallocate(wasmPage)
			for pg := range pages {
				page := buf[pg*ps : (pg+1)*ps]
				if kept[pg] {
					require.Equal(t, -1, firstMismatch(page, 1, func(i int) byte { return byte((pg*ps+i)%251 + 1) }),
						"page %d lies wholly inside a span and is left as it was", pg)
				} else {
					require.Equal(t, -1, firstMismatch(page, 1, func(int) byte { return 0 }), "page %d is scrubbed", pg)
				}
			}
		})
	}
}

// TestPoolScrubsWhatItsUserReached checks that scrubbing a memory goes over
// the pages its last user could reach, not every page the memory keeps
// committed: a memory that once grew to 4 MiB keeps those pages (zeroed),
// and each later user that stays at one wasm page costs a scrub of one wasm
// page, not of 4 MiB. Every user still finds every byte zero.
func TestPoolScrubsWhatItsUserReached(t *testing.T) {
	const (
		max   = 256 * wasmPage
		large = 64 * wasmPage // 4 MiB
		small = wasmPage + 1  // reaches into a second OS page of the next wasm page
	)
	ps := uint64(os.Getpagesize())
	for _, mode := range []struct {
		name string
		opts linearmem.PoolOptions
	}{
		{"in-free", linearmem.PoolOptions{}},
		{"background", linearmem.PoolOptions{Background: true}},
		{"on-allocate", linearmem.PoolOptions{ScrubOnAllocate: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			p := newPool(t, mode.opts)
			zero := func(int) byte { return 0 }
			settle := func() {
				t.Helper()
				if !mode.opts.ScrubOnAllocate { // which leaves it pending
					waitIdle(t, p, 1)
				}
			}
			use := func(size uint64, fill byte) uint64 {
				t.Helper()
				mem := allocate(t, p, max)
				before := p.Stats().ScrubbedBytes
				// Everything the memory has committed reads zero, up to the
				// largest size any user reached.
				buf := mem.Reallocate(large)
				require.Equal(t, -1, firstMismatch(buf, 1, zero))
				buf = mem.Reallocate(size)
				for i := range buf {
					buf[i] = fill
				}
				mem.Free()
				settle()
				if mode.opts.ScrubOnAllocate {
					// Scrubbed by the next Allocate: take it and give it back
					// untouched, which costs no scrub.
					again := allocate(t, p, max)
					again.Free()
				}
				return p.Stats().ScrubbedBytes - before
			}
			// Each use first grows to large, so that every scrub covers it...
			require.Equal(t, uint64(large), use(large, 0xaa))
			require.Equal(t, uint64(large), use(small, 0xbb))
			// ...now one that stays small: only its reach is scrubbed.
			mem := allocate(t, p, max)
			buf := mem.Reallocate(small)
			require.Equal(t, -1, firstMismatch(buf, 1, zero))
			for i := range buf {
				buf[i] = 0xcc
			}
			before := p.Stats().ScrubbedBytes
			mem.Free()
			settle()
			next := allocate(t, p, max)
			defer next.Free()
			require.Equal(t, (small+ps-1)/ps*ps, p.Stats().ScrubbedBytes-before, "bytes scrubbed after a user that reached %d bytes", small)
			require.Equal(t, uint64(large), next.Committed(), "the pages of earlier users stay committed")
			require.Equal(t, -1, firstMismatch(next.Reallocate(large), 1, zero))
		})
	}
}

// rerunPoolTests runs the pool tests again in a child process with the
// environment variable env set to 1, and returns its output, failing t if
// the child fails.
func rerunPoolTests(t *testing.T, env string) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run", "^Test(Pool|HeapMemory|Discard)", "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}
