//go:build !linux

package runtime

// setImmutable has no implementation here.
func setImmutable(string, bool) error { return errNoImmutable }
