package wasm

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPUTime returns the CPU time of the calling OS thread (the caller
// must be locked to its thread), or false if it is not available.
func threadCPUTime() (time.Duration, bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
