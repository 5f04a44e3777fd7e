package linearmem

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// imageFile is a sealed memory file (memfd) holding an Image's bytes.
type imageFile struct{ fd int }

// newImageFile writes b to a new memory file and seals it: nothing can
// write, grow or shrink it afterwards, so every private mapping of it reads
// b until it writes a page itself.
func newImageFile(b []byte) (imageFile, error) {
	fd, err := unix.MemfdCreate("coderun-image", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return imageFile{}, fmt.Errorf("linearmem: memfd_create: %w", err)
	}
	for off := 0; off < len(b); {
		n, err := unix.Pwrite(fd, b[off:], int64(off))
		if err != nil {
			_ = unix.Close(fd)
			return imageFile{}, fmt.Errorf("linearmem: writing the image: %w", err)
		}
		off += n
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		_ = unix.Close(fd)
		return imageFile{}, fmt.Errorf("linearmem: sealing the image: %w", err)
	}
	f := imageFile{fd: fd}
	// Map it once, as every memory will: a system that refuses (a
	// seccomp filter, say) fails here, not at each memory.
	probe, err := reserve(uint64(len(b)))
	if err == nil {
		err = f.mapOver(probe)
		_ = unmap(probe)
	}
	if err != nil {
		_ = unix.Close(fd)
		return imageFile{}, err
	}
	return f, nil
}

func (f imageFile) close() error { return unix.Close(f.fd) }

// mapOver maps the file privately, readable and writable, over b, which
// must be page-aligned and lie inside a reservation.
func (f imageFile) mapOver(b []byte) error {
	_, err := unix.MmapPtr(f.fd, 0, unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED)
	if err != nil {
		return fmt.Errorf("linearmem: mapping the image: %w", err)
	}
	return nil
}

// restore drops b's pages, a private mapping of the image: the pages a
// user wrote (its own copies) are freed, and every page reads as the
// image's again, mapped from the file when next touched.
func (f imageFile) restore(b []byte) error {
	return unix.Madvise(b, unix.MADV_DONTNEED)
}
