package coderun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// knownEngineBugs lists the testdata/enginebugs programs that still hit a
// memory-safety bug of the embedded QuickJS-NG build, with what they show
// today. TestEngineBugs asserts that each of them still misbehaves (a trap or
// a wrong value), so that the test fails the day a fix lands: then delete the
// entry and the program is held to its correct result like the others.
// docs/engine-bugs.md says how each can be neutralized.
var knownEngineBugs = map[string]string{
	"arraybuffer-transfer-views":           `wrong value: [true,1,0,false,1] (views keep their length, write into the new buffer)`,
	"arraybuffer-transfer-fixed-views":     `trap: out of bounds memory access`,
	"arraybuffer-slice-species-resize":     `wrong value: copies 16 bytes from a 1-byte store`,
	"typedarray-ctor-ta-resize":            `wrong value: a 10-element copy of a 0-byte buffer`,
	"typedarray-ctor-buffer-resize":        `wrong value: a 10-element view on a 0-byte buffer, writable`,
	"typedarray-sort-resize":               `wrong value: heap garbage in the sorted array`,
	"sharedarraybuffer-grow":               `trap: out of bounds memory access`,
	"proxy-ownkeys-huge-length":            `trap: out of bounds memory access`,
	"proxy-ownkeys-huge-length-keys":       `trap: out of bounds memory access`,
	"coroutine-closure-gc":                 `trap: out of bounds memory access`,
	"coroutine-closure-gc-withresolvers":   `trap: out of bounds memory access`,
	"coroutine-mapped-arguments-gc":        `trap: out of bounds memory access`,
	"generator-closure-gc":                 `trap: out of bounds memory access`,
	"finalization-registry-cycle":          `trap: out of bounds memory access`,
	"finalization-registry-weakmap-symbol": `trap: unreachable`,
	"async-generator-lifecycle":            `trap: out of bounds memory access`,
	"iterator-concat-return-reentry":       `trap: out of bounds memory access`,
}

// engineBugCase is one program of testdata/enginebugs: the body of an async
// function that triggers an upstream QuickJS-NG memory-safety bug, and the
// values (compact JSON) a correct engine returns.
type engineBugCase struct {
	name    string
	program string
	expect  []json.RawMessage
}

// loadEngineBugCases reads every testdata/enginebugs/*.js and its header:
// an "// upstream:" line naming the fix and one or more "// expect: JSON"
// lines.
func loadEngineBugCases(t *testing.T) []engineBugCase {
	t.Helper()
	files, err := filepath.Glob("testdata/enginebugs/*.js")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var cases []engineBugCase
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		c := engineBugCase{name: strings.TrimSuffix(filepath.Base(file), ".js"), program: string(src)}
		var upstream bool
		for _, line := range strings.Split(c.program, "\n") {
			if strings.HasPrefix(line, "// upstream: ") {
				upstream = true
			}
			if v, ok := strings.CutPrefix(line, "// expect: "); ok {
				var buf bytes.Buffer
				require.NoError(t, json.Compact(&buf, []byte(v)), "%s: bad expect line %q", file, line)
				c.expect = append(c.expect, json.RawMessage(buf.Bytes()))
			}
		}
		require.True(t, upstream, "%s: no // upstream: line", file)
		require.NotEmpty(t, c.expect, "%s: no // expect: line", file)
		cases = append(cases, c)
	}
	return cases
}

// engineBugVerdict classifies a run: "correct" (one of the expected
// values), "catchable" (an exception the program could have caught),
// "trap" (the engine faulted) or "wrong value"; anything else is returned
// as the failure kind.
func engineBugVerdict(res coderun.Result, expect []json.RawMessage) string {
	if res.Error == nil {
		for _, want := range expect {
			if bytes.Equal(res.Value, want) {
				return "correct"
			}
		}
		return "wrong value"
	}
	switch res.Error.Kind {
	case coderun.Exception:
		return "catchable"
	case coderun.WorkerExit:
		return "trap"
	}
	return string(res.Error.Kind)
}

// TestEngineBugs runs every program of testdata/enginebugs. A program must
// give its correct result or a catchable error, never a trap or a wrong
// value, unless it is listed in knownEngineBugs, in which case it must
// still misbehave.
func TestEngineBugs(t *testing.T) {
	rt := newRuntime(t, nil)
	cases := loadEngineBugCases(t)
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			res, err := rt.Run(context.Background(), coderun.Request{Program: c.program})
			require.NoError(t, err)
			verdict := engineBugVerdict(res, c.expect)
			got := string(res.Value)
			if res.Error != nil {
				got = res.Error.Error()
			}
			if symptom, known := knownEngineBugs[c.name]; known {
				require.Contains(t, []string{"trap", "wrong value"}, verdict,
					"known engine bug %s no longer traps or returns a wrong value (recorded: %s; got %s: %s). "+
						"If a fix or neutralization landed, remove it from knownEngineBugs and update docs/engine-bugs.md; "+
						"if the program now throws an error it should not (a corrupted heap can do that), "+
						"the bug still reproduces in another form", c.name, symptom, verdict, got)
				t.Logf("still reproduces (%s): %s", verdict, got)
				return
			}
			require.Contains(t, []string{"correct", "catchable"}, verdict,
				"engine bug %s: want one of %s or a catchable error, got %s: %s", c.name, c.expect, verdict, got)
		})
	}
	var stale []string
	for name := range knownEngineBugs {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	require.Empty(t, stale, "knownEngineBugs entries without a testdata/enginebugs program")
}
