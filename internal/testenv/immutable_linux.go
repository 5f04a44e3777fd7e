package testenv

import (
	"os"

	"golang.org/x/sys/unix"
)

// fsImmutableFl is chattr(1)'s +i among the flags of FS_IOC_GETFLAGS
// (FS_IMMUTABLE_FL in linux/fs.h).
const fsImmutableFl = 0x10

// SetImmutable sets or clears the immutable attribute of dir: while it is
// set, not even root can create a file in dir, so a test run as root can
// have a read-only directory.
func SetImmutable(dir string, on bool) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return &os.PathError{Op: "FS_IOC_GETFLAGS", Path: dir, Err: err}
	}
	if on {
		flags |= fsImmutableFl
	} else {
		flags &^= fsImmutableFl
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)); err != nil {
		return &os.PathError{Op: "FS_IOC_SETFLAGS", Path: dir, Err: err}
	}
	return nil
}
