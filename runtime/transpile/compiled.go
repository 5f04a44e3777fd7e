package transpile

import "sync"

// Bounds of what a Program keeps in Compiled: a caller that runs one program
// with ever new binding names, or very large programs, must not grow the
// cache without bound (at most 256 programs × 4 × 64 KiB).
const (
	maxCompiled      = 4
	maxCompiledBytes = 64 << 10
)

// compiledScripts maps a parameter list to the bytecode of Wrap's result.
type compiledScripts struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Compiled returns the bytecode SetCompiled stored under key, which
// identifies the parameter list given to Wrap. An engine compiles a
// program's script once and evaluates its bytecode in every later run.
// The bytes are shared: callers must not modify them.
func (p *Program) Compiled(key string) ([]byte, bool) {
	p.compiled.mu.Lock()
	defer p.compiled.mu.Unlock()
	b, ok := p.compiled.m[key]
	return b, ok
}

// SetCompiled stores bytecode b for key (see Compiled) and reports whether
// it did: it does not when b is larger than 64 KiB or the program already
// holds bytecode for 4 other keys. b must not be modified afterwards.
func (p *Program) SetCompiled(key string, b []byte) bool {
	p.compiled.mu.Lock()
	defer p.compiled.mu.Unlock()
	if _, ok := p.compiled.m[key]; ok {
		return true
	}
	if len(b) > maxCompiledBytes || len(p.compiled.m) >= maxCompiled {
		return false
	}
	if p.compiled.m == nil {
		p.compiled.m = make(map[string][]byte)
	}
	p.compiled.m[key] = b
	return true
}
