package quickjs

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
)

// imageCode are the files whose code decides what an initialized
// instance's memory holds (Init, DropSources, ZeroUnused).
//
//go:embed init.go heap.go sources.go
var imageCode embed.FS

// imageCodeDigest returns a digest of the code that decides what an
// initialized instance's memory holds, so that a cached snapshot of such
// an instance is keyed by it and never outlives a change to it.
func imageCodeDigest() string {
	h := sha256.New()
	for _, name := range []string{"init.go", "heap.go", "sources.go"} {
		b, _ := imageCode.ReadFile(name)
		h.Write([]byte(name))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
