package test262

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// defaultSubset is the measured subset (docs/test262.md): every third test
// (by path) of each of these directories under test/, but for excluded.
var defaultSubset = []string{"built-ins", "language", "annexB"}

const defaultEvery = 3

// excluded are left out of every selection: the generated Unicode property
// tests of the regular expression engine (about 430, 2 to 4 s each, half
// of a whole run), which involve nothing of coderun's seam.
var excluded = []string{"built-ins/RegExp/property-escapes/generated/"}

// TestTest262 measures the default subset (or CODERUN_TEST262_DIRS, a comma list
// of dir or dir:every) of the test262 checkout that CODERUN_TEST262 names,
// one test at a time, and writes every result as a JSON line to
// CODERUN_TEST262_OUT (default: test262-results.jsonl in the temporary
// directory). It is skipped when CODERUN_TEST262 is not set.
func TestTest262(t *testing.T) {
	dir := os.Getenv("CODERUN_TEST262")
	if dir == "" {
		t.Skip("set CODERUN_TEST262 to a test262 checkout to measure (docs/test262.md)")
	}
	ctx := context.Background()
	suite, err := newSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := selectTests(suite, os.Getenv("CODERUN_TEST262_DIRS"))
	if err != nil {
		t.Fatal(err)
	}
	cache, _ := os.UserCacheDir()
	if cache != "" {
		cache = filepath.Join(cache, "coderun", "test262-wazero")
	}
	engine, err := newEngine(ctx, cache)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(ctx)
	cr, err := newCoderun()
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close(ctx)
	outPath := os.Getenv("CODERUN_TEST262_OUT")
	if outPath == "" {
		outPath = filepath.Join(os.TempDir(), "test262-results.jsonl")
	}
	f, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()

	r := &runner{Suite: suite, Engine: engine, Coderun: cr}
	sum := summary{}
	var machinery []Result
	start := time.Now()
	for i, p := range paths {
		t0 := time.Now()
		res, err := r.run(ctx, p)
		if d := time.Since(t0); d > 2*time.Second {
			t.Logf("slow: %s took %v", p, d.Round(time.Millisecond))
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		sum.Add(res)
		if res.Class == Machinery {
			machinery = append(machinery, res)
		}
		if res.Class != pass && res.Class != skipped {
			b, _ := json.Marshal(res)
			w.Write(append(b, '\n'))
		}
		if (i+1)%1000 == 0 {
			t.Logf("%d/%d tests, %v", i+1, len(paths), time.Since(start).Round(time.Second))
		}
	}
	t.Logf("%d tests in %v; results in %s", len(paths), time.Since(start).Round(time.Second), outPath)
	classes := make([]string, 0, len(sum))
	for c := range sum {
		classes = append(classes, string(c))
	}
	sort.Strings(classes)
	for _, c := range classes {
		t.Logf("%-34s %6d", c, sum[Class(c)])
	}
	for _, m := range machinery {
		t.Logf("machinery: %s: %s", m.Path, m.Why)
	}
}

// selectTests lists the tests of spec (dir or dir:every, comma-separated),
// or of defaultSubset when spec is empty.
func selectTests(s *suite, spec string) ([]string, error) {
	type part struct {
		dir   string
		every int
	}
	var parts []part
	if spec == "" {
		for _, d := range defaultSubset {
			parts = append(parts, part{d, defaultEvery})
		}
	}
	for _, item := range strings.Split(spec, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		d, n, found := strings.Cut(item, ":")
		every := 1
		if found {
			var err error
			if every, err = strconv.Atoi(n); err != nil || every < 1 {
				return nil, fmt.Errorf("bad every in %q", item)
			}
		}
		parts = append(parts, part{d, every})
	}
	var out []string
	for _, p := range parts {
		files, err := s.Select([]string{p.dir}, excluded, p.every)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}
