package linearmem

// ImageFD is the file descriptor of im's memory file, for tests.
func ImageFD(im *Image) int { return im.file.fd }

// ForgetPageMap makes im restore as it does where /proc/self/pagemap
// cannot be read, for tests.
func ForgetPageMap(im *Image) {
	if im.file.pagemap != nil {
		_ = im.file.pagemap.Close()
		im.file.pagemap = nil
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
