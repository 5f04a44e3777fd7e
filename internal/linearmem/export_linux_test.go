package linearmem

import "os"

// ImageFD is the file descriptor of im's memory file, for tests.
func ImageFD(im *Image) int { return im.file.fd }

// ForgetPageMap makes p scrub as it does where /proc/self/pagemap cannot
// be read, for tests. Call it before p is used.
func ForgetPageMap(p *Pool) {
	if p.s.pagemap != nil {
		_ = p.s.pagemap.Close()
		p.s.pagemap = nil
	}
}

// ImageRanges returns the byte ranges of the memory that im maps from its
// file, for tests.
func ImageRanges(im *Image) []Span {
	var out []Span
	for _, r := range im.ranges {
		out = append(out, Span{Off: r.off, Len: uint64(len(r.bytes))})
	}
	return out
}

// PageMapWorks is pageMapWorks, for tests.
var PageMapWorks = pageMapWorks

// PiecePages is piecePages, for tests.
const PiecePages = piecePages

// PiecedMemories returns how many memories have im mapped in pieces, and
// sets the most there may be to max when max is not negative, for tests.
func PiecedMemories(im *Image, max int) int {
	im.mu.Lock()
	defer im.mu.Unlock()
	if max >= 0 {
		im.maxPieced = max
	}
	return len(im.pieced)
}

// The kinds of pages of an image, for tests.
const (
	PageCold    = pageCold
	PageRead    = pageRead
	PageWritten = pageWritten
)

// Mapping is one mapping of Pieces: its first page, and whether it maps
// the file's second copy of the image.
type Mapping struct {
	First  int
	Second bool
}

// Pieces returns the mappings of an image of n pages, none of them zero,
// whose pages are of the given kinds, for tests.
func Pieces(n int, kind func(page int) int) []Mapping {
	ps := os.Getpagesize()
	length := uint64(n * ps)
	ranges := []imageRange{{off: 0, file: 0, bytes: make([]byte, length)}}
	var out []Mapping
	for _, p := range pieces(ranges, length, ps, kind) {
		out = append(out, Mapping{First: int(p.off) / ps, Second: p.file != p.off})
	}
	return out
}

// MapInPieces makes memories that im is mapped over from now on map it
// in pieces, as where the kernel's fault-around cannot be turned off,
// for tests; it reports whether fault-around could be turned off.
func MapInPieces(im *Image) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.noAround == nil {
		return false
	}
	_ = im.noAround.close()
	im.noAround = nil
	return true
}

// FaultAroundOff reports whether memories that im is mapped over have
// the kernel's fault-around turned off, for tests.
func FaultAroundOff(im *Image) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.noAround != nil
}
