package runtime

import (
	"encoding/binary"
)

// eventLog is where a recorder keeps a run's events until they become the
// trace's TraceEvents (see recorder.traceEvents): each event is a record of
// a few bytes (its type, its numbers as varints, its payload's bytes)
// appended to blocks that never move, so that recording a call and its
// delivery allocates some forty bytes and nothing the garbage collector
// scans. A record never straddles two blocks; the records are read back
// in order only (see eachRecord).
type eventLog struct {
	blocks [][]byte
	// big are the payloads of at least eventLogBig bytes, each copied into an
	// allocation of its own (a record holds its index).
	big [][]byte
	// events and deliveries count the records of each kind, for the
	// slices traceEvents makes.
	events, deliveries int
}

// The record types of an eventLog, its first byte.
const (
	recCall     = iota // call flags, ns, member, then the digest or the argument
	recTurn            // fuel
	recDelivery        // kind flags, id (call ordinal or timer), payload unless secret or timer
	recClock           // clock id, nanoseconds
	recFull            // index in recorder.full
)

// Flags of a record's second byte.
const (
	logSecret = 1 << iota // the call's namespace is secret
	logDigest             // a call's record holds its argument's SHA-256, not its argument
)

// The first block of an eventLog; each next one doubles, up to eventLogBlock.
// A payload of eventLogBig bytes or more is copied into an allocation of its
// own.
const (
	eventLogFirst = 4 << 10
	eventLogBlock = 64 << 10
	eventLogBig   = 4 << 10
)

// eventLogHeader bounds the bytes of a record besides its payload: three bytes
// of type and flags, three varints of at most ten bytes, a digest.
const eventLogHeader = 3 + 3*binary.MaxVarintLen64 + 32

// record returns the last block, with room for a record of up to n bytes
// besides its payload (if any, under eventLogBig bytes).
func (l *eventLog) record(payload int) *[]byte {
	n := eventLogHeader + payload
	if k := len(l.blocks); k == 0 || cap(l.blocks[k-1])-len(l.blocks[k-1]) < n {
		size := eventLogFirst
		if k > 0 {
			size = min(eventLogBlock, 2*cap(l.blocks[k-1]))
		}
		l.blocks = append(l.blocks, make([]byte, 0, max(size, n)))
	}
	return &l.blocks[len(l.blocks)-1]
}

// appendPayload appends p to b: its length and its bytes, or, for a
// payload of eventLogBig bytes or more, the index of its copy in big, as the
// length's complement (a varint, negative).
func (l *eventLog) appendPayload(b []byte, p []byte) []byte {
	if len(p) >= eventLogBig {
		// A copy: the host's buffer is the binding's, which may reuse it
		// once the result is delivered.
		l.big = append(l.big, append([]byte(nil), p...))
		return binary.AppendVarint(b, -int64(len(l.big)))
	}
	return append(binary.AppendVarint(b, int64(len(p))), p...)
}

// call appends a call's record: its namespace and member indexes, and its
// argument, or, with logDigest, the argument's SHA-256.
func (l *eventLog) call(flags byte, ns, member int, arg []byte) {
	b := l.record(len(arg))
	*b = append(*b, recCall, flags)
	*b = binary.AppendUvarint(*b, uint64(ns))
	*b = binary.AppendUvarint(*b, uint64(member))
	if flags&logDigest != 0 {
		*b = append(*b, arg...)
	} else {
		*b = l.appendPayload(*b, arg)
	}
	l.events++
}

// turn appends a turn's record, at this fuel.
func (l *eventLog) turn(fuel uint64) {
	b := l.record(0)
	*b = binary.AppendUvarint(append(*b, recTurn), fuel)
	l.events++
}

// delivery appends a delivery's record: the call's ordinal or the timer's
// id, and the payload (nil for a timer or a secret call's).
func (l *eventLog) delivery(kind int, flags byte, id int32, payload []byte) {
	b := l.record(min(len(payload), eventLogBig))
	*b = append(*b, recDelivery, byte(kind), flags)
	*b = binary.AppendVarint(*b, int64(id))
	*b = l.appendPayload(*b, payload)
	l.deliveries++
}

// clock appends a clock reading's record.
func (l *eventLog) clock(id uint32, ns int64) {
	b := l.record(0)
	*b = binary.AppendUvarint(append(*b, recClock), uint64(id))
	*b = binary.AppendVarint(*b, ns)
	l.events++
}

// full appends the record of an event kept whole, at index i of the
// recorder's full.
func (l *eventLog) full(i int) {
	b := l.record(0)
	*b = binary.AppendUvarint(append(*b, recFull), uint64(i))
	l.events++
}

// logRecord is one record of an eventLog as eachRecord reads it; which
// fields are set depends on typ (see the record types).
type logRecord struct {
	typ, kind, flags byte
	a, b             int64 // call: ns, member; turn: fuel; delivery: id; clock: id, ns; full: index
	payload          []byte
	digest           []byte
}

// eachRecord calls f with each record in order.
func (l *eventLog) eachRecord(f func(*logRecord)) {
	var r logRecord
	for _, blk := range l.blocks {
		for len(blk) > 0 {
			r = logRecord{typ: blk[0]}
			blk = blk[1:]
			switch r.typ {
			case recCall:
				r.flags, blk = blk[0], blk[1:]
				r.a, blk = uvarint(blk)
				r.b, blk = uvarint(blk)
				if r.flags&logDigest != 0 {
					r.digest, blk = blk[:32:32], blk[32:]
				} else {
					r.payload, blk = l.readPayload(blk)
				}
			case recTurn, recFull:
				r.a, blk = uvarint(blk)
			case recDelivery:
				r.kind, r.flags, blk = blk[0], blk[1], blk[2:]
				r.a, blk = varint(blk)
				r.payload, blk = l.readPayload(blk)
			case recClock:
				r.a, blk = uvarint(blk)
				r.b, blk = varint(blk)
			}
			f(&r)
		}
	}
}

// readPayload reads a payload appendPayload wrote at the start of b.
func (l *eventLog) readPayload(b []byte) ([]byte, []byte) {
	n, b := varint(b)
	if n < 0 {
		return l.big[-n-1], b
	}
	return b[:n:n], b[n:]
}

// uvarint and varint read a varint the log wrote at the start of b.
func uvarint(b []byte) (int64, []byte) {
	v, n := binary.Uvarint(b)
	return int64(v), b[n:]
}

func varint(b []byte) (int64, []byte) {
	v, n := binary.Varint(b)
	return v, b[n:]
}
