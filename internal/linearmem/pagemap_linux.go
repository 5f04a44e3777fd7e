package linearmem

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Bits of a /proc/self/pagemap entry.
const (
	pmPresent = 1 << 63
	pmSwapped = 1 << 62 // or another non-present entry: a migration, say
	pmFile    = 1 << 61 // a page of a file, or shared anonymous memory
)

// pageMapChunk is how many entries one read of the page map takes: 8 KiB
// of them, 4 MiB of memory.
const pageMapChunk = 1024

// openPageMap opens this process's page map, or returns nil when it cannot
// be read or does not tell pages apart as scrubByPageMap needs (scrubbing
// then uses mincore, and compares the image's pages): a page map that
// called a written page absent would leave a run's bytes to the next.
func openPageMap() *os.File {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	if !pageMapWorks(f) {
		_ = f.Close()
		return nil
	}
	return f
}

// pageMapWorks checks pm, this process's page map, on pages of its own
// making: of two anonymous pages, the written one must read present and
// not a file's, the untouched one absent; of two pages of a private
// mapping of a memory file, the read one must read present and the file's,
// the written one present and not the file's.
func pageMapWorks(pm io.ReaderAt) bool {
	ps := os.Getpagesize()
	entries := func(b []byte) (e [2]uint64, ok bool) {
		var buf [16]byte
		at := int64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) / uintptr(ps) * 8)
		if _, err := pm.ReadAt(buf[:], at); err != nil {
			return e, false
		}
		return [2]uint64{binary.LittleEndian.Uint64(buf[:]), binary.LittleEndian.Uint64(buf[8:])}, true
	}
	own := func(e uint64) bool { return e&pmPresent != 0 && e&(pmFile|pmSwapped) == 0 }
	anon, err := unix.Mmap(-1, 0, 2*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return false
	}
	defer unix.Munmap(anon)
	anon[0] = 1
	e, ok := entries(anon)
	if !ok || !own(e[0]) || e[1]&(pmPresent|pmSwapped) != 0 {
		return false
	}
	fd, err := unix.MemfdCreate("coderun-pagemap-check", unix.MFD_CLOEXEC)
	if err != nil {
		return true // no memory files, so no images: the anonymous check is all that matters
	}
	defer unix.Close(fd)
	if unix.Ftruncate(fd, int64(2*ps)) != nil {
		return false
	}
	file, err := unix.Mmap(fd, 0, 2*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		return true // as above: images map the same way, and would fail too
	}
	defer unix.Munmap(file)
	if file[0] != 0 { // read: maps the file's page (a hole reads as zero)
		return false
	}
	file[ps] = 1
	e, ok = entries(file)
	return ok && e[0]&pmPresent != 0 && e[0]&pmFile != 0 && own(e[1])
}

// scrubByPageMap scrubs the first end bytes of b, a freed memory of the
// pool, in one pass over the page map (one read per pageMapChunk pages),
// which tells per page whether it is present, swapped out, and a page of
// the image's file or the memory's own:
//
//   - A page of one of the image's ranges that is the memory's own
//     (written, so copied on write; or swapped out) gets the image's bytes
//     copied back where they differ, and stays the memory's own; it is
//     added to the pages the image knows users write. The file's pages
//     (only read) and pages never touched are left alone. At the first
//     scrub of a memory mapped in pieces, every present page of the
//     ranges is counted as one its user touched (Image.kinds).
//   - Any other page (the image's gaps and everything after it: anonymous
//     memory) is cleared in place if it is present and not zero, unless
//     it is one the next user overwrites (keepPages); a cleared page of
//     one of the image's short gaps is added to the pages users write;
//     dropped with madvise(MADV_DONTNEED) if it is swapped out; and left
//     alone if it is not present, since such a page reads as zero.
//
// Unlike mincore, the page map tells a page never touched (or dropped)
// from one swapped out, so no system call is made for the pages that are
// not present. It reports false if the page map could not be read or a
// page could not be dropped; the pages it has scrubbed by then are
// scrubbed, and scrubbing them again is correct.
func (s *poolState) scrubByPageMap(b []byte, end uint64) bool {
	var buf [pageMapChunk * 8]byte
	ps := s.pageSize
	n := end / ps
	addr := int64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) / uintptr(ps))
	var ranges []imageRange
	imagePages := uint64(0)
	learnTouched := false
	if s.image != nil {
		ranges = s.image.ranges
		imagePages = s.image.Len() / ps
		// A memory no user sized was touched by none: its first user
		// is still to come.
		learnTouched = end > 0 && s.image.firstScrub(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	}
	keep := s.keepPages
	for first := uint64(0); first < n; {
		k := min(n-first, pageMapChunk)
		if _, err := s.pagemap.ReadAt(buf[:8*k], (addr+int64(first))*8); err != nil {
			return false
		}
		dropFrom := -1 // the first page of a run of swapped-out pages to drop
		for i := range k + 1 {
			p := first + i
			var e uint64
			if i < k {
				e = binary.LittleEndian.Uint64(buf[8*i:])
			}
			anonSwapped := false
			if i < k {
				for len(ranges) > 0 && ranges[0].off+uint64(len(ranges[0].bytes)) <= p*ps {
					ranges = ranges[1:]
				}
				inImage := len(ranges) > 0 && ranges[0].off <= p*ps
				switch {
				case inImage:
					if learnTouched && e&(pmSwapped|pmPresent) != 0 {
						s.image.touched.mark(int(p))
					}
					if e&pmSwapped != 0 || e&pmPresent != 0 && e&pmFile == 0 {
						r := ranges[0]
						at := p*ps - r.off
						page, want := b[p*ps:(p+1)*ps], r.bytes[at:at+ps]
						if !bytes.Equal(page, want) {
							copy(page, want)
							s.image.written.mark(int(p))
						}
					}
				case e&pmSwapped != 0:
					anonSwapped = true
				case e&pmPresent != 0:
					var cleared int
					keep, cleared = clearResident(b[p*ps:(p+1)*ps], int(ps), p, keep)
					if cleared > 0 && p < imagePages && s.image.learnable.has(int(p)) {
						s.image.written.mark(int(p)) // a zero page of a short gap, written
					}
				}
			}
			if anonSwapped && dropFrom < 0 {
				dropFrom = int(p)
			} else if !anonSwapped && dropFrom >= 0 {
				if zeroPages(b[uint64(dropFrom)*ps:p*ps]) != nil {
					return false
				}
				dropFrom = -1
			}
		}
		first += k
	}
	if learnTouched {
		s.image.touched.scrubbed()
	}
	return true
}
