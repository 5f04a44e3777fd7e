package wasm

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"
)

// sources are this package's Go files, embedded so that a cache of rewritten
// modules can be keyed by the exact passes that produced them.
//
//go:embed *.go
var sources embed.FS

// PassesDigest returns a digest of the pinned artifact and of this package's
// source code. A rewritten module cached under this digest was produced by
// the same passes from the same input.
func PassesDigest() string {
	h := sha256.New()
	h.Write([]byte(QuickJSSHA256))
	names, _ := fs.Glob(sources, "*.go")
	sort.Strings(names)
	for _, n := range names {
		b, _ := sources.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
