package test262

import (
	"reflect"
	"testing"
)

func TestParseMeta(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Meta
	}{
		{
			name: "inline lists",
			src: `// Copyright
/*---
esid: sec-x
description: >
  Something: with a colon
  - and a dash
includes: [compareArray.js, propertyHelper.js]
flags: [onlyStrict]
features: [Symbol, "Reflect.construct"]
---*/
x();`,
			want: Meta{
				Includes: []string{"compareArray.js", "propertyHelper.js"},
				Flags:    []string{"onlyStrict"},
				Features: []string{"Symbol", "Reflect.construct"},
			},
		},
		{
			name: "block lists and negative",
			src: `/*---
info: |
  flags: [raw]
negative:
  phase: parse
  type: SyntaxError
flags:
  - async
  - noStrict
includes:
- asyncHelpers.js
---*/`,
			want: Meta{
				Includes: []string{"asyncHelpers.js"},
				Flags:    []string{"async", "noStrict"},
				Negative: &Negative{Phase: "parse", Type: "SyntaxError"},
			},
		},
		{
			name: "inline list over two lines",
			src:  "/*---\nfeatures: [a,\n  b]\n---*/",
			want: Meta{Features: []string{"a", "b"}},
		},
		{
			name: "CRLF",
			src:  "/*---\r\nflags: [raw]\r\nnegative:\r\n  phase: runtime\r\n  type: TypeError\r\n---*/",
			want: Meta{Flags: []string{"raw"}, Negative: &Negative{Phase: "runtime", Type: "TypeError"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMeta(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v (negative %+v), want %+v", got, got.Negative, tt.want)
			}
		})
	}
	if _, err := parseMeta("x = 1"); err == nil {
		t.Error("a test without a frontmatter parsed")
	}
}

func TestPassed(t *testing.T) {
	neg := &Negative{Phase: "parse", Type: "SyntaxError"}
	tests := []struct {
		name    string
		meta    Meta
		o       outcome
		program bool
		want    bool
	}{
		{"sync completes", Meta{}, outcome{Status: completed}, false, true},
		{"sync throws", Meta{}, outcome{Status: threw, Name: "Test262Error"}, false, false},
		{"sync faults", Meta{}, outcome{Status: fault}, true, false},
		{"negative right type", Meta{Negative: neg}, outcome{Status: threw, Name: "SyntaxError"}, false, true},
		{"negative wrong type", Meta{Negative: neg}, outcome{Status: threw, Name: "(string)"}, false, false},
		{"negative completes", Meta{Negative: neg}, outcome{Status: completed}, true, false},
		{"async script reports", Meta{Flags: []string{"async"}}, outcome{Status: completed, Output: "x\nTest262:AsyncTestComplete\n"}, false, true},
		{"async script fails", Meta{Flags: []string{"async"}}, outcome{Status: completed, Output: "Test262:AsyncTestFailure:Test262Error: no\n"}, false, false},
		{"async script silent", Meta{Flags: []string{"async"}}, outcome{Status: completed}, false, false},
		{"async program reports", Meta{Flags: []string{"async"}}, outcome{Status: completed, Detail: `"Test262:AsyncTestComplete"`}, true, true},
		{"async program fails", Meta{Flags: []string{"async"}}, outcome{Status: completed, Detail: `"Test262:AsyncTestFailure:x"`}, true, false},
		{"async program pending", Meta{Flags: []string{"async"}}, outcome{Status: pending}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := (&Test{Meta: tt.meta}).passed(tt.o, tt.program)
			if got != tt.want {
				t.Errorf("Passed = %v (%s), want %v", got, why, tt.want)
			}
			if !got && why == "" {
				t.Error("a failure without a reason")
			}
		})
	}
}

func TestErrorName(t *testing.T) {
	tests := []struct{ msg, name, rest string }{
		{"SyntaxError: unexpected token (line 3:4)", "SyntaxError", "unexpected token (line 3:4)"},
		{"Test262Error: x\n    at f (program.ts:1:2)", "Test262Error", "x\n    at f (program.ts:1:2)"},
		{"TypeError\n    at f (program.ts:1:2)", "TypeError", "    at f (program.ts:1:2)"},
		{"Test262: This statement should not be evaluated.", "Test262", "This statement should not be evaluated."},
		{"the program is waiting for a promise that can never settle: no binding call", "(non-error)", "the program is waiting for a promise that can never settle: no binding call"},
		{"42", "(non-error)", "42"},
	}
	for _, tt := range tests {
		name, rest := errorName(tt.msg)
		if name != tt.name || rest != tt.rest {
			t.Errorf("errorName(%q) = %q, %q; want %q, %q", tt.msg, name, rest, tt.name, tt.rest)
		}
	}
}
