package transpile

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// Cache is a bounded, concurrency-safe cache of compiled programs keyed by the SHA-256 of the
// source. Failures are cached too. When full, the least recently used entry is evicted.
type Cache struct {
	mu       sync.Mutex
	capacity int
	order    *list.List // of *cacheEntry, most recently used first
	entries  map[[sha256.Size]byte]*list.Element
}

type cacheEntry struct {
	key  [sha256.Size]byte
	prog *Program
	err  error
}

// NewCache returns a cache holding up to capacity compiled programs (at least 1).
func NewCache(capacity int) *Cache {
	return &Cache{
		capacity: max(1, capacity),
		order:    list.New(),
		entries:  make(map[[sha256.Size]byte]*list.Element),
	}
}

// Compile returns the cached result of Compile(src), compiling src on a miss. Concurrent misses
// for the same source may compile it more than once, but all of them return the same *Program.
func (c *Cache) Compile(src string) (*Program, error) {
	key := sha256.Sum256([]byte(src))
	if e, ok := c.get(key); ok {
		return e.prog, e.err
	}
	prog, err := Compile(src)
	e := c.put(&cacheEntry{key: key, prog: prog, err: err})
	return e.prog, e.err
}

// Len reports the number of cached entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
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

// put inserts e unless an entry for its key arrived meanwhile, and returns the entry now cached.
func (c *Cache) put(e *cacheEntry) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[e.key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry)
	}
	c.entries[e.key] = c.order.PushFront(e)
	for c.order.Len() > c.capacity {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cacheEntry).key)
	}
	return e
}
