//go:build !linux

package linearmem

import "errors"

// noFaultAround exists on Linux only.
type noFaultAround struct{}

func openNoFaultAround() *noFaultAround { return nil }

func (*noFaultAround) register([]byte) error {
	return errors.New("linearmem: userfaultfd exists on Linux only")
}

func (*noFaultAround) close() error { return nil }
