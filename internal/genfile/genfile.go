// Package genfile writes the files the module's generators produce
// (internal/enginegen's engine, internal/budgetgen's structs).
package genfile

import (
	"bytes"
	"os"
)

// Write writes b to path unless path already holds exactly b, so that go
// generate on an up-to-date tree touches nothing (no file's modification
// time changes, and the working tree stays clean).
func Write(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return os.WriteFile(path, b, 0o644)
}
