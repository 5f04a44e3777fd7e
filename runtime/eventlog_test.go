package runtime

import (
	"bytes"
	"crypto/sha256"
	"math"
	"testing"

	"github.com/coderun/coderun/hostcalls"
	"github.com/stretchr/testify/require"
)

// Every record an eventLog is given is read back as it was written, in
// order: records of each type, numbers at their extremes, payloads empty,
// small, just under and over the size copied aside, and enough of them to
// fill several blocks.
func TestEventLogRoundTrip(t *testing.T) {
	digest := sha256.Sum256([]byte("argument"))
	tests := []struct {
		name string
		want logRecord
	}{
		{"call with its argument", logRecord{typ: recCall, a: 3, b: 7, payload: []byte(`{"i":1}`)}},
		{"call of a secret namespace", logRecord{typ: recCall, flags: logSecret, a: 0, b: 0, payload: []byte(`1`)}},
		{"call with an empty argument", logRecord{typ: recCall, a: math.MaxInt32, b: math.MaxInt32, payload: []byte{}}},
		{"call with its argument's digest", logRecord{typ: recCall, flags: logDigest | logSecret, a: 1, b: 2, digest: digest[:]}},
		{"turn", logRecord{typ: recTurn, a: math.MaxInt64}},
		{"turn at no fuel", logRecord{typ: recTurn}},
		{"resolution", logRecord{typ: recDelivery, kind: byte(hostcalls.EvResolve), a: 12345, payload: []byte(`{"got":1}`)}},
		{"resolution just under the size kept aside", logRecord{typ: recDelivery, kind: byte(hostcalls.EvResolve), a: 1, payload: bytes.Repeat([]byte("x"), eventLogBig-1)}},
		{"resolution kept aside", logRecord{typ: recDelivery, kind: byte(hostcalls.EvResolve), a: 2, payload: bytes.Repeat([]byte("y"), eventLogBig)}},
		{"rejection", logRecord{typ: recDelivery, kind: byte(hostcalls.EvReject), a: 3, payload: []byte(`"no"`)}},
		{"secret resolution", logRecord{typ: recDelivery, kind: byte(hostcalls.EvResolve), flags: logSecret, a: 4, payload: []byte{}}},
		{"timer", logRecord{typ: recDelivery, kind: byte(hostcalls.EvTimer), a: math.MinInt32, payload: []byte{}}},
		{"clock", logRecord{typ: recClock, a: 1, b: math.MinInt64}},
		{"clock at a real time", logRecord{typ: recClock, a: 0, b: 1_780_000_000_000_000_000}},
		{"event kept whole", logRecord{typ: recFull, a: 99}},
	}
	var l eventLog
	var want []logRecord
	for range 200 { // several blocks' worth
		for _, tc := range tests {
			writeRecord(&l, tc.want)
			want = append(want, tc.want)
		}
	}
	require.Greater(t, len(l.blocks), 3)
	var got []logRecord
	l.eachRecord(func(r *logRecord) { got = append(got, *r) })
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i], got[i], "record %d: %s", i, tests[i%len(tests)].name)
	}
	require.Equal(t, 200*len(tests)-200*6, l.events)
	require.Equal(t, 200*6, l.deliveries)
}

// writeRecord writes r to l as the recorder does.
func writeRecord(l *eventLog, r logRecord) {
	switch r.typ {
	case recCall:
		if r.flags&logDigest != 0 {
			l.call(r.flags, int(r.a), int(r.b), r.digest)
		} else {
			l.call(r.flags, int(r.a), int(r.b), r.payload)
		}
	case recTurn:
		l.turn(uint64(r.a))
	case recDelivery:
		l.delivery(int(r.kind), r.flags, int32(r.a), r.payload)
	case recClock:
		l.clock(uint32(r.a), r.b)
	case recFull:
		l.full(int(r.a))
	}
}

// Recording a call and its delivery takes a few dozen bytes: the records
// and their payloads' bytes, in a few blocks, none per record.
func TestEventLogSize(t *testing.T) {
	const calls = 10_000
	arg, result := []byte(`{"i":1234}`), []byte(`{"i":1234}`)
	var l eventLog
	for i := range calls {
		l.call(0, 0, 0, arg)
		l.turn(uint64(i) * 1000)
		l.delivery(hostcalls.EvResolve, 0, int32(i+1), result)
	}
	held := 0
	for _, b := range l.blocks {
		held += cap(b)
	}
	require.Less(t, held, calls*48, "bytes held for %d calls", calls)
	require.Less(t, len(l.blocks), 16, "blocks for %d calls", calls)
	require.Empty(t, l.big)
	require.Equal(t, 2*calls, l.events)
}
