package runtime

import (
	"unsafe"

	"github.com/coderun/coderun/budget"
)

// logStore keeps a run's log entries so that the host allocates each byte of their text once,
// and holds nothing it has not charged to the run's memory first:
//
//   - short entries are packed into chunks that are never grown nor copied (a chunk doubles the
//     size of the one before, from logChunkMin to logChunkMax); a long one (logLongEntry bytes or
//     more) gets an allocation of its own;
//   - each entry is a string viewing its bytes, kept in blocks of logBlock entries (16 bytes an
//     entry); Outcome.Logs is one slice of the same strings, made once at the end, whose 16 bytes
//     an entry are charged as each entry is kept.
//
// The text an entry views is written once, before the entry is kept, and never again, so the
// strings are immutable as Go requires. The caller gets the strings themselves: nothing is copied
// when the run ends.
type logStore struct {
	chunk  []byte     // the chunk short entries go into
	blocks [][]string // the entries, logBlock to a block (the first block grows up to it)
	n      int        // entries kept
	mem    *budget.Memory
	held   int64 // what the store has charged to mem
}

// Sizes of the store's allocations.
const (
	logChunkMin  = 512
	logChunkMax  = 64 << 10
	logLongEntry = 8 << 10
	logBlock     = 1024
	// logEntryCost is what an entry costs besides its text and its string in a block (which
	// growBlocks charges): its string in Outcome.Logs.
	logEntryCost = int64(unsafe.Sizeof(""))
)

// room returns n bytes for the text of the next entry, charged to the run's memory, or false when
// they (and the entry's own cost) do not fit in it. The caller writes the text into the bytes and
// then calls keep with them. For a long entry (logLongEntry bytes or more) it only charges the
// allocation, which the caller makes (see textBuilder), and returns no bytes.
func (s *logStore) room(n int) ([]byte, bool) {
	if !s.charge(logEntryCost) {
		return nil, false
	}
	if len(s.blocks) == 0 || len(s.blocks[len(s.blocks)-1]) == cap(s.blocks[len(s.blocks)-1]) {
		if !s.growBlocks() {
			s.release(logEntryCost)
			return nil, false
		}
	}
	if n == 0 {
		return nil, true
	}
	if n >= logLongEntry {
		if !s.charge(longEntryCost(n)) {
			s.release(logEntryCost)
			return nil, false
		}
		return nil, true
	}
	if cap(s.chunk)-len(s.chunk) < n {
		size := max(min(max(2*cap(s.chunk), logChunkMin), logChunkMax), n)
		if !s.charge(int64(size)) {
			s.release(logEntryCost)
			return nil, false
		}
		s.chunk = make([]byte, 0, size)
	}
	start := len(s.chunk)
	s.chunk = s.chunk[:start+n]
	return s.chunk[start : start : start+n], true
}

// longEntryCost is what an allocation of n bytes takes in Go's heap, at most: objects of more
// than 32 KiB are whole 8 KiB pages, and the size classes below that round up by at most 1/8.
func longEntryCost(n int) int64 {
	if n <= 32<<10 {
		return int64(n + n/8)
	}
	return (int64(n) + 8<<10 - 1) &^ (8<<10 - 1)
}

// growBlocks makes room for the next entry in the blocks: a new block, or, while there is only
// one, a block twice as large (from 16 entries), so that a run with a few entries holds a few.
func (s *logStore) growBlocks() bool {
	size := logBlock
	if len(s.blocks) == 1 && cap(s.blocks[0]) < logBlock {
		size = min(2*cap(s.blocks[0]), logBlock)
	} else if len(s.blocks) == 0 {
		size = 16
	}
	if !s.charge(int64(size) * int64(unsafe.Sizeof(""))) {
		return false
	}
	block := make([]string, 0, size)
	if len(s.blocks) == 1 && cap(s.blocks[0]) < logBlock {
		s.blocks[0] = append(block, s.blocks[0]...) // the old one is at most 8 KiB, charged still
		return true
	}
	s.blocks = append(s.blocks, block)
	return true
}

// keep keeps text, the bytes room returned, which the caller filled, or the copy of a long entry
// the caller made, as the next entry.
func (s *logStore) keep(text string) {
	b := &s.blocks[len(s.blocks)-1]
	*b = append(*b, text)
	s.n++
}

// last returns the last entry's text.
func (s *logStore) last() string {
	b := s.blocks[len(s.blocks)-1]
	return b[len(b)-1]
}

// size returns the bytes the store has charged to the run's memory.
func (s *logStore) size() int64 { return s.held }

// strings returns the entries, as Outcome.Logs has them: the strings the store keeps, in one
// slice (charged already, as each entry was kept).
func (s *logStore) strings() []string {
	if len(s.blocks) == 1 {
		return s.blocks[0]
	}
	logs := make([]string, 0, s.n)
	for _, b := range s.blocks {
		logs = append(logs, b...)
	}
	return logs
}

func (s *logStore) charge(n int64) bool {
	if !s.mem.Charge(n) {
		return false
	}
	s.held += n
	return true
}

func (s *logStore) release(n int64) {
	s.mem.Release(n)
	s.held -= n
}
