//go:build linux

package linearmem_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/coderun/coderun/internal/linearmem"
)

// imageBytes is an image of n pages, every byte non-zero.
func imageBytes(n int) []byte {
	b := make([]byte, n*os.Getpagesize())
	for i := range b {
		b[i] = byte(i%251) + 1
	}
	return b
}

func newImage(t *testing.T, b []byte) *linearmem.Image {
	t.Helper()
	im, err := linearmem.NewImage(b)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, im.Close()) })
	return im
}

// imagePool is a pool keeping one memory, whose memories start with an
// image of n pages, and that image's bytes.
func imagePool(t *testing.T, n int) ([]byte, *linearmem.Pool) {
	t.Helper()
	img := imageBytes(n)
	return img, newPool(t, linearmem.PoolOptions{MaxIdle: 1, Image: newImage(t, img)})
}

// pageState is what /proc/self/pagemap says of one page of this process:
// mapped at all, and whether it is the memory's own anonymous page (a copy
// written on, or a page never backed by a file) rather than a page of a
// file (the image's, shared).
type pageState struct{ present, own bool }

func pageStates(t *testing.T, b []byte) []pageState {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	require.NoError(t, err)
	defer f.Close()
	ps := os.Getpagesize()
	n := len(b) / ps
	raw := make([]byte, 8*n)
	_, err = f.ReadAt(raw, int64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))/uintptr(ps)*8))
	require.NoError(t, err)
	out := make([]pageState, n)
	for i := range out {
		e := binary.LittleEndian.Uint64(raw[8*i:])
		out[i] = pageState{present: e&(1<<63) != 0, own: e&(1<<63) != 0 && e&(1<<61) == 0}
	}
	return out
}

// Every memory of a pool with an image starts with the image, and with
// zeros after it; what a user writes over the image is its own and gone
// for the next user, whose image pages are the file's again; pages no user
// reads never become resident; and the file cannot be changed.
func TestPoolImage(t *testing.T) {
	ps := os.Getpagesize()
	img := imageBytes(4)
	im := newImage(t, img)
	for _, mode := range poolModes {
		t.Run(mode.name, func(t *testing.T) {
			p := newPool(t, linearmem.PoolOptions{MaxIdle: 1, Image: im, Background: !mode.inline})
			m := allocate(t, p, 1<<20)
			buf := m.Reallocate(uint64(8 * ps))
			require.NotNil(t, buf)
			for i, s := range pageStates(t, buf) {
				require.False(t, s.present, "page %d resident before it is touched", i)
			}
			require.True(t, bytes.Equal(img, buf[:len(img)]), "the image")
			require.True(t, allZero(buf[len(img):]), "after the image")
			st := pageStates(t, buf[:len(img)])
			for i, s := range st {
				require.True(t, s.present, "page %d read", i)
				require.False(t, s.own, "page %d read: the file's", i)
			}
			buf[ps+7] = 0 // the image's second page, written
			buf[len(img)+3] = 9
			st = pageStates(t, buf[:len(img)])
			require.True(t, st[1].own, "a written page is the memory's own copy")
			require.False(t, st[0].own)
			m.Free()
			waitIdle(t, p, 1)

			m2 := allocate(t, p, 1<<20)
			require.Equal(t, uint64(1), p.Stats().Reused)
			buf2 := m2.Reallocate(uint64(8 * ps))
			for i, s := range pageStates(t, buf2[:len(img)]) {
				require.False(t, s.present, "image page %d resident after the scrub", i)
			}
			require.True(t, bytes.Equal(img, buf2[:len(img)]), "the image, restored")
			require.True(t, allZero(buf2[len(img):]), "after the image, scrubbed")
			m2.Free()
		})
	}
	_, err := unix.Pwrite(linearmem.ImageFD(im), []byte{0}, 0)
	require.ErrorIs(t, err, unix.EPERM, "the sealed file is written")
}

// A memory whose user only read the image keeps the file's pages mapped
// through the scrub (dropping them would cost every processor running the
// process a TLB flush), and the next user reads the image; one page
// written, and the scrub drops them all.
func TestPoolImageKeepsPagesOnlyRead(t *testing.T) {
	ps := os.Getpagesize()
	img, p := imagePool(t, 4)
	m := allocate(t, p, 1<<20)
	buf := m.Reallocate(uint64(8 * ps))
	sum := 0
	for i := 0; i < len(img); i += ps {
		sum += int(buf[i])
	}
	require.Positive(t, sum)
	m.Free()

	m = allocate(t, p, 1<<20)
	require.Equal(t, uint64(1), p.Stats().Reused)
	buf = m.Reallocate(uint64(8 * ps))
	for i, s := range pageStates(t, buf[:len(img)]) {
		require.True(t, s.present && !s.own, "page %d: the file's, still mapped", i)
	}
	require.True(t, bytes.Equal(img, buf[:len(img)]))
	buf[3*ps] = 0
	m.Free()

	m = allocate(t, p, 1<<20)
	buf = m.Reallocate(uint64(8 * ps))
	for i, s := range pageStates(t, buf[:len(img)]) {
		require.False(t, s.present, "page %d: dropped after a write", i)
	}
	require.True(t, bytes.Equal(img, buf[:len(img)]), "the written page restored")
	m.Free()
}

// A pool whose reservation fails hands out a heap-backed memory: it gets a
// copy of the image instead, as far as it grows.
func TestHeapMemoryGetsTheImage(t *testing.T) {
	ps := os.Getpagesize()
	img, p := imagePool(t, 3)
	m, ok := p.Allocate(0, 1<<62).(*linearmem.Memory) // too large to reserve
	require.True(t, ok)
	require.False(t, m.Mapped())
	buf := m.Reallocate(uint64(ps))
	require.True(t, bytes.Equal(img[:ps], buf))
	buf = m.Reallocate(uint64(5 * ps))
	require.True(t, bytes.Equal(img, buf[:len(img)]))
	require.True(t, allZero(buf[len(img):]))
	m.Free()
}

// Discard makes the image's pages read as zero, as any other: it does not
// restore the image.
func TestDiscardOverImage(t *testing.T) {
	ps := os.Getpagesize()
	img, p := imagePool(t, 2)
	m := allocate(t, p, 1<<20)
	buf := m.Reallocate(uint64(4 * ps))
	clear(buf[2*ps:])
	for i := range buf[2*ps:] {
		buf[2*ps+i] = 5
	}
	require.NoError(t, m.Discard(uint64(ps/2), uint64(3*ps)))
	require.True(t, bytes.Equal(img[:ps/2], buf[:ps/2]))
	require.True(t, allZero(buf[ps/2:ps/2+3*ps]))
	m.Free()
}

// NewImage takes whole pages only.
func TestNewImageRefusesPartPages(t *testing.T) {
	for _, n := range []int{0, 1, os.Getpagesize() + 1} {
		_, err := linearmem.NewImage(make([]byte, n))
		require.Error(t, err, "%d bytes", n)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
