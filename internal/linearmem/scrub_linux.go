package linearmem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mincoreChunk is how many pages one mincore call reports on: 8 MiB of 4 KiB
// pages (defaultMaxKeepBytes), as system calls are not cheap in a VM.
const mincoreChunk = 2048

// scrubPages makes every byte of the page-aligned, readable and writable
// range b read as zero without faulting in pages that are not resident:
// mincore splits b into runs of resident and non-resident pages; in a
// resident run every page that is not already zero is cleared in place
// (no fault, and the page stays resident for the next user); a non-resident
// run is dropped with madvise(MADV_DONTNEED), which also discards a
// swapped-out page's contents, so that its next access maps a fresh zero
// page.
//
// Residency only decides which of the two is used, never whether a page is
// zeroed, so a page changing state meanwhile costs time, not correctness.
// If mincore fails the whole range is dropped.
//
// Checking a page before clearing it costs about as much as clearing it when
// the page is dirty (the comparison stops at the first non-zero byte), less
// when it is clean and out of cache (reads are cheaper than writes), and
// avoids a fault for a page that is resident only as a mapping of the
// kernel's shared zero page (read, never written).
//
// first is the index of b's first page in the memory. A resident page in
// keep (page indexes in the memory, sorted) is left as it is: its next
// user overwrites it (PoolOptions.Overwritten).
func scrubPages(b []byte, pageSize, first uint64, keep []pageRange) error {
	var vec [mincoreChunk]byte
	ps := int(pageSize)
	base := int(first) // page index of b[0] in the memory
	for len(b) > 0 {
		chunk := b[:min(len(b), mincoreChunk*ps)]
		b = b[len(chunk):]
		n := len(chunk) / ps
		_, _, errno := unix.Syscall(unix.SYS_MINCORE,
			uintptr(unsafe.Pointer(unsafe.SliceData(chunk))), uintptr(len(chunk)),
			uintptr(unsafe.Pointer(&vec[0])))
		if errno != 0 {
			if err := zeroPages(chunk); err != nil {
				return err
			}
			base += n
			continue
		}
		for i := 0; i < n; {
			resident := vec[i] & 1
			j := i + 1
			for j < n && vec[j]&1 == resident {
				j++
			}
			run := chunk[i*ps : j*ps]
			if resident != 0 {
				keep, _ = clearResident(run, ps, uint64(base+i), keep)
			} else if err := zeroPages(run); err != nil {
				return err
			}
			i = j
		}
		base += n
	}
	return nil
}

// clearResident zeroes b page by page, skipping pages that already read as
// zero and pages in keep; first is the page index of b[0]. It returns what
// is left of keep past b, for the next run, and how many pages it cleared.
func clearResident(b []byte, pageSize int, first uint64, keep []pageRange) ([]pageRange, int) {
	cleared := 0
	for k := 0; k*pageSize < len(b); k++ {
		p := first + uint64(k)
		for len(keep) > 0 && keep[0].end <= p {
			keep = keep[1:]
		}
		if len(keep) > 0 && keep[0].first <= p {
			continue
		}
		if page := b[k*pageSize : (k+1)*pageSize]; !isZero(page) {
			clear(page)
			cleared++
		}
	}
	return keep, cleared
}
