package budget

import "sync/atomic"

// Memory accounts one run's memory against Limits.MemoryBytes: the guest's
// linear memory and everything the host holds for the run (the native stack
// its calls grow, copies of call arguments waiting to launch, logs, …) share
// one limit. The guest's linear memory grows only while the total stays
// within it, and the host charges what it keeps before keeping it.
//
// A Memory is safe for concurrent use: the guest grows on the run's
// goroutine, while binding results may be charged on others.
type Memory struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// NewMemory returns an account of l.MemoryBytes with nothing charged: the
// one place a run's memory limit goes from the runtime to its account, which
// from then on charges against it and words its failures (see [Memory.Exceeded]).
func NewMemory(l Limits) *Memory { return &Memory{limit: l.MemoryBytes} }

// Limit is the most the account may hold, in bytes.
func (m *Memory) Limit() int64 { return m.limit }

// Charge adds n bytes if the total stays within the limit and reports
// whether it did; nothing is charged when it does not fit.
func (m *Memory) Charge(n int64) bool {
	if n <= 0 {
		return true
	}
	for {
		used := m.used.Load()
		if used+n > m.limit || used+n < used {
			return false
		}
		if m.used.CompareAndSwap(used, used+n) {
			m.notePeak(used + n)
			return true
		}
	}
}

// Release gives back n bytes charged earlier.
func (m *Memory) Release(n int64) {
	if n > 0 {
		m.used.Add(-n)
	}
}

// Used returns the bytes charged now.
func (m *Memory) Used() int64 { return m.used.Load() }

// Available returns the bytes that can still be charged.
func (m *Memory) Available() int64 { return max(0, m.limit-m.used.Load()) }

// Peak returns the most bytes ever charged at once.
func (m *Memory) Peak() int64 { return m.peak.Load() }

func (m *Memory) notePeak(v int64) {
	for {
		p := m.peak.Load()
		if v <= p || m.peak.CompareAndSwap(p, v) {
			return
		}
	}
}
