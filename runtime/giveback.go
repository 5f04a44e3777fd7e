package runtime

import (
	"runtime/debug"
	"sync"
	"time"
)

// Returning host memory. What deep calls grew (the native stacks and the
// copies they outgrew) is Go heap that becomes garbage when the run's
// instance is closed; left to itself, the collector frees it at its next
// cycle and the scavenger returns it to the OS over minutes, so a process
// that ran a few deep programs stays hundreds of megabytes larger than it
// needs to be. giveBack returns it soon after such runs: it counts the
// bytes runs took beyond the ordinary, and once they add up to
// giveBackBytes it runs debug.FreeOSMemory (a collection, then every free
// page back to the OS) on a goroutine of its own, off every run's path, at
// most once per giveBackEvery. Ordinary runs never cause one.
const (
	giveBackBytes = 8 << 20
	// giveBackDelay lets the run that asked return, so that its instance is
	// garbage when the collection runs.
	giveBackDelay = 20 * time.Millisecond
	giveBackEvery = 250 * time.Millisecond
)

// giveBack returns the memory of deep runs to the OS; see above.
type giveBack struct {
	closing <-chan struct{}
	free    func() // debug.FreeOSMemory; replaced in tests

	mu      sync.Mutex
	owed    int64     // bytes taken by runs since the last return
	running bool      // the goroutine is running
	last    time.Time // when the last return finished
	done    sync.WaitGroup
	returns int // how many returns ran (for tests)
}

func newGiveBack(closing <-chan struct{}) *giveBack {
	return &giveBack{closing: closing, free: debug.FreeOSMemory}
}

// ran records that a run which has ended took n bytes beyond the ordinary.
func (g *giveBack) ran(n int64) {
	if n <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.owed += n
	if g.owed >= giveBackBytes && !g.running {
		g.running = true
		g.done.Add(1)
		go g.loop()
	}
}

// loop returns memory until nothing is owed, then ends.
func (g *giveBack) loop() {
	defer g.done.Done()
	for {
		g.mu.Lock()
		if g.owed < giveBackBytes {
			g.running = false
			g.mu.Unlock()
			return
		}
		wait := max(giveBackDelay, time.Until(g.last.Add(giveBackEvery)))
		g.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-g.closing:
			t.Stop()
			g.mu.Lock()
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Lock()
		g.owed = 0 // what runs record from now on is returned next time
		g.mu.Unlock()
		g.free()
		g.mu.Lock()
		g.last = time.Now()
		g.returns++
		g.mu.Unlock()
	}
}

// wait waits until the goroutine, if running, has ended (after the engine
// started closing).
func (g *giveBack) wait() { g.done.Wait() }
