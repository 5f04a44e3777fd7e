package linearmem

import (
	"cmp"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

var _ experimental.MemoryAllocator = (*Pool)(nil)

// Defaults of PoolOptions.
const (
	// defaultMaxKeepBytes is the default PoolOptions.MaxKeepBytes.
	defaultMaxKeepBytes = 8 << 20
)

// PoolOptions configure a Pool. The zero value selects the defaults.
type PoolOptions struct {
	// MaxIdle is how many freed memories the pool keeps for reuse, scrubbed
	// or waiting to be. When a memory is freed while MaxIdle are kept, the
	// least recently freed one is evicted: unmapped by the pool's
	// goroutine. 0 selects
	// 2×runtime.GOMAXPROCS(0) as of NewPool; a negative value keeps none
	// (every Free unmaps, as with NewAllocator).
	MaxIdle int
	// MaxKeepBytes bounds what a kept memory holds on to: when a memory that
	// committed more than MaxKeepBytes (rounded down to the OS page size) is
	// freed, its pages above that are released with madvise(MADV_DONTNEED)
	// and made inaccessible again, and the next user commits them anew if it
	// grows that far. 0 selects defaultMaxKeepBytes.
	MaxKeepBytes uint64
	// Background moves scrubbing off Free: Free only queues the memory,
	// and a goroutine of the pool, started when there is work and ending
	// when there is none, scrubs it. (That goroutine always does the
	// unmapping of evicted memories, which can take milliseconds.) Until
	// it has, the memory is not reused unless the pool is full, in which
	// case Allocate scrubs it itself. By default Free scrubs the memory
	// on the goroutine that calls it (wazero calls Free when the module is
	// closed), which is simpler and, on small or busy machines where a
	// new goroutine can wait a millisecond for a processor, as fast; a
	// caller that wants the cost off its critical path can close the
	// module on a goroutine of its own. Either way, a memory that committed
	// more than MaxKeepBytes is scrubbed (and trimmed) by the goroutine.
	Background bool
	// PopulateGrowth makes the pages a memory.grow adds resident at once
	// (on Linux, with one madvise(MADV_POPULATE_WRITE)), instead of one page
	// fault at a time as the guest first touches them: on some virtual
	// machines a first-touch fault costs ten times a populated page, and a
	// guest's bulk copy into fresh pages cannot be interrupted. The cost is
	// that pages the guest grows into but never writes are resident too
	// (see PopulateAfter). The sizing of a memory at instantiation is not a
	// grow.
	PopulateGrowth bool
	// PopulateAfter, with PopulateGrowth, leaves the first PopulateAfter
	// bytes by which a memory grows past its size at instantiation to be
	// faulted in page by page as the guest first touches them; only the
	// growth beyond them is populated. A guest whose heap grows a little
	// then holds resident only the pages it writes, while one that grows
	// a lot still gets its bulk populated, and the faults an
	// uninterruptible copy can take stay bounded by PopulateAfter. Zero
	// populates every grow.
	PopulateAfter uint64
	// ScrubOnAllocate moves scrubbing from Free to the Allocate that reuses
	// the memory, on the goroutine that calls it, without waking the pool's
	// goroutine (which still trims memories above MaxKeepBytes and unmaps
	// evicted ones). It suits a user that allocates ahead of time, off its
	// critical path, and frees on it. It takes precedence over Background.
	ScrubOnAllocate bool
	// Overwritten lists byte ranges of linear memory that every user of
	// the pool's memories overwrites in full before anything reads them:
	// the active data segments of the one module instantiated with the
	// pool, which wazero copies into a memory when it instantiates the
	// module, before any code of it runs. Scrubbing leaves the pages that lie
	// wholly inside one of them as the previous user left them (a resident
	// page is not cleared; a non-resident one is still dropped), since the
	// next instantiation rewrites every byte of them anyway; every other
	// byte is scrubbed as usual. A pool with Overwritten must serve only
	// instantiations of that module: a memory it hands out reads as zero
	// outside these pages only.
	Overwritten []Span
	// Image, if set, is the bytes every memory the pool hands out starts
	// with: each reserved memory maps it over its first Image.Len() bytes
	// (see Image), and scrubbing restores the pages the last user wrote
	// of them to the image's bytes, instead of clearing them. The pool does not
	// close it; close it after the pool. A memory whose reservation failed
	// (one backed by the Go heap) gets a copy of it instead.
	Image *Image
}

// Span is a range of bytes of a linear memory: [Off, Off+Len).
type Span struct{ Off, Len uint64 }

// pageRange is a range of whole pages, [first, end), by page index.
type pageRange struct{ first, end uint64 }

// wholePages returns the pages that lie wholly inside one of spans, as
// sorted, merged ranges.
func wholePages(spans []Span, pageSize uint64) []pageRange {
	var rs []pageRange
	for _, sp := range spans {
		if sp.Len == 0 || sp.Off+sp.Len < sp.Off {
			continue
		}
		first, end := (sp.Off+pageSize-1)/pageSize, (sp.Off+sp.Len)/pageSize
		if first < end {
			rs = append(rs, pageRange{first, end})
		}
	}
	slices.SortFunc(rs, func(a, b pageRange) int { return cmp.Compare(a.first, b.first) })
	merged := rs[:0]
	for _, r := range rs {
		if n := len(merged); n > 0 && r.first <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, r.end)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// PoolStats are counters of a Pool.
type PoolStats struct {
	// Idle is the number of memories kept for reuse, including those not
	// scrubbed yet; at most PoolOptions.MaxIdle.
	Idle int
	// Pending is how many of Idle are not scrubbed yet.
	Pending int
	// Reused counts Allocates served from the pool, Fresh those that
	// reserved a new mapping.
	Reused, Fresh uint64
	// ScrubbedByAllocate counts the Reused that scrubbed a pending memory
	// themselves: with PoolOptions.Background, those that found no
	// scrubbed memory in a full pool (if it is a large share of Reused,
	// the pool's goroutine does not get to run in time); with
	// ScrubOnAllocate, every reuse; otherwise, the reuses of memories
	// freed after Memory.ScrubLater.
	ScrubbedByAllocate uint64
	// Unmapped counts memories the pool unmapped (evicted, freed after
	// Close, failed to scrub, or idle at Close). Unmapping by the pool's
	// goroutine is counted when it is done.
	Unmapped uint64
	// Trimmed counts memories whose pages above MaxKeepBytes were released.
	Trimmed uint64
	// ScrubbedBytes counts the bytes scrubbing went over: of each freed
	// memory, the pages up to the largest length its user grew it to, not
	// every page it has committed (a memory keeps the pages an earlier user
	// committed, up to MaxKeepBytes, already zero).
	ScrubbedBytes uint64
}

// Pool is an experimental.MemoryAllocator that reuses the reservations of
// freed memories. Its memories are those of Allocator (reserved once,
// committed on growth, never moved), except that Free returns the
// reservation to the pool, which scrubs it (see the package documentation)
// and hands it to a later Allocate with the same max. A reused memory keeps
// the pages the previous user made resident, zeroed, so that its next user
// does not pay a page fault for each of them again: on virtual machines a
// first-touch fault can cost tens of microseconds. (On platforms other than
// Linux, which has mincore to tell resident pages apart, scrubbing replaces
// all the committed pages with fresh ones: reuse then saves system calls,
// not faults.)
//
// A Pool is safe for concurrent use. Close it when done: Close unmaps the
// idle memories and waits for the pool's goroutine; memories freed later are
// unmapped directly. A Pool that becomes unreachable without Close is closed
// by a runtime cleanup.
type Pool struct {
	s       *poolState
	cleanup runtime.Cleanup
}

// region is a freed reservation. Bytes [0, committed) are readable and
// writable, the rest inaccessible; the rest reads as zero once made
// accessible (never committed, or dropped by trim), and so does
// [0, committed) once clean. Of the committed bytes, only [0, dirty) can
// have been written since the region was last clean: dirty is the
// page-rounded largest length its last user's memory had, beyond which
// neither the guest nor the host could reach.
type region struct {
	mapping   []byte
	committed uint64
	dirty     uint64
	clean     bool
	// later: not clean, and left for the Allocate that takes it to scrub
	// (Memory.ScrubLater).
	later bool
}

// poolState is the Pool, apart from the handle that the cleanup watches.
type poolState struct {
	pageSize uint64
	maxIdle  int
	keep     uint64
	inline   bool
	populate bool
	// populateAfter is PoolOptions.PopulateAfter.
	populateAfter uint64
	lazy          bool // ScrubOnAllocate
	// keepPages are the pages scrubbing leaves as they are (Overwritten).
	keepPages []pageRange
	// image starts every memory (PoolOptions.Image); nil for none.
	image *Image
	// pagemap is /proc/self/pagemap (scrubByPageMap), nil where it cannot
	// be read; closed with the pool.
	pagemap *os.File

	mu sync.Mutex
	// idle holds the kept regions, least recently freed first.
	idle []*region
	// scrubbing counts kept regions being scrubbed, out of idle: they
	// count towards maxIdle.
	scrubbing int
	// doomed holds evicted regions for the goroutine to unmap.
	doomed  []*region
	working bool // the goroutine is running
	closed  bool
	worker  sync.WaitGroup
	stats   PoolStats
}

// NewPool returns a Pool. On platforms without mmap (Supported is false) its
// memories are backed by the Go heap, as Allocator's are when a reservation
// fails, and nothing is pooled.
func NewPool(opts PoolOptions) *Pool {
	s := &poolState{
		pageSize:      uint64(os.Getpagesize()),
		maxIdle:       opts.MaxIdle,
		keep:          opts.MaxKeepBytes,
		inline:        !opts.Background,
		populate:      opts.PopulateGrowth,
		populateAfter: opts.PopulateAfter,
		lazy:          opts.ScrubOnAllocate,
		image:         opts.Image,
		pagemap:       openPageMap(),
	}
	s.keepPages = wholePages(opts.Overwritten, s.pageSize)
	if s.maxIdle == 0 {
		s.maxIdle = 2 * runtime.GOMAXPROCS(0)
	}
	if s.keep == 0 {
		s.keep = defaultMaxKeepBytes
	}
	s.keep &^= s.pageSize - 1
	p := &Pool{s: s}
	p.cleanup = runtime.AddCleanup(p, func(s *poolState) { s.close(false) }, s)
	return p
}

// Allocate implements experimental.MemoryAllocator. It returns a kept
// memory whose reservation has the size a new one for max would have, with
// length 0 and every byte reading as zero, or else reserves a new one as
// Allocator.Allocate does (cap is ignored).
func (p *Pool) Allocate(cap, max uint64) experimental.LinearMemory {
	s := p.s
	if size, err := reservationSize(max, s.pageSize); err == nil {
		if r := s.take(size); r != nil {
			return newMapped(max, s.pageSize, r.mapping, r.committed, s)
		}
	}
	m, err := reserveMemory(max, s)
	if err != nil {
		return &Memory{max: max, image: s.image}
	}
	s.mu.Lock()
	s.stats.Fresh++
	s.mu.Unlock()
	return m
}

// Stats returns the pool's counters.
func (p *Pool) Stats() PoolStats {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Idle = len(s.idle) + s.scrubbing
	st.Pending = s.scrubbing
	for _, r := range s.idle {
		if !r.clean {
			st.Pending++
		}
	}
	return st
}

// Close unmaps the idle memories and waits until the pool's goroutine has
// finished; memories freed afterwards are unmapped by Free. The Pool can
// still allocate, without reuse. Close is idempotent.
func (p *Pool) Close() {
	p.cleanup.Stop()
	p.s.close(true)
}

func (s *poolState) close(wait bool) {
	s.mu.Lock()
	var drop []*region
	first := !s.closed
	if first {
		s.closed = true
		drop = append(s.idle, s.doomed...)
		s.idle, s.doomed = nil, nil
		s.stats.Unmapped += uint64(len(drop))
	}
	s.mu.Unlock()
	for _, r := range drop {
		_ = s.unmap(r.mapping)
	}
	if wait {
		s.worker.Wait()
	}
	if s.pagemap != nil && first {
		// A scrub still running (a Free racing Close) reads a closed
		// file, fails, and falls back to mincore.
		_ = s.pagemap.Close()
	}
}

// unmap unmaps b, a reservation of the pool's.
func (s *poolState) unmap(b []byte) error {
	if s.image != nil {
		return s.image.unmap(b)
	}
	return unmap(b)
}

// take removes and returns a kept region of the given reservation size,
// scrubbed, or nil. It prefers the most recently freed region left to it to
// scrub (Memory.ScrubLater), then the most recently freed clean one. Failing
// that, while the pool is not full it returns nil, so that a fresh memory is
// reserved and the pool grows until the goroutine's scrubbing keeps up with
// the frees; once the pool is full, it scrubs the most recently freed
// pending region itself, which costs far less than faulting in a fresh
// memory.
func (s *poolState) take(size uint64) *region {
	s.mu.Lock()
	found := -1
	// A memory freed after ScrubLater is taken first, so that its last
	// user's bytes do not stay in the pool while clean memories come and go.
	for i := len(s.idle) - 1; i >= 0; i-- {
		if r := s.idle[i]; r.later && uint64(len(r.mapping)) == size {
			found = i
			break
		}
	}
	for i := len(s.idle) - 1; i >= 0 && found < 0; i-- {
		if r := s.idle[i]; uint64(len(r.mapping)) == size {
			if s.lazy && !r.clean && r.committed > s.keep {
				continue // the pool's goroutine trims it
			}
			if r.clean {
				found = i
				break
			}
		}
	}
	for i := len(s.idle) - 1; i >= 0 && found < 0; i-- {
		if r := s.idle[i]; uint64(len(r.mapping)) == size && !(s.lazy && r.committed > s.keep) {
			found = i // the most recently freed pending one
		}
	}
	if found < 0 || !s.idle[found].clean && !s.lazy && !s.idle[found].later && len(s.idle)+s.scrubbing < s.maxIdle {
		s.mu.Unlock()
		return nil
	}
	r := s.idle[found]
	s.idle = append(s.idle[:found], s.idle[found+1:]...)
	if r.clean {
		s.stats.Reused++
		s.mu.Unlock()
		return r
	}
	s.mu.Unlock()
	ok := s.scrub(r)
	s.mu.Lock()
	if ok {
		s.stats.Reused++
		s.stats.ScrubbedByAllocate++
	} else {
		s.stats.Unmapped++
	}
	s.mu.Unlock()
	if !ok {
		_ = s.unmap(r.mapping)
		return nil
	}
	return r
}

// put takes a freed reservation: it keeps it for reuse (evicting the least
// recently freed kept one when maxIdle are kept) or unmaps it.
// Of the committed bytes, only [0, dirty) can have been written by the
// memory's last user. later leaves a kept reservation unscrubbed for the
// Allocate that takes it (Memory.ScrubLater).
func (s *poolState) put(mapping []byte, committed, dirty uint64, later bool) {
	later = later && committed <= s.keep
	r := &region{mapping: mapping, committed: committed, dirty: dirty, later: later}
	s.mu.Lock()
	if s.closed || s.maxIdle < 0 {
		s.stats.Unmapped++
		s.mu.Unlock()
		_ = s.unmap(mapping)
		return
	}
	var evict *region
	if len(s.idle)+s.scrubbing >= s.maxIdle {
		if len(s.idle) > 0 {
			evict = s.idle[0]
			s.idle = append(s.idle[:0], s.idle[1:]...)
		} else {
			evict, r = r, nil
		}
	}
	if evict != nil {
		// munmap of a populated mapping can take milliseconds.
		s.doomed = append(s.doomed, evict)
	}
	// A memory that grew past the keep size is handed to the pool's
	// goroutine even in inline mode: trimming a large resident heap takes
	// milliseconds (page frees), which would otherwise delay the end of the
	// run that used it.
	if s.inline && !s.lazy && !later && committed <= s.keep {
		if r != nil {
			s.scrubbing++
		}
		if evict != nil {
			s.startWorker()
		}
		s.mu.Unlock()
		if r != nil {
			s.finish(r, s.scrub(r))
		}
		return
	}
	if r != nil {
		s.idle = append(s.idle, r)
	}
	if !s.lazy && !later || evict != nil || committed > s.keep {
		s.startWorker()
	}
	s.mu.Unlock()
}

// startWorker starts the pool's goroutine unless it is running. s.mu must
// be held.
func (s *poolState) startWorker() {
	if !s.working {
		s.working = true
		s.worker.Add(1)
		go s.work()
	}
}

// finish keeps a region that was scrubbed (ok) while counted in scrubbing,
// or unmaps it.
func (s *poolState) finish(r *region, ok bool) {
	s.mu.Lock()
	s.scrubbing--
	if ok && !s.closed {
		r.clean, r.later = true, false
		s.idle = append(s.idle, r)
		s.mu.Unlock()
		return
	}
	s.stats.Unmapped++
	s.mu.Unlock()
	_ = s.unmap(r.mapping)
}

// work is the pool's goroutine: it unmaps evicted regions and, with
// Background, scrubs pending ones, oldest first, until there are none.
func (s *poolState) work() {
	defer s.worker.Done()
	for {
		s.mu.Lock()
		if len(s.doomed) > 0 {
			doomed := s.doomed
			s.doomed = nil
			s.mu.Unlock()
			for _, r := range doomed {
				_ = s.unmap(r.mapping)
			}
			s.mu.Lock()
			s.stats.Unmapped += uint64(len(doomed))
			s.mu.Unlock()
			continue
		}
		var r *region
		for i, c := range s.idle {
			if !c.clean {
				r = c
				s.idle = append(s.idle[:i], s.idle[i+1:]...)
				s.scrubbing++
				break
			}
		}
		if r == nil {
			s.working = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.finish(r, s.scrub(r))
	}
}

// scrub makes a freed region fit for reuse: it releases the committed pages
// above keep and makes them inaccessible again, then makes every committed
// byte read as zero: scrubPages over the bytes its last user could reach,
// since the rest are zero from the scrub before that use. It reports false
// if a system call failed; the region must then be unmapped.
func (s *poolState) scrub(r *region) bool {
	if r.committed > s.keep {
		tail := r.mapping[s.keep:r.committed]
		if zeroPages(tail) != nil || protectNone(tail) != nil {
			return false
		}
		r.committed = s.keep
		s.mu.Lock()
		s.stats.Trimmed++
		s.mu.Unlock()
	}
	end := min(r.dirty, r.committed)
	s.mu.Lock()
	s.stats.ScrubbedBytes += end
	s.mu.Unlock()
	if s.pagemap != nil && s.scrubByPageMap(r.mapping, end) {
		if s.image != nil {
			s.image.written.scrubbed()
		}
		return true
	}
	start := uint64(0)
	if s.image != nil {
		// The image's ranges are restored; the gaps between them and
		// the bytes after them are scrubbed.
		for _, ir := range s.image.ranges {
			if start < ir.off && start < end {
				gap := min(ir.off, end)
				if scrubPages(r.mapping[start:gap], s.pageSize, start/s.pageSize, s.keepPages) != nil {
					return false
				}
			}
			start = ir.off + uint64(len(ir.bytes))
		}
		s.image.restore(r.mapping)
		s.image.written.scrubbed()
	}
	if end <= start {
		return true
	}
	return scrubPages(r.mapping[start:end], s.pageSize, start/s.pageSize, s.keepPages) == nil
}
