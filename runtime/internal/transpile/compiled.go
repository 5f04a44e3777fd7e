package transpile

import (
	"crypto/sha256"
	"sync"
	"unsafe"
)

// Bounds of what a Program keeps in Compiled: a caller that runs one program
// with ever new binding names, or very large programs, must not grow a
// program without bound. The Cache holding the program counts what it adds
// and evicts by bytes, so the size bound only keeps one program's share of
// it in proportion: four times the default MaxProgramBytes, so that a
// program of up to that size (a 1 MB data literal, say) is compiled once,
// like any other. A program's bytecode is about twice its text: it holds the
// function's source text (for Function.prototype.toString) besides the
// constants.
const (
	maxCompiled      = 4
	maxCompiledBytes = 4 << 20
)

// compiledScripts maps a parameter list to the bytecode of Wrap's result.
type compiledScripts struct {
	mu sync.Mutex
	m  map[string]Bytecode
}

// Bytecode is the engine's compilation of a program's script.
type Bytecode struct {
	// Code is the engine's bytecode.
	Code []byte
	// Fuel is what compiling it spent, which every run that evaluates it is charged.
	Fuel uint64
}

// Compiled returns the bytecode SetCompiled stored under key, which
// identifies the parameter list given to Wrap. An engine compiles a
// program's script once and evaluates its bytecode in every later run.
// The bytes are shared: callers must not modify them.
func (p *Program) Compiled(key string) (Bytecode, bool) {
	p.compiled.mu.Lock()
	defer p.compiled.mu.Unlock()
	b, ok := p.compiled.m[key]
	return b, ok
}

// SetCompiled stores bytecode b for key (see Compiled) and reports whether
// it did: it does not when b.Code is larger than 4 MiB or the program already
// holds bytecode for 4 other keys. b.Code must not be modified afterwards.
func (p *Program) SetCompiled(key string, b Bytecode) bool {
	p.compiled.mu.Lock()
	defer p.compiled.mu.Unlock()
	if _, ok := p.compiled.m[key]; ok {
		return true
	}
	if len(b.Code) > maxCompiledBytes || len(p.compiled.m) >= maxCompiled {
		return false
	}
	if p.compiled.m == nil {
		p.compiled.m = make(map[string]Bytecode)
	}
	p.compiled.m[key] = b
	if o := p.owner.Load(); o != nil {
		// The cache's lock is taken after the program's, never the other way around.
		o.cache.grow(o.key, p, compiledCost(key, b.Code))
	}
	return true
}

// compiledCost is what one stored bytecode costs: its bytes, its key and the map slot.
func compiledCost(key string, b []byte) int64 { return int64(len(key)+len(b)) + 64 }

// programOwner is the cache entry holding a program, told when the program grows.
type programOwner struct {
	cache *Cache
	key   [sha256.Size]byte
}

// cost approximates the bytes p holds: its JS, the line table, the source map's segments and the
// bytecode stored so far.
func (p *Program) cost() int64 {
	n := int64(len(p.js)) + int64(cap(p.lines))*16
	if p.smap != nil {
		n += int64(cap(p.smap.lines)) * 24
		for _, segs := range p.smap.lines {
			n += int64(cap(segs)) * int64(unsafe.Sizeof(segment{}))
		}
	}
	p.compiled.mu.Lock()
	defer p.compiled.mu.Unlock()
	for k, b := range p.compiled.m {
		n += compiledCost(k, b.Code)
	}
	return n
}
