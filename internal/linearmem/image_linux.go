package linearmem

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// imageFile is a sealed memory file (memfd) holding an Image's bytes, and
// this process's page map (nil if it cannot be read), which tells restore
// which pages a memory wrote.
type imageFile struct {
	fd      int
	pagemap *os.File
}

// newImageFile makes a memory file of length bytes holding ranges (zero
// elsewhere: a hole takes no memory) and seals it: nothing can write, grow
// or shrink it afterwards, so every private mapping of it reads the image
// until it writes a page itself.
func newImageFile(length uint64, ranges []imageRange) (imageFile, error) {
	fd, err := unix.MemfdCreate("coderun-image", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return imageFile{}, fmt.Errorf("linearmem: memfd_create: %w", err)
	}
	fail := func(what string, err error) (imageFile, error) {
		_ = unix.Close(fd)
		return imageFile{}, fmt.Errorf("linearmem: %s: %w", what, err)
	}
	if err := unix.Ftruncate(fd, int64(length)); err != nil {
		return fail("sizing the image", err)
	}
	for _, r := range ranges {
		for done := 0; done < len(r.bytes); {
			n, err := unix.Pwrite(fd, r.bytes[done:], int64(r.off)+int64(done))
			if err != nil {
				return fail("writing the image", err)
			}
			done += n
		}
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		return fail("sealing the image", err)
	}
	f := imageFile{fd: fd}
	if pm, err := os.Open("/proc/self/pagemap"); err == nil {
		f.pagemap = pm
	}
	// Map it once, as every memory will: a system that refuses (a
	// seccomp filter, say) fails here, not at each memory.
	probe, err := reserve(length)
	if err == nil {
		for _, r := range ranges {
			if err = f.mapOver(probe[r.off:r.off+uint64(len(r.bytes))], r.off); err != nil {
				break
			}
		}
		_ = unmap(probe)
	}
	if err != nil {
		_ = f.close()
		return imageFile{}, err
	}
	return f, nil
}

func (f imageFile) close() error {
	if f.pagemap != nil {
		_ = f.pagemap.Close()
	}
	return unix.Close(f.fd)
}

// mapOver maps the file from offset off privately, readable and writable,
// over b, which must be page-aligned and lie inside a reservation.
func (f imageFile) mapOver(b []byte, off uint64) error {
	_, err := unix.MmapPtr(f.fd, int64(off), unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED)
	if err != nil {
		return fmt.Errorf("linearmem: mapping the image: %w", err)
	}
	return nil
}

// restore makes b, a private mapping of the image, read as img (the
// image's bytes) again without unmapping anything: of each page that is
// the memory's own (written, so copied on write, or swapped out), the bytes
// that differ from the image's are copied back, and the page stays the
// memory's own, resident for its next user. Pages that were only read are
// the file's and are left alone, and so are pages never touched. Dropping
// the pages instead (madvise(MADV_DONTNEED)) would make the next user fault
// every written page in again, and the kernel interrupt the other
// processors running this process to flush their TLBs, on every scrub.
//
// Which pages are the memory's own is read from /proc/self/pagemap; where
// it cannot be, every page is compared with the image (reading a page the
// memory never touched maps the file's, which is only a read fault). The
// pages found written (own and differing, without the page map) are added
// to written, where b's first page is page first.
func (f imageFile) restore(b, img []byte, written pageSet, first int) {
	const (
		present   = 1 << 63
		swapped   = 1 << 62
		fileOrShm = 1 << 61
		chunk     = 512 // pages per read of the page map
	)
	ps := os.Getpagesize()
	n := len(b) / ps
	var buf [chunk * 8]byte
	addr := int64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) / uintptr(ps))
	for done := 0; done < n; {
		k := min(n-done, chunk)
		known := f.pagemap != nil
		if known {
			_, err := f.pagemap.ReadAt(buf[:8*k], (addr+int64(done))*8)
			known = err == nil
		}
		for i := range k {
			if known {
				e := binary.LittleEndian.Uint64(buf[8*i:])
				if e&swapped == 0 && (e&present == 0 || e&fileOrShm != 0) {
					continue // the file's page, or none
				}
			}
			off := (done + i) * ps
			if page, want := b[off:off+ps], img[off:off+ps]; !bytes.Equal(page, want) {
				copy(page, want)
				written.add(first + done + i)
			} else if known {
				written.add(first + done + i)
			}
		}
		done += k
	}
}
