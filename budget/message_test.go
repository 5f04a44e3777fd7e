package budget

import (
	"testing"
	"time"
)

// Each failure reads as it always has: the texts are pinned byte for byte.
func TestMessages(t *testing.T) {
	m := NewMemory(Limits{MemoryBytes: 64 << 20})
	tests := []struct{ got, want string }{
		{FuelMessage(7), "fuel budget exhausted (7 units)"},
		{computeMessage(1500 * time.Millisecond), "compute budget exhausted (1500ms busy)"},
		{WallMessage(2 * time.Second), "wall-clock ceiling reached (2000ms)"},
		{MemoryMessage(64 << 20), "memory limit of 64 MiB exceeded (MemoryBytes)"},
		{MemoryMessage(4<<20 + 1<<10), "memory limit of 4097 KiB exceeded (MemoryBytes)"},
		{MemoryMessage(4<<20 + 1), "memory limit of 4194305 bytes exceeded (MemoryBytes)"},
		{m.Exceeded(), "memory limit of 64 MiB exceeded (MemoryBytes)"},
		{m.NoRoom("binding result", 99), "binding result of 99 bytes does not fit in the run's memory budget (MemoryBytes 67108864)"},
		{m.CompileExceeded(96 << 20), "memory limit of 64 MiB exceeded (MemoryBytes): compiling the program takes about 96.0 MiB " +
			"of host memory, over MemoryBytes (67108864 bytes); make the program shorter, or pass large data through a binding " +
			"instead of writing it in the program"},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%d: got %q, want %q", i, tc.got, tc.want)
		}
	}
}
