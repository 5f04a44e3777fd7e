//go:build !linux

package linearmem

// imageFile exists on Linux only.
type imageFile struct{}

func newImageFile([]byte) (imageFile, error) { return imageFile{}, ErrImageUnsupported }

func (imageFile) close() error { return nil }

func (imageFile) mapOver([]byte) error { return ErrImageUnsupported }

func (imageFile) restore([]byte) error { return ErrImageUnsupported }
