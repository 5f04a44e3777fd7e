package linearmem

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// imageFile is a sealed memory file (memfd) holding an Image's bytes.
type imageFile struct {
	fd int
}

// newImageFile makes a memory file holding two copies of an image of length
// bytes, one after the other: each of ranges at its file offset, and again
// length bytes further (zero elsewhere: a hole takes no memory). It seals
// the file: nothing can write, grow or shrink it afterwards, so every
// private mapping of it reads the image until it writes a page itself.
// It maps pieces (the ranges cut as a memory maps them) once, as a probe.
func newImageFile(length uint64, ranges, pieces []imageRange) (imageFile, error) {
	fd, err := unix.MemfdCreate("coderun-image", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return imageFile{}, fmt.Errorf("linearmem: memfd_create: %w", err)
	}
	fail := func(what string, err error) (imageFile, error) {
		_ = unix.Close(fd)
		return imageFile{}, fmt.Errorf("linearmem: %s: %w", what, err)
	}
	if err := unix.Ftruncate(fd, int64(2*length)); err != nil {
		return fail("sizing the image", err)
	}
	writes := ranges
	for _, r := range ranges {
		r.file += length // the second copy
		writes = append(writes[:len(writes):len(writes)], r)
	}
	for _, r := range writes {
		for done := 0; done < len(r.bytes); {
			n, err := unix.Pwrite(fd, r.bytes[done:], int64(r.file)+int64(done))
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
	// Map it once, as every memory will: a system that refuses (a
	// seccomp filter, say) fails here, not at each memory.
	probe, err := reserve(2 * length)
	if err == nil {
		for _, r := range pieces {
			if err = f.mapOver(probe[r.off:r.off+uint64(len(r.bytes))], r.file); err != nil {
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

// probeNoFaultAround returns a noFaultAround that memories mapping the
// file's ranges (an image of length bytes) can be registered with, or nil
// if the system does not allow it: it tries with a reservation of its own.
func probeNoFaultAround(f imageFile, ranges []imageRange, length uint64) *noFaultAround {
	na := openNoFaultAround()
	if na == nil {
		return nil
	}
	probe, err := reserve(length)
	if err != nil {
		_ = na.close()
		return nil
	}
	defer unmap(probe)
	for _, r := range ranges {
		err = errors.Join(err, f.mapOver(probe[r.off:r.off+uint64(len(r.bytes))], r.file))
	}
	if err != nil || na.register(probe) != nil {
		_ = na.close()
		return nil
	}
	return na
}

func (f imageFile) close() error {
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
