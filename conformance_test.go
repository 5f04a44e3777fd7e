package coderun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// The conformance cases live in testdata/conformance/*.txtar, each file a
// group of related cases in txtar form (a free-text comment, then sections
// "-- NAME --"). Each scenario of the contract (§8) that a program can
// express lives there. A case CASE is three sections:
//
//	-- CASE.ts --      the program, as the model would write it
//	-- CASE.config --  optional: "Field: value" lines that override Config
//	                   fields (durations as "500ms"), and "Bindings: tools"
//	                   to declare the standard tools namespace
//	-- CASE.want --    "key: value" lines, the expected result (see expectation)
//
// CASE.then.ts and CASE.then.want (then CASE.then.then…) are a following run
// on the same Runtime; it may have a config section holding only Bindings.
// In config and want sections, blank lines and lines starting with # are
// ignored. A want value is JSON (value: [1, 2], logs: ["a"]), or else a
// string as written (kind: exception, message: nope).

// conformanceCase is one step of a case: a program, how to run it, and the
// expected result.
type conformanceCase struct {
	name    string // CASE, CASE.then, …
	line    int    // of its program section
	program string
	config  coderun.Config // of the case's Runtime (first step only)
	tools   bool           // declare the standard "tools" namespace
	want    expectation
	hasWant bool
	then    *conformanceCase // a following run on the same Runtime
}

// expectation is a want section. Unset keys are not checked.
type expectation struct {
	Value              json.RawMessage `json:"value"`     // the value, compared as JSON
	NoValue            bool            `json:"noValue"`   // Value is nil
	Generated          string          `json:"generated"` // the value is generated[Generated]()
	Logs               []string        `json:"logs"`
	LogsNonEmpty       bool            `json:"logsNonEmpty"`
	LogCount           int             `json:"logCount"`
	WithinCap          bool            `json:"withinCap"` // logs and failure message fit MaxOutputBytes together
	Kind               string          `json:"kind"`      // the failure's kind; "" for success
	Message            *string         `json:"message"`
	MessagePrefix      string          `json:"messagePrefix"`
	MessageContains    []string        `json:"messageContains"`
	MessageNotContains []string        `json:"messageNotContains"`
}

// generated values too large to write in a case file.
var generated = map[string]func() string{
	"array-50000-sevens": func() string { return "[" + strings.TrimSuffix(strings.Repeat("7,", 50000), ",") + "]" },
	"nested-arrays-5000": func() string { return strings.Repeat("[", 5000) + strings.Repeat("]", 5000) },
	"string-x-1MiB":      func() string { return `"` + strings.Repeat("x", 1<<20) + `"` },
	"nested-arrays-3000": func() string { return strings.Repeat("[", 3000) + strings.Repeat("]", 3000) },
}

// aloneFiles are the conformance files whose programs recurse deep or
// spend fuel on one goroutine, calling no binding: the race detector finds
// nothing in them, so TestConformance leaves them to TestConformanceAlone,
// which skips under -race (scripts/test runs it without).
var aloneFiles = map[string]bool{"stack": true, "10-stack-overflow": true, "deep-return-5000": true, "fuel": true}

// TestConformance runs the contract's scenarios of testdata/conformance
// but aloneFiles'.
func TestConformance(t *testing.T) { runConformance(t, false) }

// TestConformanceAlone runs aloneFiles' scenarios.
func TestConformanceAlone(t *testing.T) {
	if raceEnabled {
		t.Skip("programs that recurse or spend fuel on one goroutine, calling no binding: -race finds nothing (scripts/test runs it without)")
	}
	runConformance(t, true)
}

// runConformance runs the scenarios of the files that are (alone) or are
// not aloneFiles.
func runConformance(t *testing.T, alone bool) {
	stale, err := filepath.Glob("testdata/conformance/*.json")
	require.NoError(t, err)
	require.Empty(t, stale, "conformance cases are .txtar files now (see conformance_test.go): convert these")
	files, err := filepath.Glob("testdata/conformance/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		cases, err := parseConformance(file, b)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		if aloneFiles[name] != alone {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					rt := newRuntimeConfig(t, c.config)
					for step := c; step != nil; step = step.then {
						where := fmt.Sprintf("%s:%s (line %d)", file, step.name, step.line)
						checkCase(located{T: t, where: where}, rt, c.config, step)
					}
				})
			}
		})
	}
}

// located is a *testing.T whose failures start with where a case is
// (file:case), for require.
type located struct {
	*testing.T
	where string
}

// Errorf implements require.TestingT.
func (l located) Errorf(format string, args ...any) {
	l.T.Helper()
	l.T.Errorf("%s: "+format, append([]any{l.where}, args...)...)
}

// txtarSection is one "-- NAME --" section of a txtar file.
type txtarSection struct {
	name string
	line int // of its marker
	data string
}

// parseTxtar splits a txtar file into its sections (the comment before the
// first one is dropped). A section's data ends with a newline unless empty.
func parseTxtar(data []byte) []txtarSection {
	var sections []txtarSection
	for i, line := range strings.Split(string(data), "\n") {
		if name, ok := txtarMarker(line); ok {
			sections = append(sections, txtarSection{name: name, line: i + 1})
		} else if len(sections) > 0 && (line != "" || i < strings.Count(string(data), "\n")) {
			sections[len(sections)-1].data += line + "\n"
		}
	}
	return sections
}

// txtarMarker reports whether line is a section marker "-- NAME --", and NAME.
func txtarMarker(line string) (string, bool) {
	if len(line) < len("-- x --") || !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

// parseConformance reads the cases of one txtar file, in file order. Errors
// name the file and line.
func parseConformance(file string, data []byte) ([]*conformanceCase, error) {
	p := caseParser{steps: map[string]*conformanceCase{}}
	for _, sec := range parseTxtar(data) {
		if err := p.section(sec); err != nil {
			return nil, fmt.Errorf("%s:%d: section %q: %w", file, sec.line, sec.name, err)
		}
	}
	for _, c := range p.cases {
		for step := c; step != nil; step = step.then {
			if !step.hasWant {
				return nil, fmt.Errorf("%s:%d: case %s has no %s.want section", file, step.line, step.name, step.name)
			}
		}
	}
	if len(p.cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", file)
	}
	return p.cases, nil
}

// caseParser collects the cases of one file, section by section.
type caseParser struct {
	cases []*conformanceCase          // first steps, in file order
	steps map[string]*conformanceCase // every step by name
	seen  map[string]bool             // section names
}

// section adds sec to its case's step.
func (p *caseParser) section(sec txtarSection) error {
	if p.seen[sec.name] {
		return errors.New("appears twice")
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[sec.name] = true
	name, kind, ok := cutLast(sec.name, ".")
	base, rest, _ := strings.Cut(name, ".")
	if !ok || base == "" || (rest != "" && strings.Join(strings.Split(rest, "."), "") != strings.Repeat("then", strings.Count(rest, ".")+1)) {
		return errors.New("want CASE.ts, CASE.config or CASE.want, where CASE has no dots but the .then of a following run")
	}
	c := p.steps[name]
	if c == nil {
		if kind != "ts" {
			return fmt.Errorf("comes before %s.ts", name)
		}
		c = &conformanceCase{name: name, line: sec.line, config: coderun.DefaultConfig()}
		if err := p.add(c, name == base); err != nil {
			return err
		}
	}
	switch kind {
	case "ts":
		c.program = strings.TrimSuffix(sec.data, "\n")
		return nil
	case "config":
		return parseConfig(sec.data, c, name == base)
	case "want":
		c.hasWant = true
		return parseWant(sec.data, &c.want)
	}
	return errors.New("want CASE.ts, CASE.config or CASE.want")
}

// add records the new step c: a case of its own when first, else the run
// that follows the step whose name it extends.
func (p *caseParser) add(c *conformanceCase, first bool) error {
	p.steps[c.name] = c
	if first {
		p.cases = append(p.cases, c)
		return nil
	}
	prev := p.steps[strings.TrimSuffix(c.name, ".then")]
	if prev == nil || prev.then != nil {
		return errors.New("a following run of no case")
	}
	prev.then = c
	return nil
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// keyValues parses the "key: value" lines of a config or want section,
// skipping blank lines and # comments, into (key, value) pairs in order.
func keyValues(data string) ([][2]string, error) {
	var kvs [][2]string
	seen := map[string]bool{}
	for line := range strings.Lines(data) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("line %q is not key: value", line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if seen[k] {
			return nil, fmt.Errorf("%s is set twice", k)
		}
		seen[k] = true
		kvs = append(kvs, [2]string{k, v})
	}
	return kvs, nil
}

// parseConfig reads a config section into c: Config fields (on the first
// step of a case only: they configure its Runtime) and Bindings.
func parseConfig(data string, c *conformanceCase, first bool) error {
	kvs, err := keyValues(data)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		k, v := kv[0], kv[1]
		if k == "Bindings" {
			if v != "tools" {
				return fmt.Errorf("Bindings: %q: the only namespace is tools", v)
			}
			c.tools = true
			continue
		}
		if !first {
			return fmt.Errorf("%s: a following run shares the first run's Config", k)
		}
		if err := setConfigField(&c.config, k, v); err != nil {
			return err
		}
	}
	return nil
}

// setConfigField sets cfg's field name from its text: a duration for a
// time.Duration, a decimal integer, or a string.
func setConfigField(cfg *coderun.Config, name, text string) error {
	f := reflect.ValueOf(cfg).Elem().FieldByName(name)
	if !f.IsValid() {
		return fmt.Errorf("%s is not a Config field", name)
	}
	var err error
	switch {
	case f.Type() == reflect.TypeFor[time.Duration]():
		var d time.Duration
		d, err = time.ParseDuration(text)
		f.SetInt(int64(d))
	case f.CanInt():
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		f.SetInt(n)
	case f.CanUint():
		var n uint64
		n, err = strconv.ParseUint(text, 10, 64)
		f.SetUint(n)
	case f.Kind() == reflect.String:
		f.SetString(text)
	default:
		return fmt.Errorf("Config.%s has an unsupported type %s", name, f.Type())
	}
	if err != nil {
		return fmt.Errorf("Config.%s: %w", name, err)
	}
	return nil
}

// parseWant reads a want section into e: each value is JSON, or else a
// string as written. Unknown keys are errors.
func parseWant(data string, e *expectation) error {
	kvs, err := keyValues(data)
	if err != nil {
		return err
	}
	obj := map[string]json.RawMessage{}
	for _, kv := range kvs {
		v := json.RawMessage(kv[1])
		if !json.Valid(v) {
			v, _ = json.Marshal(kv[1])
		}
		obj[kv[0]] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(e)
}

// newRuntime returns a Runtime with the default Config but for overrides
// (Config field → value; durations in milliseconds), closed when t ends.
func newRuntime(t *testing.T, overrides map[string]any) *coderun.Runtime {
	t.Helper()
	cfg := coderun.DefaultConfig()
	for k, v := range overrides {
		f := v.(float64)
		switch k {
		case "Fuel":
			cfg.Fuel = uint64(f)
		case "ComputeTime":
			cfg.ComputeTime = time.Duration(f) * time.Millisecond
		case "WallTime":
			cfg.WallTime = time.Duration(f) * time.Millisecond
		case "MemoryBytes":
			cfg.MemoryBytes = int64(f)
		case "MaxOutputBytes":
			cfg.MaxOutputBytes = int64(f)
		case "MaxConcurrentCalls":
			cfg.MaxConcurrentCalls = int(f)
		default:
			t.Fatalf("unknown config field %q", k)
		}
	}
	return newRuntimeConfig(t, cfg)
}

// newRuntimeConfig returns a Runtime with cfg, closed when t ends.
// Unless cfg sets a CacheDir, the runtime shares testCacheDir's compiled
// engine with the package's other runtimes.
func newRuntimeConfig(t *testing.T, cfg coderun.Config) *coderun.Runtime {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = testCacheDir(t)
	}
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

// toolsNamespace is the contract's standard namespace: echo returns
// {"echoed": args}, fail returns the error "nope", slow waits 1.5 s, never
// waits for its ctx.
func toolsNamespace() coderun.Namespace {
	return coderun.Namespace{
		Global: "tools",
		Functions: map[string]coderun.Func{
			"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"echoed":` + string(args) + `}`), nil
			},
			"fail": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return nil, errors.New("nope")
			},
			"slow": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				select {
				case <-time.After(1500 * time.Millisecond):
					return json.RawMessage(`"slow done"`), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
			"never": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
		},
		ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"},
	}
}

// checkCase runs c's program on rt (made with cfg) and checks its result.
func checkCase(t located, rt *coderun.Runtime, cfg coderun.Config, c *conformanceCase) {
	t.Helper()
	req := coderun.Request{Program: c.program}
	if c.tools {
		req.Bindings = []coderun.Namespace{toolsNamespace()}
	}
	res, err := rt.Run(context.Background(), req)
	require.NoError(t, err)
	e := c.want
	require.NotNil(t, res.Logs, "Logs is never nil")
	if e.Kind == "" {
		require.Nil(t, res.Error, "unexpected failure")
	} else {
		require.NotNil(t, res.Error, "expected a %s failure, got value %s", e.Kind, res.Value)
		require.Equal(t, e.Kind, string(res.Error.Kind), res.Error.Message)
		require.Nil(t, res.Value, "a failure has no value")
	}
	switch {
	case e.Generated != "":
		require.Equal(t, generated[e.Generated](), string(res.Value))
	case e.Value != nil:
		require.JSONEq(t, string(e.Value), string(res.Value))
	case e.NoValue:
		require.Nil(t, res.Value)
	}
	if e.Logs != nil {
		require.Equal(t, e.Logs, res.Logs)
	}
	if e.LogsNonEmpty {
		require.NotEmpty(t, res.Logs)
	}
	if e.LogCount > 0 {
		require.Len(t, res.Logs, e.LogCount)
	}
	if e.WithinCap {
		// The kept logs and the failure message fit in the cap together:
		// logs stop short of it by the room of the output-limit message.
		logs, _ := json.Marshal(res.Logs)
		msg, _ := json.Marshal(res.Error.Message)
		require.LessOrEqual(t, int64(len(logs)+len(msg)), cfg.MaxOutputBytes)
	}
	if res.Error != nil {
		msg := res.Error.Message
		if e.Message != nil {
			require.Equal(t, *e.Message, msg)
		}
		require.True(t, strings.HasPrefix(msg, e.MessagePrefix), "message %q lacks prefix %q", msg, e.MessagePrefix)
		for _, s := range e.MessageContains {
			require.Contains(t, msg, s)
		}
		for _, s := range e.MessageNotContains {
			require.NotContains(t, msg, s)
		}
	}
}

// The case-file parser reads every part of a case and rejects malformed
// files with an error naming the file and line.
func TestParseConformance(t *testing.T) {
	good := "A comment.\n\n" +
		"-- a.ts --\nconsole.log(1)\nreturn 2\n" +
		"-- a.config --\n# budgets\nWallTime: 500ms\nFuel: 7\n\nBindings: tools\n" +
		"-- a.want --\nvalue: {\"x\": [1]}\nlogs: [\"1\"]\nmessage: a bare: string\n" +
		"-- a.then.ts --\nreturn 3\n" +
		"-- a.then.config --\nBindings: tools\n" +
		"-- a.then.want --\nkind: exception\n" +
		"-- b.ts --\n-- b.want --\nnoValue: true"
	cases, err := parseConformance("f.txtar", []byte(good))
	require.NoError(t, err)
	require.Len(t, cases, 2)
	a := cases[0]
	cfg := coderun.DefaultConfig()
	cfg.WallTime, cfg.Fuel = 500*time.Millisecond, 7
	require.Equal(t, "a", a.name)
	require.Equal(t, 3, a.line)
	require.Equal(t, "console.log(1)\nreturn 2", a.program)
	require.Equal(t, cfg, a.config)
	require.True(t, a.tools)
	require.JSONEq(t, `{"x": [1]}`, string(a.want.Value))
	require.Equal(t, []string{"1"}, a.want.Logs)
	require.Equal(t, "a bare: string", *a.want.Message)
	require.NotNil(t, a.then)
	require.Equal(t, "a.then", a.then.name)
	require.Equal(t, "return 3", a.then.program)
	require.True(t, a.then.tools)
	require.Equal(t, "exception", a.then.want.Kind)
	require.Nil(t, a.then.then)
	require.Equal(t, "", cases[1].program)
	require.True(t, cases[1].want.NoValue)

	bad := []struct {
		name, file, wantErr string
	}{
		{"no cases", "just a comment\n", "f.txtar: no cases"},
		{"no want", "-- a.ts --\nreturn 1\n", "f.txtar:1: case a has no a.want section"},
		{"no want for then", "-- a.ts --\n-- a.want --\n-- a.then.ts --\n", "f.txtar:3: case a.then has no a.then.want"},
		{"want before ts", "-- a.want --\nvalue: 1\n", `f.txtar:1: section "a.want": comes before a.ts`},
		{"twice", "-- a.ts --\n-- a.want --\n-- a.ts --\n", `f.txtar:3: section "a.ts": appears twice`},
		{"unknown kind", "-- a.ts --\n-- a.js --\n", `section "a.js": want CASE.ts, CASE.config or CASE.want`},
		{"no kind", "-- a --\n", `section "a": want CASE.ts`},
		{"dotted name", "-- a.b.ts --\n", `section "a.b.ts": want CASE.ts`},
		{"then of nothing", "-- a.then.ts --\n", `section "a.then.ts": a following run of no case`},
		{"unknown want key", "-- a.ts --\n-- a.want --\nvalu: 1\n", `unknown field "valu"`},
		{"want key twice", "-- a.ts --\n-- a.want --\nkind: x\nkind: y\n", "kind is set twice"},
		{"not key value", "-- a.ts --\n-- a.want --\nvalue\n", `line "value" is not key: value`},
		{"wrong type", "-- a.ts --\n-- a.want --\nlogCount: many\n", "cannot unmarshal"},
		{"unknown config field", "-- a.ts --\n-- a.config --\nFool: 1\n", "Fool is not a Config field"},
		{"bad duration", "-- a.ts --\n-- a.config --\nWallTime: 5\n", "Config.WallTime: time: missing unit"},
		{"bad integer", "-- a.ts --\n-- a.config --\nFuel: -1\n", "Config.Fuel: strconv.ParseUint"},
		{"other bindings", "-- a.ts --\n-- a.config --\nBindings: files\n", "the only namespace is tools"},
		{"config of a following run", "-- a.ts --\n-- a.want --\n-- a.then.ts --\n-- a.then.config --\nFuel: 1\n",
			`f.txtar:4: section "a.then.config": Fuel: a following run shares the first run's Config`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConformance("f.txtar", []byte(tc.file))
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

// testCacheDir is where this package's runtimes cache wazero's compiled
// engine (the CLI's cache, as the runtime package's tests use): each New then
// loads the engine instead of compiling it again, which takes seconds under
// -race. Behaviour does not depend on it; cachedir_test.go tests the cache.
func testCacheDir(t testing.TB) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return t.TempDir()
	}
	return filepath.Join(dir, "coderun")
}
