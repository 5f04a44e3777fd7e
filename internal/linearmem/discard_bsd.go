//go:build darwin || dragonfly || netbsd || openbsd || solaris

package linearmem

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// zeroPages replaces the page-aligned range b with a fresh read-write
// anonymous mapping. On these systems MADV_DONTNEED is only a hint and does
// not guarantee that the pages read as zero afterwards, while a MAP_FIXED
// mapping over the range frees the old pages and zero-fills the new ones.
func zeroPages(b []byte) error {
	addr := unsafe.Pointer(unsafe.SliceData(b))
	got, err := unix.MmapPtr(-1, 0, addr, uintptr(len(b)), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_FIXED|unix.MAP_NORESERVE)
	if err != nil {
		return fmt.Errorf("mmap MAP_FIXED: %w", err)
	}
	if got != addr {
		return fmt.Errorf("mmap MAP_FIXED returned %p, want %p", got, addr)
	}
	return nil
}
