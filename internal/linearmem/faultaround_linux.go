package linearmem

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Constants of linux/userfaultfd.h, which x/sys/unix does not define.
const (
	uffdUserModeOnly  = 1          // UFFD_USER_MODE_ONLY
	uffdAPI           = 0xAA       // UFFD_API
	uffdioAPI         = 0xc018aa3f // UFFDIO_API: _IOWR(0xAA, 0x3F, struct uffdio_api)
	uffdioRegister    = 0xc020aa00 // UFFDIO_REGISTER: _IOWR(0xAA, 0x00, struct uffdio_register)
	uffdRegisterModeW = 1 << 1     // UFFDIO_REGISTER_MODE_WP
)

// noFaultAround turns the kernel's fault-around off in ranges of memory
// (see Image): the kernel maps no page around the one a read fault reads
// in a mapping registered with a userfaultfd for write-protection. It
// registers them with one userfaultfd of its own and never write-protects
// a page, so no fault is ever reported to it and every write is served as
// before (a private mapping's page copied on write); closing it ends the
// registrations, and fault-around with them.
type noFaultAround struct {
	fd int
}

// openNoFaultAround returns a noFaultAround, or nil where userfaultfd is
// not allowed (a seccomp filter, a kernel without it).
func openNoFaultAround() *noFaultAround {
	fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|unix.O_NONBLOCK|uffdUserModeOnly, 0, 0)
	if errno != 0 {
		return nil
	}
	api := struct{ api, features, ioctls uint64 }{api: uffdAPI}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, uffdioAPI, uintptr(unsafe.Pointer(&api))); errno != 0 {
		_ = unix.Close(int(fd))
		return nil
	}
	return &noFaultAround{fd: int(fd)}
}

// register turns fault-around off in b, page-aligned mappings of files
// (shared memory) or anonymous memory. It fails where the kernel cannot
// write-protect such mappings (before Linux 5.19 for files).
func (f *noFaultAround) register(b []byte) error {
	reg := struct{ start, len, mode, ioctls uint64 }{
		start: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), len: uint64(len(b)), mode: uffdRegisterModeW}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(f.fd), uffdioRegister, uintptr(unsafe.Pointer(&reg))); errno != 0 {
		return fmt.Errorf("linearmem: registering with userfaultfd: %w", errno)
	}
	return nil
}

// close ends the registrations.
func (f *noFaultAround) close() error { return unix.Close(f.fd) }
