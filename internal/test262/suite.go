package test262

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/coderun/coderun"
)

// suite is a test262 checkout: its harness files, read once.
type suite struct {
	Dir     string
	mu      sync.Mutex
	harness map[string]string
}

// newSuite checks that dir is a test262 checkout.
func newSuite(dir string) (*suite, error) {
	for _, p := range []string{"harness/assert.js", "test"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return nil, fmt.Errorf("test262: %s is not a test262 checkout: %w", dir, err)
		}
	}
	return &suite{Dir: dir, harness: map[string]string{}}, nil
}

// Harness returns the text of a harness file.
func (s *suite) Harness(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.harness[name]; ok {
		return h, nil
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "harness", name))
	if err != nil {
		return "", fmt.Errorf("test262: harness: %w", err)
	}
	s.harness[name] = string(b)
	return string(b), nil
}

// Select lists the tests under each of dirs (relative to test/), sorted,
// keeping every nth of each directory (the first, the n+1st, ...), and
// leaving out fixtures and paths that start with one of excluded.
func (s *suite) Select(dirs, excluded []string, every int) ([]string, error) {
	if every < 1 {
		every = 1
	}
	var out []string
	for _, d := range dirs {
		var files []string
		err := filepath.WalkDir(filepath.Join(s.Dir, "test", d), func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !strings.HasSuffix(p, ".js") || strings.Contains(p, "_FIXTURE") {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Join(s.Dir, "test"), p)
			rel = filepath.ToSlash(rel)
			for _, x := range excluded {
				if strings.HasPrefix(rel, x) {
					return nil
				}
			}
			files = append(files, rel)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("test262: listing %s: %w", d, err)
		}
		sort.Strings(files)
		for i := 0; i < len(files); i += every {
			out = append(out, files[i])
		}
	}
	return out, nil
}

// Test is one test, read and parsed.
type Test struct {
	Path   string // relative to test/
	Source string
	Meta   Meta
}

// load reads the test at path (relative to test/).
func (s *suite) load(path string) (*Test, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir, "test", path))
	if err != nil {
		return nil, err
	}
	m, err := parseMeta(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Test{Path: path, Source: string(b), Meta: m}, nil
}

// strict reports whether the engine alone runs the test in strict mode:
// unless the test is noStrict or raw. (test262 runs a test without
// either flag in both modes; coderun runs every program in strict mode,
// so the strict run is the one to compare.)
func (t *Test) strict() bool { return !t.Meta.Has("noStrict") && !t.Meta.Has("raw") }

// harness returns the harness files the test needs, concatenated.
func (s *suite) harnessFor(t *Test) (string, error) {
	if t.Meta.Has("raw") {
		return "", nil
	}
	names := []string{"assert.js", "sta.js"}
	if t.Meta.Has("async") {
		names = append(names, "doneprintHandle.js")
	}
	names = append(names, t.Meta.Includes...)
	var b strings.Builder
	for _, n := range names {
		h, err := s.Harness(n)
		if err != nil {
			return "", err
		}
		b.WriteString(h)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// scriptSource is the global script the engine alone runs: the harness
// and the test, after a "use strict" directive when the test runs strict.
func (s *suite) scriptSource(t *Test) (string, error) {
	h, err := s.harnessFor(t)
	if err != nil {
		return "", err
	}
	if t.strict() {
		return "\"use strict\";\n" + h + t.Source, nil
	}
	return h + t.Source, nil
}

// Async tests report their completion by calling print (from $DONE). In a
// program, a local print receives that report, and the program returns it
// once it arrives: coderun ends a run when the program's promise settles.
// The harness's asyncTest checks that $DONE is a property of the global
// object, which a declaration in a function body does not make: the prefix
// makes it one.
const (
	asyncPrefix = "let __t262Report; const __t262Done = new Promise((resolve) => { __t262Report = resolve; });\n" +
		"function print(message) { __t262Report(String(message)); }\n" +
		"globalThis.$DONE = $DONE;\n"
	asyncSuffix = "\n;return await __t262Done;\n"
)

// bodySource is the program coderun runs (and the Body mode wraps): the
// harness and the test, with the async prefix and suffix for an async
// test.
func (s *suite) bodySource(t *Test) (string, error) {
	h, err := s.harnessFor(t)
	if err != nil {
		return "", err
	}
	if t.Meta.Has("async") {
		return asyncPrefix + h + t.Source + asyncSuffix, nil
	}
	return h + t.Source, nil
}

// asyncComplete is what an async test reports when it passed.
const asyncComplete = "Test262:AsyncTestComplete"

// passed reports whether the outcome of a run of t is a pass, and why not.
// For an async test run as a program, the program's value is its report.
func (t *Test) passed(o outcome, program bool) (bool, string) {
	if n := t.Meta.Negative; n != nil {
		if o.Status == threw && o.Name == n.Type {
			return true, ""
		}
		return false, fmt.Sprintf("expected %s (%s), got %s", n.Type, n.Phase, describe(o))
	}
	if o.Status != completed {
		return false, describe(o)
	}
	if !t.Meta.Has("async") {
		return true, ""
	}
	if program {
		if o.Detail == `"`+asyncComplete+`"` {
			return true, ""
		}
		return false, "async report " + o.Detail
	}
	for _, line := range strings.Split(o.Output, "\n") {
		if line == asyncComplete {
			return true, ""
		}
	}
	return false, "no async completion; printed " + clip(o.Output, 200)
}

func describe(o outcome) string {
	switch o.Status {
	case threw:
		return "threw " + o.Name + ": " + clip(o.Detail, 300)
	case completed:
		return "completed"
	default:
		return o.Status.String() + ": " + clip(o.Detail, 300)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// needsHost matches a test (or harness) that uses the $262 host object,
// which neither mode provides.
var needsHost = regexp.MustCompile(`\$262\b`)

// Skip reports why a test is not run, or "".
func (s *suite) Skip(t *Test) string {
	if t.Meta.Has("module") {
		return "module"
	}
	if t.Meta.Negative != nil && t.Meta.Negative.Phase == "resolution" {
		return "module"
	}
	if needsHost.MatchString(t.Source) {
		return "$262"
	}
	for _, inc := range t.Meta.Includes {
		if h, err := s.Harness(inc); err == nil && needsHost.MatchString(h) {
			return "$262"
		}
	}
	return ""
}

// Coderun runs tests as coderun programs.
type Coderun struct {
	rt *coderun.Runtime
}

// newCoderun makes the runtime that runs the programs, with coderun's
// default configuration.
func newCoderun() (*Coderun, error) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return &Coderun{rt: rt}, nil
}

// Close releases the runtime.
func (c *Coderun) Close(ctx context.Context) error { return c.rt.Close(ctx) }

// run runs body as a program.
func (c *Coderun) run(ctx context.Context, body string) outcome {
	res, err := c.rt.Run(ctx, coderun.Request{Program: body})
	if err != nil {
		return outcome{Status: fault, Detail: err.Error()}
	}
	out := strings.Join(res.Logs, "\n")
	if res.Error == nil {
		return outcome{Status: completed, Detail: string(res.Value), Output: out}
	}
	if res.Error.Kind != coderun.Exception {
		return outcome{Status: fault, Detail: string(res.Error.Kind) + ": " + res.Error.Message, Output: out}
	}
	name, msg := errorName(res.Error.Message)
	return outcome{Status: threw, Name: name, Detail: msg, Output: out}
}

var errorHead = regexp.MustCompile(`^([A-Za-z_$][\w$]*)(?::\s|\n|$)`)

// errorName splits coderun's failure message, "Name: message" then the
// stack, into the name and the rest.
func errorName(msg string) (string, string) {
	m := errorHead.FindStringSubmatch(msg)
	if m == nil {
		return "(non-error)", msg
	}
	return m[1], msg[len(m[0]):]
}
