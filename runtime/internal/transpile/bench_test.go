package transpile

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// benchSource is a 20-line TypeScript program.
const benchSource = `interface Item {
  id: number
  name: string
  tags?: string[]
}
type Result = { total: number; names: string[] }
const items: Item[] = await tools.list({ limit: 10 }) as Item[]
function summarize(xs: Item[]): Result {
  let total = 0
  const names: string[] = []
  for (const x of xs) {
    total += x.id
    names.push(x.name.toUpperCase())
  }
  return { total, names }
}
const r = summarize(items)
if (r.total > 100) throw new Error(` + "`too many: ${r.total}`" + `)
console.log('summary', r satisfies Result)
return r.names.filter((n): n is string => n.length > 0)
`

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		// A distinct source each time, as a cache miss would see.
		if _, err := Compile(benchSource + fmt.Sprintf("// %d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileRealistic compiles testdata/realistic.ts, whose shadowing bindings esbuild
// renames: with the names restored (see names.go), and with esbuild's names, for comparison.
func BenchmarkCompileRealistic(b *testing.B) {
	src, err := os.ReadFile("testdata/realistic.ts")
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name string
		opts Options
	}{{"restored", Options{}}, {"esbuild-names", Options{keepRenamed: true}}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := CompileContext(b.Context(), string(src)+fmt.Sprintf("// %d", i), bb.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCacheHit(b *testing.B) {
	c := NewCache(16, 1<<30)
	if _, err := c.Compile(b.Context(), benchSource, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Compile(b.Context(), benchSource, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrap(b *testing.B) {
	p, err := Compile(benchSource)
	if err != nil {
		b.Fatal(err)
	}
	params := []string{"tools", "ToolCallError"}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Wrap(params)
	}
}

func BenchmarkPosition(b *testing.B) {
	p, err := Compile(benchSource)
	if err != nil {
		b.Fatal(err)
	}
	js := p.Wrap(nil)
	line, col := 0, 0
	for i, l := range strings.Split(js, "\n") {
		if c := strings.Index(l, "throw"); c >= 0 {
			line, col = i+1, c+1
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if l, c, ok := p.Position(line, col); !ok || l != 18 || c != 20 {
			b.Fatalf("Position(%d, %d) = %d, %d, %v", line, col, l, c, ok)
		}
	}
}

// BenchmarkScan runs the scan phase (tokenize, checks, line index) over the densest 1 MiB shapes.
func BenchmarkScan(b *testing.B) {
	for _, name := range []string{"statements", "strings"} {
		var src string
		for _, s := range worstShapes {
			if s.name == name {
				src = s.build(1 << 20)
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				// Over the compile work allowed at 1 MiB: allowed for a larger program size, so
				// that the whole program is scanned.
				c := compilation{poll: newPoller(b.Context()), src: src, limits: workLimitsFor(1 << 30)}
				if _, _, err := c.scan(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
