// Package upstream holds the pinned, pristine QuickJS-NG module that
// coderun's engine is generated from, and its provenance: the wasm32-wasi
// build of QuickJS-NG 0.10.1 shipped as qjs.wasm in
// github.com/fastschema/qjs v0.0.6 (see README.md, LICENSE.quickjs-ng and
// LICENSE.fastschema-qjs).
//
// Only the generator (wasm/internal/gen) and tests import it: at run time
// coderun uses the generated module embedded in package wasm, never this one.
//
// Package upstream is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun.
package upstream

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"
)

// Version is the QuickJS-NG release the module was built from.
const Version = "0.10.1"

// Source names where the module's bytes were taken from.
const Source = "github.com/fastschema/qjs v0.0.6, file qjs.wasm"

//go:embed quickjs-ng.wasm
var module []byte

// sum is quickjs-ng.wasm.sha256, in sha256sum's format: the pin, shared
// with the fetch step (wasm/upstream/fetch) and checkable with sha256sum -c.
//
//go:embed quickjs-ng.wasm.sha256
var sum string

// SHA256 returns the hex SHA-256 the module is pinned to. The passes and the
// runtime's field discovery are written against this exact build.
func SHA256() string { return strings.Fields(sum)[0] }

// Module returns the pristine module bytes. The slice is shared: callers
// must not modify it.
func Module() []byte { return module }

// Check reports an error when b is not the pinned build.
func Check(b []byte) error {
	got := sha256.Sum256(b)
	if hex.EncodeToString(got[:]) != SHA256() {
		return fmt.Errorf("upstream: the QuickJS-NG module is not the pinned build (sha256 %x, want %s)", got, SHA256())
	}
	return nil
}
