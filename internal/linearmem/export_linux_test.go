package linearmem

// ImageFD is the file descriptor of im's memory file, for tests.
func ImageFD(im *Image) int { return im.file.fd }
