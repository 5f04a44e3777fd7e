package deploy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// fleetCheck asserts what must hold of phase c's records, given when the
// faults happened, and returns how many calls failed in flight on the
// killed replica, by backend, and the /readyz 503s seen while draining:
//   - every call was answered (a value or an error) before its deadline;
//   - a failed call was in flight through the kill window (sent before
//     HAProxy saw r1 down, ended after the SIGKILL) and was answered by r1
//     or by nobody: a connection that broke;
//   - every call r2 answered that was sent before its SIGTERM succeeded
//     (the drain let it finish), and the run held on r2 answered;
//   - once r2's /readyz answered 503, plus one health-check interval,
//     HAProxy sent r2 nothing until its restart;
//   - every call answered was answered by a replica in a life in which it
//     was ready when the call was sent: running, and not yet draining (a
//     SIGTERM takes effect when the process handles it, which the first
//     /readyz 503 shows);
//   - after the restarts every replica answered calls.
func fleetCheck(t *testing.T, records []fleetRecord, reps []*fleetReplica, tl fleetTimeline) (killFailed map[string]int, drainPolls int) {
	t.Helper()
	killFailed = map[string]int{}
	byName := map[string]*fleetReplica{}
	for _, r := range reps {
		byName[r.name] = r
	}
	r1, r2 := reps[1], reps[2]
	require.Equal(t, "drained", tl.drained, "the run held on %s through its drain", r2.name)
	drain := r2.epochs[len(r2.epochs)-2] // the life that was drained
	require.False(t, drain.notReady.IsZero(), "%s never answered /readyz 503", r2.name)
	routedAway := drain.notReady.Add(fleetCheckInter)
	afterRestart := map[string]int{}
	for i, rec := range records {
		require.False(t, rec.hang, "call %d (%s) was not answered within its deadline of %v: %s", i, rec.kind, fleetCallBudget, rec.err)
		if !rec.ok {
			inWindow := rec.sent.Before(tl.killSeenAt) && !rec.ended.Before(tl.killAt)
			require.True(t, inWindow && (rec.replica == r1.name || rec.replica == ""),
				"call %d (%s, replica %q, status %d, sent %v after the SIGKILL, ended %v after it) failed outside the kill of %s: %s",
				i, rec.kind, rec.replica, rec.status, rec.sent.Sub(tl.killAt), rec.ended.Sub(tl.killAt), r1.name, rec.err)
			if killFailed[rec.backend]++; killFailed[rec.backend] <= 3 {
				t.Logf("in flight on %s when it was killed, through %s: answered by %q with status %d after %v: %s",
					r1.name, rec.backend, rec.replica, rec.status, rec.ended.Sub(rec.sent), rec.err)
			}
			continue
		}
		r := byName[rec.replica]
		require.NotNil(t, r, "call %d answered with X-Replica %q", i, rec.replica)
		e := fleetEpochOf(r, rec)
		require.NotNil(t, e, "call %d (%s) was answered by %s while it was not running (sent %v, ended %v)", i, rec.kind, r.name, rec.sent, rec.ended)
		require.True(t, e.notReady.IsZero() || rec.sent.Before(e.notReady),
			"call %d (%s) was answered by %s, sent %v after its /readyz answered 503: it was draining, not ready",
			i, rec.kind, r.name, rec.sent.Sub(e.notReady))
		if r == r2 && e == drain {
			require.False(t, rec.sent.After(routedAway),
				"call %d was routed to %s %v after its /readyz answered 503", i, r2.name, rec.sent.Sub(drain.notReady))
		}
		if rec.sent.After(tl.allUpAt) {
			afterRestart[r.name]++
		}
	}
	for _, r := range reps {
		require.NotZero(t, afterRestart[r.name], "%s answered no call after the restarts: %v", r.name, afterRestart)
	}
	return killFailed, tl.drainPolls
}

// fleetEpochOf returns the life of r that answered rec: one that had
// started before rec ended, and had not ended before rec was sent.
func fleetEpochOf(r *fleetReplica, rec fleetRecord) *fleetEpoch {
	for _, e := range r.epochs {
		if !e.start.After(rec.ended) && (e.end.IsZero() || !rec.sent.After(e.end)) {
			return e
		}
	}
	return nil
}
