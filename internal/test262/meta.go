// Package test262 measures how running as a coderun program changes the
// outcome of tc39/test262 tests.
//
// Every test runs in up to four modes, each in a fresh instance:
//
//   - Script: the engine alone. The hardened QuickJS-NG module coderun uses
//     (wasm.Harden, initialized as coderun initializes its snapshot, but
//     without the prelude), the harness and the test evaluated as one
//     global script, strict unless the test is noStrict or raw.
//   - Body: the engine alone, the same text placed in the function coderun
//     wraps a program in (an async function body in strict mode), evaluated
//     and called as coderun does, with no transpiler and no prelude.
//   - Neutralized: Body after the prelude's deletions of engine surface
//     with known memory bugs (docs/engine-bugs.md), run only to classify.
//   - Coderun: coderun.New + Run with the same text as the program.
//
// A test that passes as Script and fails through coderun is inherent when
// Body fails too (running as an async function body in strict mode: global
// declarations, top-level this, sloppy-only tests), neutralized on purpose
// when Body passes and Neutralized fails, and a machinery failure (the
// prelude, the transpiler, the host) when both pass.
//
// The measurement itself is TestTest262, which runs only when the
// environment variable CODERUN_TEST262 names a test262 checkout; see
// docs/test262.md for the subset, the revision and the results.
package test262

import (
	"errors"
	"slices"
	"strings"
)

// Meta is what a test's YAML frontmatter says about how to run it.
type Meta struct {
	Includes []string
	Flags    []string
	Features []string
	// Negative is set for a test that must throw an error of a type.
	Negative *Negative
}

// Negative is a test's expected error.
type Negative struct {
	Phase string // parse, resolution or runtime
	Type  string // the error constructor's name, e.g. SyntaxError
}

// Has reports whether the test has flag f (onlyStrict, noStrict, raw,
// module, async, ...).
func (m Meta) Has(f string) bool { return slices.Contains(m.Flags, f) }

// errNoMeta is the error of a test without a frontmatter.
var errNoMeta = errors.New("test262: no /*--- ---*/ frontmatter")

// parseMeta reads the frontmatter of a test's source: the keys includes,
// flags, features and negative. It understands the subset of YAML test262
// uses for them: inline lists ([a, b]), block lists (- a) and the
// two-key negative map; every other key is skipped with its block.
func parseMeta(src string) (Meta, error) {
	start := strings.Index(src, "/*---")
	if start < 0 {
		return Meta{}, errNoMeta
	}
	end := strings.Index(src[start:], "---*/")
	if end < 0 {
		return Meta{}, errNoMeta
	}
	lines := strings.Split(src[start+len("/*---"):start+end], "\n")
	var m Meta
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		if line == "" || isIndented(line) || line[0] == '#' {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		var block []string // the indented lines after the key
		for i+1 < len(lines) && isIndented(lines[i+1]) {
			i++
			block = append(block, strings.TrimSpace(lines[i]))
		}
		switch key {
		case "includes":
			m.Includes = list(rest, block)
		case "flags":
			m.Flags = list(rest, block)
		case "features":
			m.Features = list(rest, block)
		case "negative":
			m.Negative = negative(block)
		}
	}
	return m, nil
}

// isIndented reports whether line continues the previous key's block: it
// is indented, blank, or an item of a block list (YAML lets those start
// at the key's column).
func isIndented(line string) bool {
	return strings.TrimSpace(line) == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '-'
}

// list reads a list written inline after its key or as a block of "- x".
func list(rest string, block []string) []string {
	var out []string
	if strings.HasPrefix(rest, "[") {
		// An inline list may continue on the indented lines.
		text := rest + " " + strings.Join(block, " ")
		if j := strings.Index(text, "]"); j >= 0 {
			text = text[:j]
		}
		for _, item := range strings.Split(strings.TrimPrefix(text, "["), ",") {
			if item = unquote(strings.TrimSpace(item)); item != "" {
				out = append(out, item)
			}
		}
		return out
	}
	for _, b := range block {
		if item, ok := strings.CutPrefix(b, "-"); ok {
			if item = unquote(strings.TrimSpace(item)); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// negative reads the block of a negative key.
func negative(block []string) *Negative {
	n := &Negative{}
	for _, b := range block {
		k, v, ok := strings.Cut(b, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "phase":
			n.Phase = unquote(strings.TrimSpace(v))
		case "type":
			n.Type = unquote(strings.TrimSpace(v))
		}
	}
	return n
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
