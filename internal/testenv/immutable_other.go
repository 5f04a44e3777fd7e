//go:build !linux

package testenv

import (
	"errors"
	"runtime"
)

// SetImmutable has no implementation here: it fails.
func SetImmutable(string, bool) error {
	return errors.New("no immutable attribute on " + runtime.GOOS)
}
