package transpile

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestMeasureShapes(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	for _, s := range worstShapes {
		src := s.build(1 << 20)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		var peak uint64
		stop := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				default:
				}
				runtime.ReadMemStats(&m)
				peak = max(peak, m.StackInuse)
				time.Sleep(500 * time.Microsecond)
			}
		}()
		phases := map[Phase]time.Duration{}
		var last Phase
		lastAt := time.Now()
		start := lastAt
		_, err := CompileContext(t.Context(), src, Options{OnPhase: func(p Phase) {
			now := time.Now()
			if p > 0 {
				phases[last] = now.Sub(lastAt)
			}
			last, lastAt = p, now
		}})
		phases[last] = time.Since(lastAt)
		total := time.Since(start)
		close(stop)
		runtime.ReadMemStats(&m1)
		msg := ""
		if err != nil {
			msg = err.Error()
			if len(msg) > 70 {
				msg = msg[:70]
			}
		}
		fmt.Printf("%-24s %8d B  total %6.1fms  scan %5.1f transform %6.1f verify %6.1f map %5.1f  stack %6d KiB  alloc %5d MiB  %s\n",
			s.name, len(src), ms(total), ms(phases[PhaseScan]), ms(phases[PhaseTransform]), ms(phases[PhaseVerify]), ms(phases[PhaseSourceMap]),
			(peak-m0.StackInuse)>>10, (m1.TotalAlloc-m0.TotalAlloc)>>20, msg)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
