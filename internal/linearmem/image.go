package linearmem

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// An Image is the bytes every memory of a Pool starts with, shared by all
// of them (PoolOptions.Image): on Linux they are held once, in a sealed
// memory file, and every memory maps that file privately over its first
// bytes, so that a memory reads them without a copy of its own; a page
// becomes the memory's own (copied on write) only when it is written, and
// resident in it only when it is read. Scrubbing a freed memory drops its
// own copies, so the next user reads the image again.
//
// It suits bytes that most users read little of and never write: a
// module's constant data. A page that is written costs a copy-on-write
// fault (about as much as copying the page), and a page that is read counts
// in the resident set of each memory that read it, shared or not.
type Image struct {
	bytes []byte // a copy, for the memories that cannot map the file
	file  imageFile

	mu     sync.Mutex
	closed bool
}

// ErrImageUnsupported is returned by NewImage on platforms without memory
// files (all but Linux).
var ErrImageUnsupported = errors.New("linearmem: shared images are not supported on this platform")

// NewImage returns an Image holding a copy of b, whose length must be a
// positive multiple of the OS page size. It fails with ErrImageUnsupported
// where images are not supported, and with the system's error when the
// file cannot be made.
func NewImage(b []byte) (*Image, error) {
	pageSize := os.Getpagesize()
	if len(b) == 0 || len(b)%pageSize != 0 {
		return nil, fmt.Errorf("linearmem: an image of %d bytes is not a positive multiple of the page size (%d)", len(b), pageSize)
	}
	f, err := newImageFile(b)
	if err != nil {
		return nil, err
	}
	return &Image{bytes: append([]byte(nil), b...), file: f}, nil
}

// Len returns the image's length in bytes.
func (im *Image) Len() uint64 { return uint64(len(im.bytes)) }

// Close releases the image's file. Memories that mapped it keep their
// mappings (the kernel keeps the file while they exist); a Pool must not
// reserve new memories with it afterwards, so close it after the Pool.
func (im *Image) Close() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return nil
	}
	im.closed = true
	return im.file.close()
}

// mapOver maps the image privately over the first Len bytes of b, a
// reservation of at least that many bytes, readable and writable.
func (im *Image) mapOver(b []byte) error {
	if uint64(len(b)) < im.Len() {
		return fmt.Errorf("linearmem: a reservation of %d bytes cannot hold an image of %d", len(b), im.Len())
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return errors.New("linearmem: the image is closed")
	}
	return im.file.mapOver(b[:im.Len()])
}
