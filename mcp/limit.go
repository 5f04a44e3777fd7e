package mcp

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"time"
)

// DefaultMaxRuns returns the default of ServerOptions.MaxRuns: twice
// GOMAXPROCS, since a run spends part of its time waiting on upstreams.
func DefaultMaxRuns() int { return 2 * goruntime.GOMAXPROCS(0) }

// DefaultMaxQueueWait is the default of ServerOptions.MaxQueueWait.
const DefaultMaxQueueWait = 10 * time.Second

// ErrServerBusy is wrapped by the error of a run_code call refused because
// MaxRuns runs were in flight and the queue was full or the call waited
// MaxQueueWait in it.
var ErrServerBusy = errors.New("server busy")

// runLimiter lets at most max runs go at once, and at most queue more
// wait, each for at most wait, in arrival order.
type runLimiter struct {
	slots chan struct{} // one token per run going
	max   int
	queue int
	wait  time.Duration

	mu     sync.Mutex
	queued int
}

func newRunLimiter(max, queue int, wait time.Duration) *runLimiter {
	return &runLimiter{slots: make(chan struct{}, max), max: max, queue: queue, wait: wait}
}

// acquire takes a slot, waiting in the queue when none is free; the
// returned function gives it back. It fails, wrapping ErrServerBusy, when
// the queue is full or the wait ran out, and with ctx's cause when ctx is
// done first.
func (l *runLimiter) acquire(ctx context.Context) (release func(), err error) {
	l.mu.Lock()
	if l.queued == 0 { // no one is ahead
		select {
		case l.slots <- struct{}{}:
			l.mu.Unlock()
			return l.release, nil
		default:
		}
	}
	if l.queued >= l.queue {
		l.mu.Unlock()
		return nil, l.fullError()
	}
	l.queued++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.queued--
		l.mu.Unlock()
	}()
	timer := time.NewTimer(l.wait)
	defer timer.Stop()
	select {
	case l.slots <- struct{}{}:
		return l.release, nil
	case <-timer.C:
		return nil, &busyError{reason: refusedQueueTimeout, err: fmt.Errorf("%w: waited %v (the server's --max-queue-wait) for one of the %d runs in flight (--max-runs) to finish; retry later",
			ErrServerBusy, l.wait, l.max)}
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (l *runLimiter) release() { <-l.slots }

// full reports whether a call arriving now would be refused at once.
func (l *runLimiter) full() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.slots) >= l.max && l.queued >= l.queue
}

func (l *runLimiter) fullError() error {
	return &busyError{reason: refusedQueueFull, err: fmt.Errorf("%w: %d runs in flight (the server's --max-runs) and %d waiting (--max-queued-runs), so the queue is full; retry later",
		ErrServerBusy, l.max, l.queue)}
}

// busyError is a refusal wrapping ErrServerBusy, with the reason label
// of coderun_runs_refused_total.
type busyError struct {
	reason string
	err    error
}

func (e *busyError) Error() string { return e.err.Error() }

func (e *busyError) Unwrap() error { return e.err }

// counts returns the runs going and the calls waiting.
func (l *runLimiter) counts() (running, queued int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.slots), l.queued
}
