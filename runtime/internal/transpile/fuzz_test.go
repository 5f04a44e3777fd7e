package transpile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzCompile: for any program text, Compile returns a Program or an *Error, never panics or
// overflows its stack, its output stays linear in its input, and it stays within time and memory
// bounds linear in its input (compileTimeBound, compileAllocBound): generous, so that they fail
// only on the blow-ups a pass that is quadratic or exponential in some shape would show. The seed corpus
// (testdata/fuzz/FuzzCompile) holds small versions of the deep and backtracking shapes, and of
// the shapes esbuild reports many diagnostics for, and programs where a "/" after "}", a type or
// a keyword would hide brackets if misread (slashCases); see TestWriteFuzzSeeds.
func FuzzCompile(f *testing.F) {
	f.Add("return 1")
	f.Add("const m = new Map<string, number>(); return m.size < 1 ? [1] : {a: 1}")
	f.Add("let \u1c89 = 1, a\u0897 = `\u1c89`; class C { #\\u{10D4A}\\u0897 = 2 } // \u1c89\nreturn \\u1C89")
	f.Fuzz(func(t *testing.T, src string) {
		before, start := heapAllocated(), time.Now()
		p, err := Compile(src)
		elapsed, allocated := time.Since(start), heapAllocated()-before
		if bound := compileTimeBound(len(src)); elapsed > bound {
			t.Fatalf("compiling %d bytes took %v, over %v", len(src), elapsed, bound)
		}
		if bound := compileAllocBound(len(src)); allocated > bound {
			t.Fatalf("compiling %d bytes allocated %d bytes, over %d", len(src), allocated, bound)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if n := len(p.JS()); n > 8*len(src)+256 {
			t.Fatalf("output of %d bytes for %d bytes of input", n, len(src))
		}
	})
}

// compileTimeBound is the longest FuzzCompile lets a compilation of n bytes take: a second, plus
// 20 µs a byte. Compilations take about 0.1 µs a byte, a millisecond for the smallest program.
func compileTimeBound(n int) time.Duration { return time.Second + time.Duration(n)*20*time.Microsecond }

// compileAllocBound is the most FuzzCompile lets a compilation of n bytes allocate: 16 MiB, plus
// 2 KiB a byte. The most measured is about 1.3 KiB a byte (a program of arrow functions), and
// 0.7 MiB for the smallest program; 10,000 nested "{}" once allocated 1.45 GiB for 19 KB.
func compileAllocBound(n int) uint64 { return 16<<20 + uint64(n)*2048 }

// heapAllocated returns the bytes allocated on the heap since the process started, without
// stopping the world (runtime.ReadMemStats would, on every execution of the fuzz target).
func heapAllocated() uint64 {
	s := [1]metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s[:])
	return s[0].Value.Uint64()
}

// TestWriteFuzzSeeds writes the seed corpus of FuzzCompile when CODERUN_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("CODERUN_WRITE_SEEDS") == "" {
		t.Skip("set CODERUN_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzCompile")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzCompile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range worstShapes {
		src := s.repeat(MaxNesting + 10)
		if s.levels > 0 {
			src = s.build(s.levels*(len(s.pre)+len(s.post)) + 1024)
		}
		if !utf8.ValidString(src) {
			t.Fatal(s.name)
		}
		body := "go test fuzz v1\nstring(" + strconv.Quote(src) + ")\n"
		name := strings.NewReplacer(" ", "-", ",", "").Replace(s.name)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, c := range slashCases {
		for variant := range 2 {
			src := hostileSlash(c.src, c.want, MaxNesting+10, variant)
			body := "go test fuzz v1\nstring(" + strconv.Quote(src) + ")\n"
			name := fmt.Sprintf("slash-%02d-%d", k, variant)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, d := range diagShapes {
		src := d.build(512)
		body := "go test fuzz v1\nstring(" + strconv.Quote(src) + ")\n"
		name := "diag-" + strings.NewReplacer(" ", "-", ",", "", ".", "").Replace(d.name)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
