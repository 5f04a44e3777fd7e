package transpile

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCacheSameProgram(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr bool
	}{
		{name: "success", src: "return 1"},
		{name: "failure", src: "enum E { A }", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(4, 1<<30)
			p1, err1 := c.Compile(t.Context(), tt.src, Options{})
			p2, err2 := c.Compile(t.Context(), tt.src, Options{})
			require.Equal(t, 1, c.Len())
			require.Same(t, p1, p2)
			if tt.wantErr {
				require.Error(t, err1)
				require.Same(t, err1.(*Error), err2.(*Error), "failures are cached too")
				return
			}
			require.NoError(t, err1)
			require.NoError(t, err2)
		})
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := NewCache(2, 1<<30)
	a, err := c.Compile(t.Context(), "return 'a'", Options{})
	require.NoError(t, err)
	b, err := c.Compile(t.Context(), "return 'b'", Options{})
	require.NoError(t, err)

	a2, err := c.Compile(t.Context(), "return 'a'", Options{}) // a is now the most recently used
	require.NoError(t, err)
	require.Same(t, a, a2)

	_, err = c.Compile(t.Context(), "return 'c'", Options{}) // evicts b
	require.NoError(t, err)
	require.Equal(t, 2, c.Len())

	a3, err := c.Compile(t.Context(), "return 'a'", Options{})
	require.NoError(t, err)
	require.Same(t, a, a3, "a survived")

	b2, err := c.Compile(t.Context(), "return 'b'", Options{})
	require.NoError(t, err)
	require.NotSame(t, b, b2, "b was evicted and compiled again")
	require.Equal(t, b.JS(), b2.JS())
	require.Equal(t, 2, c.Len())
}

func TestCacheMinimumCapacity(t *testing.T) {
	for _, capacity := range []int{-1, 0, 1} {
		t.Run(fmt.Sprint(capacity), func(t *testing.T) {
			c := NewCache(capacity, 1<<30)
			p1, err := c.Compile(t.Context(), "return 1", Options{})
			require.NoError(t, err)
			p2, err := c.Compile(t.Context(), "return 1", Options{})
			require.NoError(t, err)
			require.Same(t, p1, p2)
			_, err = c.Compile(t.Context(), "return 2", Options{})
			require.NoError(t, err)
			require.Equal(t, 1, c.Len())
		})
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := NewCache(8, 1<<30)
	const sources = 12 // more than the capacity, so eviction runs concurrently too
	src := func(i int) string { return fmt.Sprintf("const x: number = %d\nreturn x * 2", i) }

	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				n := (g + i) % sources
				p, err := c.Compile(t.Context(), src(n), Options{})
				if err != nil {
					t.Error(err)
					return
				}
				js := p.Wrap([]string{"tools"})
				if _, _, ok := p.Position(3, 1); !ok {
					t.Errorf("no position in %s", js)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, c.Len(), 8)

	// Concurrent misses of one source all return the same *Program.
	c = NewCache(8, 1<<30)
	progs := make([]*Program, 16)
	for i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			progs[i], _ = c.Compile(t.Context(), "return 'same'", Options{})
		}()
	}
	wg.Wait()
	for _, p := range progs {
		require.Same(t, progs[0], p)
	}
}

func TestCacheBoundedByBytes(t *testing.T) {
	const budget = 2 << 20
	c := NewCache(256, budget)
	for i := range 256 {
		src := fmt.Sprintf("const id = %d\n", i) + strings.Repeat("x = [a.b(c), { d: -e }, `f${g}`]\n", 250)
		_, err := c.Compile(t.Context(), src, Options{})
		require.NoError(t, err)
		require.LessOrEqual(t, c.Bytes(), int64(budget))
	}
	require.Less(t, c.Len(), 256, "evicted by bytes, not by count")
	require.Greater(t, c.Len(), 4)

	// A program's cost counts what it really holds: for TypeScript, the source map too.
	p, err := Compile(strings.Repeat("x = [a.b(c), { d: -e }, `f${g}`] as T\n", 250))
	require.NoError(t, err)
	require.NotNil(t, p.smap)
	require.Greater(t, p.cost(), int64(len(p.JS())+len(p.smap.lines)*24))
}

func TestCacheCountsBytecode(t *testing.T) {
	c := NewCache(8, 1<<20)
	p, err := c.Compile(t.Context(), "return 1", Options{})
	require.NoError(t, err)
	before := c.Bytes()
	require.True(t, p.SetCompiled("tools", Bytecode{Code: make([]byte, 60<<10)}))
	require.Equal(t, before+compiledCost("tools", make([]byte, 60<<10)), c.Bytes())

	// Bytecode that no longer fits evicts the least recently used programs, here the program
	// itself.
	small := NewCache(8, before+(10<<10))
	p, err = small.Compile(t.Context(), "return 1", Options{})
	require.NoError(t, err)
	require.Equal(t, 1, small.Len())
	require.True(t, p.SetCompiled("tools", Bytecode{Code: make([]byte, 60<<10)}))
	require.Equal(t, 0, small.Len())
	require.Equal(t, int64(0), small.Bytes())
	require.True(t, p.SetCompiled("more", Bytecode{Code: make([]byte, 60<<10)}), "an evicted program still works")
	require.Equal(t, int64(0), small.Bytes())
}

// TestCacheBoundedWithLargeBytecode: programs keeping bytecode up to
// maxCompiledBytes each, several keys each, never take the cache past its
// byte budget.
func TestCacheBoundedWithLargeBytecode(t *testing.T) {
	const budget = 10 << 20
	c := NewCache(256, budget)
	for i := range 5 {
		p, err := c.Compile(t.Context(), fmt.Sprintf("return %d", i), Options{})
		require.NoError(t, err)
		for _, key := range []string{"", "tools"} {
			require.True(t, p.SetCompiled(key, Bytecode{Code: make([]byte, maxCompiledBytes)}))
			require.LessOrEqual(t, c.Bytes(), int64(budget))
		}
	}
	require.Less(t, c.Len(), 5, "programs were evicted by their bytecode's bytes")
}
