package runtime

import (
	"math"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/serialize"
)

// logStore keeps a run's log entries compactly: their texts one after
// another in one buffer, and where each ends. An entry costs its text and 4
// bytes, against the at least 3 bytes (quotes and comma) and the text's
// JSON cost that the output ledger charges for it; both buffers grow by half
// their size, so that the store never holds more than twice the ledger's
// bytes plus its first capacities. What it holds is charged to the run's
// memory as it grows. Outcome.Logs, one string per entry, is made once, at
// the end (strings).
type logStore struct {
	text []byte
	ends []uint32 // ends[i] is the end of entry i in text
	mem  *budget.Memory
}

// First capacities of the two buffers.
const (
	logTextMin    = 256
	logEntriesMin = 16
)

// add keeps the text t of the log entry b (see serialize.LogText). It
// reports false, keeping nothing, when the text or its end does not fit in
// the run's memory.
func (s *logStore) add(t serialize.LogText, b []byte) bool {
	if len(s.ends) == cap(s.ends) && !s.growEnds() {
		return false
	}
	n := t.Len(b)
	if cap(s.text)-len(s.text) < n && !s.growText(n) {
		return false
	}
	if len(s.text)+n > math.MaxUint32 {
		return false
	}
	s.text = t.AppendTo(s.text, b)
	s.ends = append(s.ends, uint32(len(s.text)))
	return true
}

// growText makes room for n more bytes of text.
func (s *logStore) growText(n int) bool {
	need := len(s.text) + n
	newCap := max(need, cap(s.text)+cap(s.text)/2, logTextMin)
	if !s.mem.Charge(int64(newCap - cap(s.text))) {
		return false
	}
	text := make([]byte, len(s.text), newCap)
	copy(text, s.text)
	s.text = text
	return true
}

// growEnds makes room for one more entry.
func (s *logStore) growEnds() bool {
	newCap := max(cap(s.ends)+cap(s.ends)/2, logEntriesMin)
	if !s.mem.Charge(int64(newCap-cap(s.ends)) * 4) {
		return false
	}
	ends := make([]uint32, len(s.ends), newCap)
	copy(ends, s.ends)
	s.ends = ends
	return true
}

// last returns a copy of the last entry's text.
func (s *logStore) last() string {
	start := uint32(0)
	if n := len(s.ends); n > 1 {
		start = s.ends[n-2]
	}
	return string(s.text[start:s.ends[len(s.ends)-1]])
}

// size returns the bytes the store holds.
func (s *logStore) size() int64 { return int64(cap(s.text)) + 4*int64(cap(s.ends)) }

// strings returns the entries, as Outcome.Logs has them: substrings of one
// copy of the text.
func (s *logStore) strings() []string {
	all := string(s.text)
	logs := make([]string, len(s.ends))
	start := uint32(0)
	for i, end := range s.ends {
		logs[i] = all[start:end]
		start = end
	}
	return logs
}
