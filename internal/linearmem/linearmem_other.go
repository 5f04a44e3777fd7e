//go:build !(linux || darwin || dragonfly || netbsd || openbsd || solaris)

package linearmem

import "errors"

// supported reports whether this platform has the mmap-based allocator. When
// it is false, NewAllocator returns nil and wazero's default allocator is
// used.
const supported = false

func reserve(uint64) ([]byte, error) { return nil, errors.ErrUnsupported }

func commit([]byte) error { return errors.ErrUnsupported }

func protectNone([]byte) error { return errors.ErrUnsupported }

func unmap([]byte) error { return errors.ErrUnsupported }

func zeroPages([]byte) error { return errors.ErrUnsupported }
