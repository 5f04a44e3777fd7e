//go:build linux || darwin || dragonfly || netbsd || openbsd || solaris

package linearmem

import "golang.org/x/sys/unix"

// supported reports whether this platform has the mmap-based allocator. When
// it is false, NewAllocator returns nil and wazero's default allocator is
// used.
const supported = true

// reserve maps size bytes of inaccessible, uncommitted address space.
func reserve(size uint64) ([]byte, error) {
	return unix.Mmap(-1, 0, int(size), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
}

// commit makes b readable and writable. Pages become resident only when
// touched.
func commit(b []byte) error {
	return unix.Mprotect(b, unix.PROT_READ|unix.PROT_WRITE)
}

// protectNone makes b inaccessible again. It does not free its pages.
func protectNone(b []byte) error {
	return unix.Mprotect(b, unix.PROT_NONE)
}

// unmap releases a whole mapping returned by reserve.
func unmap(b []byte) error {
	return unix.Munmap(b)
}
