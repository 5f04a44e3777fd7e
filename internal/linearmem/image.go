package linearmem

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// An Image is the bytes every memory of a Pool starts with, shared by all
// of them (PoolOptions.Image): on Linux they are held once, in a sealed
// memory file, and every memory maps that file privately over its start,
// so that a memory reads them without a copy of its own; a page becomes
// the memory's own (copied on write) only when it is written. Scrubbing a
// freed memory copies the image's bytes back over the pages it wrote,
// which stay its own, resident for the next user; the pages it only read
// stay the file's.
//
// Long runs of zero pages in the image (gapPages or more) are not mapped:
// they are the memory's own anonymous pages, as beyond the image. A page of
// a file that a memory reads counts in its resident set, where a zero
// anonymous page that it reads maps the kernel's shared zero page, which
// does not; and each range costs a system call per new memory.
//
// A page that is written costs a copy-on-write fault the first time a
// memory writes it (about as much as copying the page); if the memory had
// read the page before, mapping the file's, the copy also costs a TLB
// flush on every other processor running the process, which on a virtual
// machine is an interrupt and an exit to the hypervisor each. So the image
// learns which pages its memories' users write (scrubbing finds them) and
// a memory reserved afterwards writes those pages at once, before its user
// can read them: a copy-on-write of a page not yet mapped needs no flush.
// It learns a page that more than half of the recent users wrote (see
// learning), not every page any user wrote: a page written ahead is the
// memory's own, resident, whether its user writes it or not, so one kind
// of program that writes much of the image (a JSON round trip, say) would
// otherwise make every later memory own all of it (a run waiting on a
// binding held 330–345 KiB, not 225–243, once such programs had run).
// (The same holds for the zero pages left out of the ranges: one that a
// memory reads maps the kernel's zero page, and writing it then flushes.
// A fresh memory writes the learned ones when it is first sized.)
// A page that is read counts in the resident set of each memory that maps
// it (the kernel's RSS counts a shared page once per mapping), but is held
// once (its proportional share, PSS, is divided among them).
//
// A read fault in a private mapping of a file maps not only the page read
// but the pages of the file's cache around it, up to 64 KiB aligned (the
// kernel's fault-around), as far as the mapping reaches and where nothing
// is mapped yet: each counts in the memory's resident set, read or not. A
// run reads its image here and there (the objects and tables it uses), so
// with each range mapped at once nearly every page of the image was
// resident in every memory. Where the kernel allows it, fault-around is
// turned off in each memory (noFaultAround: its image registered with a
// userfaultfd), which then maps each range whole, in one mapping, and a
// fault brings in only the page it reads. Elsewhere (userfaultfd not
// allowed, or a kernel before 5.19) each range is mapped in several
// mappings, which the kernel keeps apart (see pieces), so that a fault
// brings in little besides the page it reads: a page that most users read
// is mapped on its own; pages written ahead (the memory's own before its
// user can fault on them) join their neighbours' mappings; other pages are
// mapped in pieces of at most piecePages pages. What users read is learned
// like what they write (see Image.kinds); until it is, every page is
// mapped in pieces. That costs a mapping (a kernel VMA, and a system call
// when a memory is reserved, and a walk of the kernel's page map at each
// scrub) per piece, so only maxPiecedMemories memories at a time are
// mapped in pieces; those reserved beyond map whole ranges, as before.
type Image struct {
	// ranges are the parts of the image that are mapped from the file,
	// in address order, page-aligned; the bytes between them are zero.
	ranges []imageRange
	length uint64
	file   imageFile
	// pieced holds the base address of each mapped memory whose image is
	// mapped in pieces, true until its first user is learned from (see
	// touched); maxPieced bounds how many there are.
	pieced    map[uintptr]bool
	maxPieced int
	// noAround, where the kernel allows it, turns fault-around off in
	// every memory, which then maps whole ranges (see Image); nil maps
	// them in pieces.
	noAround *noFaultAround
	// written learns the pages (by index in the memory) that users write.
	written learning
	// touched learns the pages that the first users of memories mapped
	// in pieces read or wrote (see kinds).
	touched learning
	// learnable are the pages outside the ranges that written may hold:
	// those of the gaps of at most maxLearnedGap pages, before, between
	// and after the ranges (see prewriteGaps).
	learnable pageSet

	mu     sync.Mutex
	closed bool
}

// imageRange is a part of an Image mapped from its file: bytes at off in
// the memory, at file in the file.
type imageRange struct {
	off, file uint64
	bytes     []byte
}

// gapPages is the least number of consecutive zero pages of an Image that
// is left out of its mapped ranges. coderun's image has four runs of zero
// pages: the guest stack (511 pages), 15 pages of C globals that start-up
// leaves zero, and 9 and 1 in the heap; leaving out the first two takes 55
// KiB off the resident set of a run that waits (the runs read the
// globals' pages) for one system call more per new memory.
const gapPages = 15

// maxLearnedGap is the longest gap between an Image's ranges (or before the
// first) whose written pages a new memory writes ahead (prewriteGaps). A
// longer one is a stack or a heap that programs use to very different
// depths: one deep recursion would otherwise make every later memory own
// the whole of it.
const maxLearnedGap = 64

// piecePages is the most pages of an Image that are neither written ahead
// nor read by most users that one mapping covers (see pieces). Measured
// with coderun's engine (docs/performance.md, "Idle memory"): a run waiting on a binding held
// 326–341 KiB with whole ranges and 241–245 KiB with pieces of 2 pages,
// the image then mapped in 57 pieces; with pieces of 4 pages (30
// mappings), 298–300 KiB. With the pages read learned and mapped alone, the
// waiting run's memory maps 13 of the image's pages from the file instead
// of 22, in about 52 mappings.
const piecePages = 2

// maxPiecedMemories is how many memories at a time an Image maps in pieces
// (see Image): with coderun's image, 40 to 57 mappings each (at most one
// per page of its ranges, about 110), so usually about 15,000 and at most
// about 28,000 of the 65,530 a Linux process may have by default
// (vm.max_map_count), past which every mmap fails, the Go runtime's own
// included.
const maxPiecedMemories = 256

// ErrImageUnsupported is returned by NewImage on platforms without memory
// files (all but Linux).
var ErrImageUnsupported = errors.New("linearmem: shared images are not supported on this platform")

// NewImage returns an Image holding a copy of b, whose length must be a
// positive multiple of the OS page size. It fails with ErrImageUnsupported
// where images are not supported, and with the system's error when the
// file cannot be made.
func NewImage(b []byte) (*Image, error) {
	pageSize := os.Getpagesize()
	if len(b) == 0 || len(b)%pageSize != 0 {
		return nil, fmt.Errorf("linearmem: an image of %d bytes is not a positive multiple of the page size (%d)", len(b), pageSize)
	}
	ranges := imageRanges(b, pageSize)
	pieces := pieces(ranges, uint64(len(b)), pageSize, func(int) int { return pageCold })
	f, err := newImageFile(uint64(len(b)), ranges, pieces)
	if err != nil {
		return nil, err
	}
	pages := len(b) / pageSize
	im := &Image{ranges: ranges, length: uint64(len(b)), file: f, noAround: probeNoFaultAround(f, ranges, uint64(len(b))),
		pieced: map[uintptr]bool{}, maxPieced: maxPiecedMemories,
		written: newLearning(pages), touched: newLearning(pages), learnable: make(pageSet, (pages+63)/64)}
	gap := 0 // the first page of the gap before each range, and after the last
	for i := 0; i <= len(ranges); i++ {
		end := pages
		if i < len(ranges) {
			end = int(ranges[i].off) / pageSize
		}
		if end-gap <= maxLearnedGap {
			for p := gap; p < end; p++ {
				im.learnable.add(p)
			}
		}
		if i < len(ranges) {
			gap = end + len(ranges[i].bytes)/pageSize
		}
	}
	return im, nil
}

// pageSet is a set of page indexes, safe for concurrent use.
type pageSet []atomic.Uint64

func (s pageSet) add(i int) {
	w, bit := &s[i/64], uint64(1)<<(i%64)
	if w.Load()&bit == 0 {
		w.Or(bit)
	}
}

func (s pageSet) has(i int) bool { return s[i/64].Load()&(uint64(1)<<(i%64)) != 0 }

// learning counts, per page, the scrubs that found the page written since
// the counts were last halved, and the scrubs: a page more than half of
// them found written is learned. The counts are halved every learnWindow
// scrubs, so that what users wrote long ago weighs less. Scrubs run
// concurrently; a count may miss an increment when a halving races it,
// which only makes the learning less exact.
type learning struct {
	writes []atomic.Uint32
	scrubs atomic.Uint32
}

// learnWindow is how many scrubs learning counts before it halves.
const learnWindow = 64

func newLearning(pages int) learning { return learning{writes: make([]atomic.Uint32, pages)} }

// mark counts page p as written (or, for touched, touched) by the user
// being scrubbed.
func (l *learning) mark(p int) { l.writes[p].Add(1) }

// scrubbed counts one scrub, after its mark calls.
func (l *learning) scrubbed() {
	if l.scrubs.Add(1) < learnWindow {
		return
	}
	l.scrubs.Store(learnWindow / 2)
	for i := range l.writes {
		l.writes[i].Store(l.writes[i].Load() / 2)
	}
}

// has reports whether page p is learned.
func (l *learning) has(p int) bool {
	return p < len(l.writes) && 2*l.writes[p].Load() > l.scrubs.Load()
}

// The kinds of a page of an Image, as a memory reserved now maps it (see
// pieces and Image.kinds).
const (
	pageCold    = iota // most users leave it alone
	pageRead           // most users read it (or write it, without most users writing it)
	pageWritten        // most users write it: written ahead (Image.mapOver)
)

// pieces cuts ranges into the mappings of a memory mapped in pieces, by the
// kind of each page (kind(page), see pageCold). A read fault maps the
// pages of the file around the page it reads, as far as its mapping
// reaches, but only where nothing is mapped yet; a page written ahead is
// the memory's own before its user can touch it, so it is never mapped
// that way. Each mapping therefore holds, besides any pages written
// ahead, one page most users read, so that reading it maps nothing else,
// or at most piecePages cold pages, so that a fault maps at most those.
// Two mappings of the same file side by side whose file offsets follow on
// are merged into one by the kernel; so every other mapping is of the
// file's second copy of the image, which follows the first (at length):
// the neighbours of a mapping then come from elsewhere in the file.
func pieces(ranges []imageRange, length uint64, pageSize int, kind func(page int) int) []imageRange {
	ps := uint64(pageSize)
	var out []imageRange
	for _, r := range ranges {
		end := r.off + uint64(len(r.bytes))
		for off := r.off; off < end; {
			next, read, cold := off, false, 0
			for ; next < end; next += ps {
				k := kind(int(next / ps))
				if k == pageRead && (read || cold > 0) || k == pageCold && (read || cold == piecePages) {
					break
				}
				read = read || k == pageRead
				if k == pageCold {
					cold++
				}
			}
			p := imageRange{off: off, file: off, bytes: r.bytes[off-r.off : next-r.off]}
			if len(out)%2 == 1 {
				p.file += length
			}
			out = append(out, p)
			off = next
		}
	}
	return out
}

// kinds returns the kind of every page of the image (see pageCold) as the
// image has learned them so far: written if more than half of the recent
// users wrote it, read if more than half of the recent first users of
// memories mapped in pieces touched it (see touched), cold otherwise.
//
// What a memory's user reads is learned only from memories mapped in
// pieces, at their first scrub: a page of the file that a memory reads
// stays mapped when the memory is scrubbed, so later scrubs see every page
// any of its users read, and a memory whose ranges are mapped whole reads
// the pages around each one it reads. Only a cold page can be mapped
// without being read (another cold page of its mapping was); it is then
// counted once as read, and is mapped alone until its count halves away.
func (im *Image) kinds() []byte {
	k := make([]byte, len(im.written.writes))
	for p := range k {
		switch {
		case im.written.has(p):
			k[p] = pageWritten
		case im.touched.has(p):
			k[p] = pageRead
		}
	}
	return k
}

// firstScrub reports whether the memory at base is mapped in pieces and
// has not been scrubbed since, and notes that it has been.
func (im *Image) firstScrub(base uintptr) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	first := im.pieced[base]
	if first {
		im.pieced[base] = false
	}
	return first
}

// imageRanges splits b into the ranges an Image maps: every page, less the
// runs of gapPages or more zero pages (and the zero pages at either end).
// Each range's bytes are a copy.
func imageRanges(b []byte, pageSize int) []imageRange {
	n := len(b) / pageSize
	zero := func(i int) bool { return isZero(b[i*pageSize : (i+1)*pageSize]) }
	var ranges []imageRange
	for i := 0; i < n; {
		for i < n && zero(i) {
			i++
		}
		if i == n {
			break
		}
		start, end := i, i+1 // end: past the last non-zero page so far
		for j := i + 1; j < n && j-end < gapPages; j++ {
			if !zero(j) {
				end = j + 1
			}
		}
		ranges = append(ranges, imageRange{
			off:   uint64(start * pageSize),
			file:  uint64(start * pageSize),
			bytes: append([]byte(nil), b[start*pageSize:end*pageSize]...),
		})
		i = end
	}
	return ranges
}

// Len returns the image's length in bytes: a memory's bytes past it are
// not the image's.
func (im *Image) Len() uint64 { return im.length }

// Close releases the image's file. Memories that mapped it keep their
// mappings (the kernel keeps the file while they exist); a Pool must not
// reserve new memories with it afterwards, so close it after the Pool.
func (im *Image) Close() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return nil
	}
	im.closed = true
	if im.noAround != nil {
		_ = im.noAround.close()
	}
	return im.file.close()
}

// mapOver maps the image's ranges privately over b, a reservation of at
// least Len bytes, readable and writable.
func (im *Image) mapOver(b []byte) error {
	if uint64(len(b)) < im.Len() {
		return fmt.Errorf("linearmem: a reservation of %d bytes cannot hold an image of %d", len(b), im.Len())
	}
	im.mu.Lock()
	if im.closed {
		im.mu.Unlock()
		return errors.New("linearmem: the image is closed")
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	kinds := im.kinds()
	inPieces := len(im.pieced) < im.maxPieced
	var err error
	if im.noAround != nil || !inPieces {
		err = im.mapRanges(b, im.ranges)
		if err == nil && im.noAround != nil && im.noAround.register(b[:im.length]) == nil {
			inPieces = false // fault-around is off
		}
	}
	if err == nil && inPieces {
		// Fault-around is on (the pieces map over the whole ranges if
		// they could not be registered).
		ps := os.Getpagesize()
		im.pieced[base] = true
		err = im.mapRanges(b, pieces(im.ranges, im.length, ps, func(p int) int { return int(kinds[p]) }))
	}
	if err != nil {
		delete(im.pieced, base)
		im.mu.Unlock()
		return err
	}
	im.mu.Unlock()
	// Write the pages users are known to write, as they are: each becomes
	// the memory's own copy of the file's page. (Off the lock: these are
	// page faults, and other memories may be reserved meanwhile.)
	ps := os.Getpagesize()
	for _, r := range im.ranges {
		for k := 0; k < len(r.bytes); k += ps {
			if off := int(r.off) + k; kinds[off/ps] == pageWritten {
				b[off] = r.bytes[k]
			}
		}
	}
	return nil
}

// mapRanges maps ranges of the image's file over b.
func (im *Image) mapRanges(b []byte, ranges []imageRange) error {
	for _, r := range ranges {
		if err := im.file.mapOver(b[r.off:r.off+uint64(len(r.bytes))], r.file); err != nil {
			return err
		}
	}
	return nil
}

// unmap unmaps b, a reservation that mapOver mapped the image over (or
// tried to), and forgets it.
func (im *Image) unmap(b []byte) error {
	im.mu.Lock()
	delete(im.pieced, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	im.mu.Unlock()
	return unmap(b)
}

// prewriteGaps writes one zero byte into each page of b (a fresh memory's
// first bytes, committed) that lies in a gap of at most maxLearnedGap pages
// between the image's ranges and that users are known to write, so that
// the page is the memory's own, zero, before its user can read it (see
// Image).
func (im *Image) prewriteGaps(b []byte) {
	ps := os.Getpagesize()
	n := min(len(b), int(im.length)) / ps
	for p := 0; p < n; p++ {
		if im.learnable.has(p) && im.written.has(p) {
			b[p*ps] = 0
		}
	}
}

// restore makes the image's ranges of mapping, a memory that mapOver
// mapped, read as the image again where the page map cannot tell which
// pages its user wrote (Pool scrubs with the page map otherwise): it
// compares every page with the image and copies the image's bytes over
// those that differ, counting them as written (learning). Reading a page
// the memory never touched maps the file's, which is only a read fault.
func (im *Image) restore(mapping []byte) {
	ps := os.Getpagesize()
	for _, r := range im.ranges {
		for at := 0; at < len(r.bytes); at += ps {
			off := int(r.off) + at
			if page, want := mapping[off:off+ps], r.bytes[at:at+ps]; !bytes.Equal(page, want) {
				copy(page, want)
				im.written.mark(off / ps)
			}
		}
	}
}

// copyTo writes the image's bytes at and after off into b, which holds the
// memory's bytes from off on and reads as zero: the copy a heap-backed
// memory gets as it grows over the image.
func (im *Image) copyTo(b []byte, off uint64) {
	for _, r := range im.ranges {
		end := r.off + uint64(len(r.bytes))
		if end <= off || r.off >= off+uint64(len(b)) {
			continue
		}
		from := max(r.off, off)
		copy(b[from-off:], r.bytes[from-r.off:])
	}
}

// zeros is compared against, never written.
var zeros [4096]byte

// isZero reports whether every byte of b is zero.
func isZero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), len(zeros))
		if !bytes.Equal(b[:n], zeros[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}
