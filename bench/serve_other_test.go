//go:build !linux

package bench

import (
	"errors"
	"runtime"
)

// setImmutable has no implementation here.
func setImmutable(string, bool) error {
	return errors.New("no immutable attribute on " + runtime.GOOS)
}
