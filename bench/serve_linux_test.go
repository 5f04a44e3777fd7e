package bench

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// setImmutable sets or clears the immutable attribute of dir (chattr +i,
// FS_IMMUTABLE_FL), which stops even root from creating files in it.
func setImmutable(dir string, on bool) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return fmt.Errorf("%s: FS_IOC_GETFLAGS: %w", dir, err)
	}
	const immutable = 0x10 // FS_IMMUTABLE_FL
	if on {
		flags |= immutable
	} else {
		flags &^= immutable
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)); err != nil {
		return fmt.Errorf("%s: FS_IOC_SETFLAGS: %w", dir, err)
	}
	return nil
}
