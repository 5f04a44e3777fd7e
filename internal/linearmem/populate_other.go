//go:build !linux

package linearmem

// populate does nothing: these platforms have no MADV_POPULATE_WRITE, and
// the pages are faulted in on first touch.
func populate([]byte) {}
