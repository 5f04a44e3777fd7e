package transpile

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"sync"
	"unsafe"
)

// Cache is a bounded, concurrency-safe cache of compiled programs keyed by the SHA-256 of the
// source and of the limits it was compiled under (Options.MaxProgramBytes), so that a result is
// never served under limits other than its own. Failures are cached too (not a compilation stopped by its context). It holds at most
// capacity entries whose costs (see Program.cost) add up to at most maxBytes, counting the engine
// bytecode that Program.SetCompiled adds later; when over either bound, the least recently used
// entries are evicted.
type Cache struct {
	mu       sync.Mutex
	capacity int
	maxBytes int64
	bytes    int64      // the sum of the entries' costs
	order    *list.List // of *cacheEntry, most recently used first
	entries  map[[sha256.Size]byte]*list.Element
}

type cacheEntry struct {
	key  [sha256.Size]byte
	prog *Program
	err  error
	cost int64
}

// entryOverhead approximates what an entry costs besides its program or error: the map slot, the
// list element, the entry and the Program struct.
const entryOverhead = 512

// NewCache returns a cache holding up to capacity compiled programs (at least 1) costing up to
// maxBytes in all.
func NewCache(capacity int, maxBytes int64) *Cache {
	return &Cache{
		capacity: max(1, capacity),
		maxBytes: maxBytes,
		order:    list.New(),
		entries:  make(map[[sha256.Size]byte]*list.Element),
	}
}

// Compile returns the cached result of CompileContext(ctx, src, opts), compiling src on a miss.
// Concurrent misses for the same source may compile it more than once, but all of them return
// the same *Program. A result larger than the whole cache is returned but not kept.
func (c *Cache) Compile(ctx context.Context, src string, opts Options) (*Program, error) {
	key := cacheKey(src, opts)
	if e, ok := c.get(key); ok {
		return e.prog, e.err
	}
	prog, err := CompileContext(ctx, src, opts)
	var cerr *Error
	if err != nil && !errors.As(err, &cerr) {
		return nil, err // stopped by ctx: nothing to keep
	}
	e := &cacheEntry{key: key, prog: prog, err: err, cost: entryOverhead}
	if prog != nil {
		e.cost += prog.cost()
	} else {
		e.cost += int64(len(cerr.Message))
	}
	e = c.put(e)
	return e.prog, e.err
}

// Lookup returns the cached result of compiling src with opts, if there is one.
func (c *Cache) Lookup(src string, opts Options) (*Program, error, bool) {
	e, ok := c.get(cacheKey(src, opts))
	if !ok {
		return nil, nil, false
	}
	return e.prog, e.err, true
}

// cacheKey is the key of src compiled with opts: the SHA-256 of the source's SHA-256 followed by
// the limits it is compiled under. Hashing the source alone first, as before the limits existed,
// keeps a look-up from copying the source.
func cacheKey(src string, opts Options) [sha256.Size]byte {
	// The source is hashed in place: a copy would cost the host the program's size at every
	// look-up, uncharged.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(src), len(src)))
	var b [sha256.Size + 8]byte
	copy(b[:], sum[:])
	binary.LittleEndian.PutUint64(b[sha256.Size:], uint64(workLimitsFor(opts.MaxProgramBytes).programBytes))
	return sha256.Sum256(b[:])
}

// Len reports the number of cached entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Bytes reports the summed cost of the cached entries.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

func (c *Cache) get(key [sha256.Size]byte) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry), true
}

// put inserts e unless an entry for its key arrived meanwhile, and returns the entry now cached
// (or e itself, not kept, when it alone is larger than the cache).
func (c *Cache) put(e *cacheEntry) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[e.key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry)
	}
	if e.cost > c.maxBytes {
		return e
	}
	if e.prog != nil {
		e.prog.owner.Store(&programOwner{cache: c, key: e.key})
	}
	c.entries[e.key] = c.order.PushFront(e)
	c.bytes += e.cost
	c.evict()
	return e
}

// grow adds delta to the cost of p's entry, if p is still cached, and evicts what no longer fits.
func (c *Cache) grow(key [sha256.Size]byte, p *Program, delta int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok || el.Value.(*cacheEntry).prog != p {
		return
	}
	el.Value.(*cacheEntry).cost += delta
	c.bytes += delta
	c.evict()
}

// evict removes the least recently used entries until the cache is within its bounds.
func (c *Cache) evict() {
	for c.order.Len() > c.capacity || c.bytes > c.maxBytes {
		oldest := c.order.Back()
		e := oldest.Value.(*cacheEntry)
		c.order.Remove(oldest)
		delete(c.entries, e.key)
		c.bytes -= e.cost
	}
}
