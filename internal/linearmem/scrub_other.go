//go:build !linux

package linearmem

import "os"

// scrubPages makes every byte of the page-aligned range b read as zero. These
// platforms have no mincore in golang.org/x/sys/unix, so the whole range is
// replaced with fresh zero pages (zeroPages): correct, but the next user
// faults the pages in again.
func scrubPages(b []byte, _, _ uint64, _ []pageRange) error {
	if len(b) == 0 {
		return nil
	}
	return zeroPages(b)
}

// openPageMap returns nil: these platforms have no /proc/self/pagemap.
func openPageMap() *os.File { return nil }

// scrubByPageMap is never called without a page map.
func (*poolState) scrubByPageMap([]byte, uint64) bool { return false }
