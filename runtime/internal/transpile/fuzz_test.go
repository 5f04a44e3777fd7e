package transpile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCompile: for any program text, Compile returns a Program or an *Error, never panics or
// overflows its stack, and its output stays linear in its input. The seed corpus
// (testdata/fuzz/FuzzCompile) holds small versions of the deep and backtracking shapes, and of
// the shapes esbuild reports many diagnostics for, and programs where a "/" after "}", a type or
// a keyword would hide brackets if misread (slashCases); see TestWriteFuzzSeeds.
func FuzzCompile(f *testing.F) {
	f.Add("return 1")
	f.Add("const m = new Map<string, number>(); return m.size < 1 ? [1] : {a: 1}")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Compile(src)
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
