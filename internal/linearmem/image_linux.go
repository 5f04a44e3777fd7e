package linearmem

import (
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
	if pm, err := os.Open("/proc/self/pagemap"); err == nil {
		f.pagemap = pm
	}
	// Map it once, as every memory will: a system that refuses (a
	// seccomp filter, say) fails here, not at each memory.
	probe, err := reserve(uint64(len(b)))
	if err == nil {
		err = f.mapOver(probe)
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

// restore makes b, a private mapping of the image, read as the image again:
// if a user wrote any of its pages (made a copy of its own), it drops them
// all with madvise(MADV_DONTNEED), so that they are mapped from the file
// when next touched. Pages that were only read are the file's already and
// stay mapped: dropping them would make the kernel interrupt the other
// processors running this process to flush their TLBs, on every scrub of
// a memory whose user read the image. Which pages are the memory's own is
// read from /proc/self/pagemap; without it, b is always dropped.
func (f imageFile) restore(b []byte) error {
	if f.pagemap != nil {
		own, err := f.owns(b)
		if err == nil && !own {
			return nil
		}
	}
	return unix.Madvise(b, unix.MADV_DONTNEED)
}

// owns reports whether any page of b, a private mapping of the file, is
// the memory's own: present and anonymous (written, copied on write), or
// swapped out (only an own page can be).
func (f imageFile) owns(b []byte) (bool, error) {
	const (
		present   = 1 << 63
		swapped   = 1 << 62
		fileOrShm = 1 << 61
	)
	ps := os.Getpagesize()
	n := len(b) / ps
	var buf [64 * 8]byte
	first := int64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) / uintptr(ps))
	for done := 0; done < n; {
		k := min(n-done, 64)
		if _, err := f.pagemap.ReadAt(buf[:8*k], (first+int64(done))*8); err != nil {
			return false, err
		}
		for i := range k {
			e := binary.LittleEndian.Uint64(buf[8*i:])
			if e&swapped != 0 || e&present != 0 && e&fileOrShm == 0 {
				return true, nil
			}
		}
		done += k
	}
	return false, nil
}
