//go:build !linux

package linearmem

// imageFile exists on Linux only.
type imageFile struct{}

func newImageFile(uint64, []imageRange, []imageRange) (imageFile, error) {
	return imageFile{}, ErrImageUnsupported
}

func (imageFile) close() error { return nil }

func (imageFile) mapOver([]byte, uint64) error { return ErrImageUnsupported }

func probeNoFaultAround(imageFile, []imageRange, uint64) *noFaultAround { return nil }
