package runtime

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
)

// BenchmarkBigValueLongestStep measures the longest time the host spends on a 200 MB value
// between two looks at the ctx (see pace), from the first piece of the value's text to the last:
// how late a cancel can be seen while the value is read, copied and checked. It reports the
// longest gap of each run in the CPU time of the run's thread (gap-cpu-ms: what the host did,
// whatever the machine's load) and in wall time (gap-ms).
func BenchmarkBigValueLongestStep(b *testing.B) {
	e := engineWith(&testing.T{}, func(l *budget.Limits) { l.MemoryBytes = 2 << 30; l.MaxOutputBytes = 1 << 30 })
	defer e.Close(context.Background())
	runtime.LockOSThread() // a run without bindings runs on its caller's goroutine
	defer runtime.UnlockOSThread()
	var last, lastCPU time.Duration
	var gap, gapCPU time.Duration
	start := time.Now()
	e.hooks.piece = func(r *run) {
		now, cpu := time.Since(start), threadCPU()
		if last != 0 {
			gap, gapCPU = max(gap, now-last), max(gapCPU, cpu-lastCPU)
		}
		last, lastCPU = now, cpu
	}
	// The value is printed by the guest (seconds); the host's part starts at its first piece.
	const program = `const s = "x".repeat(2e8); return s`
	for b.Loop() {
		last, gap, gapCPU = 0, 0, 0
		o, err := e.run(context.Background(), program, nil)
		if err != nil || o.Kind != "" {
			b.Fatal(err, o.Kind, o.Message)
		}
		b.ReportMetric(float64(gap.Microseconds())/1000, "gap-ms")
		b.ReportMetric(float64(gapCPU.Microseconds())/1000, "gap-cpu-ms")
	}
}

// threadCPU returns the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
