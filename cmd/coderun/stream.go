package main

import (
	"io"
	"sync"
)

// logStream writes the entries passed to add to w, one a line, as the run
// makes them, from a goroutine of its own: the run never waits for w (a
// slow terminal or pipe), as Request.OnLog asks. What it holds is bounded
// by the run's MaxOutputBytes, since OnLog is passed only the entries the
// run keeps.
type logStream struct {
	mu      sync.Mutex
	pending []string
	closed  bool
	wake    chan struct{} // holds one token when there is news
	done    chan struct{} // closed when every entry is written
}

// newLogStream starts a logStream writing to w.
func newLogStream(w io.Writer) *logStream {
	s := &logStream{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.write(w)
	return s
}

// add queues entry; it is a Request.OnLog.
func (s *logStream) add(entry string) {
	s.mu.Lock()
	s.pending = append(s.pending, entry)
	s.mu.Unlock()
	s.notify()
}

// close writes what is queued and returns once it is written.
func (s *logStream) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.notify()
	<-s.done
}

func (s *logStream) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// write writes the queued entries until close. A failed write (standard
// error closed) loses the entry; the Result still has it.
func (s *logStream) write(w io.Writer) {
	defer close(s.done)
	for {
		s.mu.Lock()
		batch, closed := s.pending, s.closed
		s.pending = nil
		s.mu.Unlock()
		for _, entry := range batch {
			_, _ = io.WriteString(w, entry+"\n")
		}
		if closed && len(batch) == 0 {
			return
		}
		if !closed {
			<-s.wake
		}
	}
}
