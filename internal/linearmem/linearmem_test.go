//go:build linux

package linearmem_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/coderun/coderun/internal/linearmem"
)

const (
	wasmPage = 64 << 10
	kib      = 1 << 10
	mib      = 1 << 20
)

// newMemory allocates through the public interface and returns the concrete
// *Memory, freeing it when the test ends.
func newMemory(t testing.TB, max uint64) *linearmem.Memory {
	t.Helper()
	alloc := linearmem.NewAllocator()
	require.NotNil(t, alloc)
	mem, ok := alloc.Allocate(0, max).(*linearmem.Memory)
	require.True(t, ok)
	t.Cleanup(mem.Free)
	return mem
}

func base(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// firstMismatch returns the first offset, among multiples of stride, where
// b differs from want(offset), or -1.
func firstMismatch(b []byte, stride int, want func(off int) byte) int {
	for off := 0; off < len(b); off += stride {
		if b[off] != want(off) {
			return off
		}
	}
	return -1
}

func TestReallocateGrowsInPlace(t *testing.T) {
	tests := []struct {
		name   string
		max    uint64
		steps  []uint64 // successive sizes, each >= the previous
		stride uint64   // a byte is marked, and checked, every stride bytes
	}{
		{name: "one wasm page", max: wasmPage, steps: []uint64{0, wasmPage}, stride: 4 * kib},
		{name: "page by page", max: 16 * wasmPage, steps: []uint64{wasmPage, 2 * wasmPage, 3 * wasmPage, 16 * wasmPage}, stride: 4 * kib},
		{name: "unaligned sizes", max: 3*wasmPage + 123, steps: []uint64{1, 4097, wasmPage + 7, 3*wasmPage + 123}, stride: 4 * kib},
		{name: "256 MiB max", max: 256 * mib, steps: []uint64{wasmPage, 16 * mib, 256 * mib}, stride: wasmPage},
		{name: "4 GiB max (no declared max, no limit)", max: 4 << 30, steps: []uint64{wasmPage, 64 * mib}, stride: wasmPage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := newMemory(t, tt.max)
			require.True(t, mem.Mapped())

			var (
				first uintptr
				prev  uint64
			)
			for i, size := range tt.steps {
				buf := mem.Reallocate(size)
				require.NotNil(t, buf, "step %d", i)
				require.Len(t, buf, int(size))
				require.Equal(t, int(size), cap(buf))
				require.GreaterOrEqual(t, mem.Committed(), size)
				require.Zero(t, mem.Committed()%uint64(os.Getpagesize()))
				if size > 0 {
					if first == 0 {
						first = base(buf)
					}
					require.Equal(t, first, base(buf), "step %d: memory moved", i)
				}
				// Earlier marks survive, new bytes are zero.
				mark := func(off int) byte { return byte(uint64(off)/tt.stride + 1) }
				require.Equal(t, -1, firstMismatch(buf[:prev], int(tt.stride), mark))
				require.Equal(t, -1, firstMismatch(buf[prev:], int(tt.stride)/8, func(int) byte { return 0 }))
				if size > 0 {
					require.Zero(t, buf[size-1])
					buf[size-1] = 0xff // the last byte is writable
					buf[size-1] = 0
				}
				for off := (prev + tt.stride - 1) / tt.stride * tt.stride; off < size; off += tt.stride {
					buf[off] = mark(int(off))
				}
				prev = size
			}

			require.Nil(t, mem.Reallocate(tt.max+1), "beyond max")
			require.Equal(t, first, base(mem.Reallocate(prev)), "still usable after a refused grow")
		})
	}
}

func TestReallocateShrinkThenRegrowZeroes(t *testing.T) {
	mem := newMemory(t, 4*wasmPage)
	buf := mem.Reallocate(2 * wasmPage)
	buf[wasmPage+5] = 7
	require.Len(t, mem.Reallocate(wasmPage), wasmPage)
	buf = mem.Reallocate(2 * wasmPage)
	require.Zero(t, buf[wasmPage+5])
}

// StoreUint32 stores into the mapping from any goroutine, also while the
// memory grows (run with -race), and stores nothing into a heap-backed or
// freed memory, at an unaligned offset or past the committed bytes.
func TestStoreUint32(t *testing.T) {
	mem := newMemory(t, 64*wasmPage)
	buf := mem.Reallocate(wasmPage)
	require.True(t, mem.StoreUint32(8, 0xdeadbeef))
	require.Equal(t, []byte{0xef, 0xbe, 0xad, 0xde}, buf[8:12])
	require.False(t, mem.StoreUint32(6, 1), "unaligned")
	require.False(t, mem.StoreUint32(mem.Committed(), 1), "past the committed bytes")

	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			require.True(t, mem.StoreUint32(16, 7))
		}
	}()
	for n := uint64(2); n <= 32; n++ {
		require.NotNil(t, mem.Reallocate(n*wasmPage))
	}
	<-done
	require.Equal(t, byte(7), mem.Reallocate(32 * wasmPage)[16])

	mem.Free()
	require.False(t, mem.StoreUint32(8, 1), "freed")
	heap := linearmem.NewAllocator().Allocate(0, 1<<63).(*linearmem.Memory)
	require.False(t, heap.Mapped())
	t.Cleanup(heap.Free)
	heap.Reallocate(wasmPage)
	require.False(t, heap.StoreUint32(8, 1), "heap-backed")
}

// The grow hook is asked before every growth, and a refusal leaves the
// memory as it was; shrinking and the same length do not ask.
func TestGrowHook(t *testing.T) {
	for _, heap := range []bool{false, true} {
		var mem *linearmem.Memory
		if heap {
			mem = linearmem.NewAllocator().Allocate(0, 1<<63).(*linearmem.Memory)
			require.False(t, mem.Mapped())
			t.Cleanup(mem.Free)
		} else {
			mem = newMemory(t, 8*wasmPage)
		}
		type grow struct{ from, to uint64 }
		var asked []grow
		allow := uint64(3 * wasmPage)
		mem.SetGrowHook(func(from, to uint64) bool {
			asked = append(asked, grow{from, to})
			return to <= allow
		})
		require.Len(t, mem.Reallocate(2*wasmPage), 2*wasmPage)
		require.Nil(t, mem.Reallocate(4*wasmPage), "refused")
		buf := mem.Reallocate(2 * wasmPage)
		require.Len(t, buf, 2*wasmPage, "the refused grow left the length as it was")
		require.Len(t, mem.Reallocate(wasmPage), wasmPage)
		require.Len(t, mem.Reallocate(3*wasmPage), 3*wasmPage)
		require.Equal(t, []grow{{0, 2 * wasmPage}, {2 * wasmPage, 4 * wasmPage}, {wasmPage, 3 * wasmPage}}, asked)
		mem.SetGrowHook(nil)
		require.Len(t, mem.Reallocate(5*wasmPage), 5*wasmPage)
	}
}

func TestFree(t *testing.T) {
	tests := []struct {
		name    string
		callers int
	}{
		{name: "twice", callers: 1},
		{name: "concurrently", callers: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := newMemory(t, 16*mib)
			mem.Reallocate(mib)[0] = 1

			var wg sync.WaitGroup
			for range tt.callers {
				wg.Go(func() {
					mem.Free()
					mem.Free()
				})
			}
			wg.Wait()

			require.Nil(t, mem.Reallocate(wasmPage))
			require.ErrorIs(t, mem.Discard(0, 0), linearmem.ErrFreed)
			require.True(t, mem.Mapped())
		})
	}
}

func TestDiscard(t *testing.T) {
	page := uint64(os.Getpagesize())
	size := 4 * wasmPage
	tests := []struct {
		name    string
		off, n  uint64
		wantErr error
	}{
		{name: "whole memory", off: 0, n: uint64(size)},
		{name: "aligned pages", off: page, n: 3 * page},
		{name: "unaligned both ends", off: page - 10, n: 2*page + 20},
		{name: "within one page", off: 100, n: 50},
		{name: "empty", off: 5, n: 0},
		{name: "up to the end", off: uint64(size) - page - 1, n: page + 1},
		{name: "past the end", off: uint64(size) - 1, n: 2, wantErr: linearmem.ErrOutOfRange},
		{name: "overflow", off: 1, n: ^uint64(0), wantErr: linearmem.ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := newMemory(t, 8*wasmPage)
			buf := mem.Reallocate(uint64(size))
			for i := range buf {
				buf[i] = byte(i%251 + 1)
			}

			err := mem.Discard(tt.off, tt.n)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)

			require.Equal(t, -1, firstMismatch(buf, 1, func(i int) byte {
				if uint64(i) >= tt.off && uint64(i) < tt.off+tt.n {
					return 0
				}
				return byte(i%251 + 1)
			}))
			// Still committed and writable.
			buf[tt.off] = 42
			require.Equal(t, byte(42), buf[tt.off])
		})
	}
}

func TestAllocateFallsBackToHeap(t *testing.T) {
	alloc := linearmem.NewAllocator()
	require.NotNil(t, alloc)

	_, err := alloc.(*linearmem.Allocator).Reserve(1 << 63)
	require.ErrorIs(t, err, linearmem.ErrTooLarge)

	mem, ok := alloc.Allocate(0, 1<<63).(*linearmem.Memory)
	require.True(t, ok)
	require.False(t, mem.Mapped())
	buf := mem.Reallocate(wasmPage)
	buf[10] = 3
	buf = mem.Reallocate(3 * wasmPage)
	require.Equal(t, byte(3), buf[10])
	require.NoError(t, mem.Discard(0, 3*wasmPage))
	require.Zero(t, buf[10])
	mem.Free()
	mem.Free()
	require.Nil(t, mem.Reallocate(wasmPage))
}

// testModule is a hand-assembled wasm module:
//
//	(memory (export "memory") 1 65536)
//	(func (export "grow") (param i32) (result i32) local.get 0 memory.grow)
//	(func (export "store") (param i32 i32) local.get 0 local.get 1 i32.store)
//	(func (export "load") (param i32) (result i32) local.get 0 i32.load)
//	(func (export "spin") (loop (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1))) (br 0)))
func testModule() []byte {
	section := func(id byte, content ...byte) []byte {
		return append([]byte{id, byte(len(content))}, content...) // all sections < 128 bytes
	}
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	const (
		i32      = 0x7f
		funcType = 0x60
	)
	var m []byte
	m = append(m, 0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00)
	m = append(m, section(1, // types
		3,
		funcType, 1, i32, 1, i32, // 0: (i32) -> i32
		funcType, 2, i32, i32, 0, // 1: (i32, i32) -> ()
		funcType, 0, 0, // 2: () -> ()
	)...)
	m = append(m, section(3, 4, 0, 1, 0, 2)...)                // functions: grow, store, load, spin
	m = append(m, section(5, 1, 0x01, 1, 0x80, 0x80, 0x04)...) // memory: min 1, max 65536 (LEB128)
	var exports []byte
	exports = append(exports, 5)
	exports = append(append(exports, name("grow")...), 0x00, 0)
	exports = append(append(exports, name("store")...), 0x00, 1)
	exports = append(append(exports, name("load")...), 0x00, 2)
	exports = append(append(exports, name("spin")...), 0x00, 3)
	exports = append(append(exports, name("memory")...), 0x02, 0)
	m = append(m, section(7, exports...)...)
	body := func(code ...byte) []byte { return append([]byte{byte(len(code) + 1), 0}, code...) } // no locals
	var code []byte
	code = append(code, 4)
	code = append(code, body(0x20, 0, 0x40, 0, 0x0b)...)             // local.get 0; memory.grow 0; end
	code = append(code, body(0x20, 0, 0x20, 1, 0x36, 2, 0, 0x0b)...) // local.get 0; local.get 1; i32.store; end
	code = append(code, body(0x20, 0, 0x28, 2, 0, 0x0b)...)          // local.get 0; i32.load; end
	code = append(code, body(
		0x03, 0x40, // loop
		0x41, 0, 0x41, 0, 0x28, 2, 0, // i32.const 0; i32.const 0; i32.load
		0x41, 1, 0x6a, 0x36, 2, 0, // i32.const 1; i32.add; i32.store
		0x0c, 0, 0x0b, 0x0b, // br 0; end; end
	)...)
	m = append(m, section(10, code...)...)
	return m
}

func TestWazeroIntegration(t *testing.T) {
	tests := []struct {
		name       string
		limitPages uint32 // 0: no WithMemoryLimitPages
		wantMax    uint64 // the max wazero passes to Allocate
		growTo     uint32 // pages to grow to (the effective maximum)
	}{
		{name: "limit 16 pages", limitPages: 16, wantMax: 16 * wasmPage, growTo: 16},
		{name: "limit 512 pages (32 MiB)", limitPages: 512, wantMax: 512 * wasmPage, growTo: 512},
		{name: "no limit: module max 65536 pages", wantMax: 4 << 30, growTo: 2048},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			mod, mem, gotMax := instantiateWithAllocator(ctx, t, tt.limitPages)
			require.NotNil(t, mem)
			require.True(t, mem.Mapped())
			require.Equal(t, tt.wantMax, gotMax)

			call := func(name string, args ...uint64) int32 {
				t.Helper()
				res, err := mod.ExportedFunction(name).Call(ctx, args...)
				require.NoError(t, err)
				if len(res) == 0 {
					return 0
				}
				return int32(res[0])
			}
			wasmMem := mod.Memory()
			require.Equal(t, uint32(1), wasmMem.Size()/wasmPage)
			before, ok := wasmMem.Read(0, 1)
			require.True(t, ok)

			call("store", 0, 0x11223344)
			call("store", wasmPage-4, 0x55667788)
			require.Equal(t, int32(1), call("grow", 1))
			call("store", 2*wasmPage-4, 0x0badf00d)
			require.Equal(t, int32(2), call("grow", uint64(tt.growTo-2)))
			require.Equal(t, tt.growTo, wasmMem.Size()/wasmPage)
			if tt.limitPages != 0 {
				require.Equal(t, int32(-1), call("grow", 1), "beyond the limit")
			}
			require.Equal(t, int32(tt.growTo), call("grow", 0))

			require.Equal(t, int32(0x11223344), call("load", 0))
			require.Equal(t, int32(0x55667788), call("load", wasmPage-4))
			require.Equal(t, int32(0x0badf00d), call("load", 2*wasmPage-4))
			last := uint64(tt.growTo)*wasmPage - 4
			call("store", last, 77)
			require.Equal(t, int32(77), call("load", last))

			after, ok := wasmMem.Read(0, 1)
			require.True(t, ok)
			require.Equal(t, base(before), base(after), "memory moved")

			// Discard through the captured *Memory is seen by the guest.
			require.NoError(t, mem.Discard(0, 2*wasmPage))
			require.Zero(t, call("load", 0))
			require.Zero(t, call("load", 2*wasmPage-4))
			require.Equal(t, int32(77), call("load", last))

			require.NoError(t, mod.Close(ctx))
			require.Nil(t, mem.Reallocate(wasmPage), "wazero frees the memory on Close")
		})
	}
}

// instantiateWithAllocator instantiates testModule on a runtime limited to
// limitPages (0: no limit) with linearmem's allocator, and returns the
// module, the *linearmem.Memory it got (nil if another kind) and the
// maximum wazero asked for.
func instantiateWithAllocator(ctx context.Context, t *testing.T, limitPages uint32) (api.Module, *linearmem.Memory, uint64) {
	t.Helper()
	cfg := wazero.NewRuntimeConfig()
	if limitPages != 0 {
		cfg = cfg.WithMemoryLimitPages(limitPages)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	t.Cleanup(func() { rt.Close(ctx) })
	alloc := linearmem.NewAllocator()
	var (
		mem    *linearmem.Memory
		gotMax uint64
	)
	ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
		func(cap, max uint64) experimental.LinearMemory {
			lm := alloc.Allocate(cap, max)
			mem, _ = lm.(*linearmem.Memory)
			gotMax = max
			return lm
		}))
	mod, err := rt.InstantiateWithConfig(ctx, testModule(), wazero.NewModuleConfig())
	require.NoError(t, err)
	return mod, mem, gotMax
}

// TestWazeroCancelWhileRunning checks the supported way to stop a running
// module: with WithCloseOnContextDone, wazero frees (unmaps) the memory only
// after the guest has left wasm code, so cancelling a guest that is writing
// to memory in a loop does not fault.
func TestWazeroCancelWhileRunning(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithMemoryLimitPages(256).WithCloseOnContextDone(true))
	defer rt.Close(ctx)

	alloc := linearmem.NewAllocator()
	var mem *linearmem.Memory
	ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
		func(cap, max uint64) experimental.LinearMemory {
			lm := alloc.Allocate(cap, max)
			mem, _ = lm.(*linearmem.Memory)
			return lm
		}))
	mod, err := rt.InstantiateWithConfig(ctx, testModule(), wazero.NewModuleConfig())
	require.NoError(t, err)
	require.NotNil(t, mem)

	runCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = mod.ExportedFunction("spin").Call(runCtx)
	var exitErr *sys.ExitError
	require.ErrorAs(t, err, &exitErr)
	require.Equal(t, sys.ExitCodeDeadlineExceeded, exitErr.ExitCode())
	require.Nil(t, mem.Reallocate(wasmPage), "the memory was freed")
	require.ErrorIs(t, mem.Discard(0, 0), linearmem.ErrFreed)
}

const childEnv = "LINEARMEM_TEST_CHILD"

// runChild re-executes the test binary to run only test in a fresh process
// with childEnv=mode, and returns the values it printed as "key=value" lines.
func runChild(t *testing.T, test, mode string) map[string]uint64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child output:\n%s", out)
	vals := map[string]uint64{}
	for line := range strings.Lines(string(out)) {
		key, val, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || !strings.HasPrefix(key, "linearmem.") {
			continue
		}
		n, err := strconv.ParseUint(val, 10, 64)
		require.NoError(t, err)
		vals[strings.TrimPrefix(key, "linearmem.")] = n
	}
	return vals
}

// rss returns the resident set size of the process from /proc/self/statm.
func rss(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	fields := strings.Fields(string(b))
	require.GreaterOrEqual(t, len(fields), 2)
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	require.NoError(t, err)
	return pages * uint64(os.Getpagesize())
}

func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

func TestRSS(t *testing.T) {
	const (
		maxBytes = 256 * mib
		growTo   = 16 * mib
		touched  = 64 * kib
	)
	if mode := os.Getenv(childEnv); mode == "mmap" || mode == "append" {
		// Child: grow the memories, touch the first 64 KiB of each, report.
		var grow func() []byte
		instances := 50
		if mode == "mmap" {
			alloc := linearmem.NewAllocator()
			grow = func() []byte {
				mem := alloc.Allocate(wasmPage, maxBytes)
				var buf []byte
				for size := uint64(wasmPage); size <= growTo; size += wasmPage {
					buf = mem.Reallocate(size)
				}
				return buf
			}
		} else {
			// What wazero's default allocator does on each memory.grow. Every
			// page becomes resident, so a few instances are enough (and
			// page faults are slow in VMs).
			instances = 5
			grow = func() []byte {
				buf := make([]byte, wasmPage)
				for len(buf) < growTo {
					buf = append(buf, make([]byte, wasmPage)...)
				}
				return buf
			}
		}
		settle()
		before := rss(t)
		bufs := make([][]byte, instances)
		for i := range bufs {
			bufs[i] = grow()
			for off := 0; off < touched; off += 512 {
				bufs[i][off] = 1
			}
		}
		after := rss(t) // includes everything the Go runtime allocated meanwhile
		settle()
		afterGC := rss(t)
		runtime.KeepAlive(bufs)
		fmt.Printf("linearmem.instances=%d\nlinearmem.before=%d\nlinearmem.after=%d\nlinearmem.afterGC=%d\n",
			instances, before, after, afterGC)
		return
	}

	tests := []struct {
		mode       string
		maxPer     uint64 // bound on RSS growth per instance; 0: only report
		skipOnRace bool
		what       string
	}{
		{mode: "mmap", maxPer: mib, what: "linearmem: reserve 256 MiB, commit 16 MiB, touch 64 KiB"},
		{mode: "append", skipOnRace: true, what: "append-based growth as in wazero's default, for comparison"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			if tt.skipOnRace && raceEnabled {
				t.Skip("comparison only; the race detector's shadow memory distorts Go-heap RSS")
			}
			vals := runChild(t, "TestRSS", tt.mode)
			n, before, after, afterGC := vals["instances"], vals["before"], vals["after"], vals["afterGC"]
			require.NotZero(t, n)
			require.NotZero(t, before)
			delta := max(after, before) - before
			deltaGC := max(afterGC, before) - before
			t.Logf("%s: %d instances, RSS %d KiB -> %d KiB (+%d KiB, %d KiB/instance); after GC +%d KiB (%d KiB/instance)",
				tt.what, n, before/kib, after/kib, delta/kib, delta/n/kib, deltaGC/kib, deltaGC/n/kib)
			if tt.maxPer != 0 {
				require.Less(t, delta, n*tt.maxPer)
			}
		})
	}
}

func TestDiscardReleasesRSS(t *testing.T) {
	const size = 32 * mib
	if os.Getenv(childEnv) == "discard" {
		mem := newMemory(t, 64*mib)
		buf := mem.Reallocate(size)
		settle()
		start := rss(t)
		for i := 0; i < size; i += 4096 {
			buf[i] = 1
		}
		touchedRSS := rss(t)
		require.NoError(t, mem.Discard(0, size))
		discarded := rss(t)
		fmt.Printf("linearmem.start=%d\nlinearmem.touched=%d\nlinearmem.discarded=%d\n", start, touchedRSS, discarded)
		return
	}
	vals := runChild(t, "TestDiscardReleasesRSS", "discard")
	t.Logf("RSS %d KiB, after touching 32 MiB %d KiB, after Discard %d KiB",
		vals["start"]/kib, vals["touched"]/kib, vals["discarded"]/kib)
	require.Greater(t, vals["touched"], vals["start"]+size-mib)
	require.Less(t, vals["discarded"], vals["start"]+mib)
}

func TestUnreachableMemoryIsUnmapped(t *testing.T) {
	const size = 1 << 30
	vmSize := func() uint64 {
		b, err := os.ReadFile("/proc/self/statm")
		require.NoError(t, err)
		n, err := strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
		require.NoError(t, err)
		return n * uint64(os.Getpagesize())
	}
	alloc := linearmem.NewAllocator()
	before := vmSize()
	func() {
		mem := alloc.Allocate(0, size)
		mem.Reallocate(wasmPage)[0] = 1
	}()
	require.GreaterOrEqual(t, vmSize(), before+size)
	require.Eventually(t, func() bool {
		runtime.GC()
		return vmSize() < before+size
	}, 5*time.Second, 10*time.Millisecond, "the cleanup did not unmap an unreachable memory")
}

// BenchmarkGrow grows a linear memory one wasm page at a time from one page
// to 256 MiB (4095 grows per op), as memory.grow(1) would, with this
// package's allocator and with wazero's default append-based growth. In the
// "touch" variants the guest writes one byte to each new page after the grow
// (as a real heap would), which costs page faults in both. worst-grow-ns is
// the longest single grow, the median over ops: a stretch with no
// preemption point.
func BenchmarkGrow(b *testing.B) {
	const maxBytes = 256 * mib
	alloc := linearmem.NewAllocator()
	type stepFunc func(grow func())
	allocators := []struct {
		name string
		run  func(step stepFunc, touch bool)
	}{
		{name: "mmap", run: func(step stepFunc, touch bool) {
			mem := alloc.Allocate(wasmPage, maxBytes)
			defer mem.Free()
			buf := mem.Reallocate(wasmPage)
			for len(buf) < maxBytes {
				step(func() { buf = mem.Reallocate(uint64(len(buf)) + wasmPage) })
				if touch {
					buf[len(buf)-wasmPage] = 1
				}
			}
		}},
		{name: "append", run: func(step stepFunc, touch bool) {
			// wazero v1.12.0's default: m.Buffer = append(m.Buffer, make([]byte, delta)...)
			buf := make([]byte, wasmPage)
			for len(buf) < maxBytes {
				step(func() { buf = append(buf, make([]byte, wasmPage)...) })
				if touch {
					buf[len(buf)-wasmPage] = 1
				}
			}
		}},
	}
	for _, a := range allocators {
		for _, touch := range []bool{false, true} {
			name := a.name
			if touch {
				name += "/touch"
			}
			b.Run(name, func(b *testing.B) {
				var worsts []time.Duration
				for b.Loop() {
					var worst time.Duration
					a.run(func(grow func()) {
						start := time.Now()
						grow()
						worst = max(worst, time.Since(start))
					}, touch)
					worsts = append(worsts, worst)
				}
				slices.Sort(worsts)
				b.ReportMetric(float64(worsts[len(worsts)/2].Nanoseconds()), "worst-grow-ns")
			})
		}
	}
}
