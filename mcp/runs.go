package mcp

import (
	"context"
	"errors"
	"sync"
)

// The causes a run is cancelled with, which the run's abort message shows.
var (
	// ErrSessionDeleted cancels the runs of a session the client ended
	// (an HTTP DELETE).
	ErrSessionDeleted = errors.New("the client ended its MCP session")
	// ErrSessionIdle cancels the runs of a session that was idle for longer
	// than HTTPOptions.SessionIdleTimeout.
	ErrSessionIdle = errors.New("the MCP session expired: no request from the client within the session idle timeout")
	// ErrShuttingDown cancels the runs still going when the server's
	// shutdown grace period ends.
	ErrShuttingDown = errors.New("the server is shutting down")
)

// activeRun is one run_code call in flight.
type activeRun struct {
	session string // the MCP session's ID; "" for stdio and stateless HTTP
	cancel  context.CancelCauseFunc
}

// runSet tracks the runs in flight, so that they can be cancelled by
// session or all at once.
type runSet struct {
	mu   sync.Mutex
	runs map[*activeRun]struct{}
}

// start registers a run of session and returns its context, cancelled
// with a cause by cancelSession or cancelAll, and the function that ends
// the registration (and cancels the context).
func (rs *runSet) start(ctx context.Context, session string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	r := &activeRun{session: session, cancel: cancel}
	rs.mu.Lock()
	if rs.runs == nil {
		rs.runs = make(map[*activeRun]struct{})
	}
	rs.runs[r] = struct{}{}
	rs.mu.Unlock()
	return ctx, func() {
		rs.mu.Lock()
		delete(rs.runs, r)
		rs.mu.Unlock()
		cancel(context.Canceled)
	}
}

// cancelSession cancels the runs of session with cause and returns how many
// there were.
func (rs *runSet) cancelSession(session string, cause error) int {
	return rs.cancelWhere(func(r *activeRun) bool { return r.session == session }, cause)
}

// cancelAll cancels every run with cause and returns how many there were.
func (rs *runSet) cancelAll(cause error) int {
	return rs.cancelWhere(func(*activeRun) bool { return true }, cause)
}

func (rs *runSet) cancelWhere(match func(*activeRun) bool, cause error) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := 0
	for r := range rs.runs {
		if match(r) {
			r.cancel(cause)
			n++
		}
	}
	return n
}

// count returns the number of runs in flight.
func (rs *runSet) count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.runs)
}
