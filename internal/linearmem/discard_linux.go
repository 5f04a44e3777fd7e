package linearmem

import "golang.org/x/sys/unix"

// zeroPages drops the page-aligned range b. On Linux, MADV_DONTNEED on a
// private anonymous mapping frees the pages, and the next access maps a
// fresh zero-filled page.
func zeroPages(b []byte) error {
	return unix.Madvise(b, unix.MADV_DONTNEED)
}
