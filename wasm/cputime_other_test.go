//go:build !linux

package wasm

import "time"

// threadCPUTime is not available on this system.
func threadCPUTime() (time.Duration, bool) { return 0, false }
