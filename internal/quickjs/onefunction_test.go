package quickjs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// oneFunctionScript is body placed as coderun places a program
// (transpile.Program.Script).
func oneFunctionScript(params, body string) string {
	return "0, async function __dsh_main__(" + params + ") {\n\"use strict\";\n" + body + "\n}"
}

func TestCheckOneFunction(t *testing.T) {
	in := newInstance(t, &nopHost{})
	tests := []struct {
		name   string
		script string
		params int
		ok     bool
	}{
		{"return", oneFunctionScript("", "return 1"), 0, true},
		{"parameters", oneFunctionScript("tools, ToolError", "return tools"), 2, true},
		{"parenthesized, as Wrap writes it", "(async function __dsh_main__(a) {\n\"use strict\";\nreturn a\n})", 1, true},
		{"nested functions, classes, templates, eval", oneFunctionScript("", "function f() { return () => class { static x = `${1}` } }\n"+
			"const o = { get x() { return 1 } }; return [f(), o.x, eval('1'), [\n(1),\n((a) => a)(3)]]"), 0, true},
		{"an inner function with the same name", oneFunctionScript("", "function __dsh_main__() {}\nreturn 1"), 0, true},
		// A program that closes its function and opens a block that the wrapper's
		// "}" closes leaves nothing at the top level: its code after the "}" is
		// gone, so nothing of it can run outside the function.
		{"empty block after", oneFunctionScript("", "return 1 }; {"), 0, true},

		{"statement after", oneFunctionScript("", "}; evil(); {"), 0, false},
		{"declaration after", oneFunctionScript("", "}; var Array = 1; {"), 0, false},
		{"function declaration after", oneFunctionScript("", "}; function Array() {} {"), 0, false},
		{"side-effect free statement", oneFunctionScript("", "}; 1; {"), 0, false},
		{"getter", oneFunctionScript("", "}; ({ get x() { return evil() } }).x; {"), 0, false},
		{"comma", oneFunctionScript("", "}, evil(), function () {"), 0, false},
		{"side-effect free comma", oneFunctionScript("", "}, 1, async function () {"), 0, false},
		{"call", oneFunctionScript("", "}(evil()), function () {"), 0, false},
		{"class static block", oneFunctionScript("", "}, class { static { evil() } }, function () {"), 0, false},
		{"class computed key", oneFunctionScript("", "}, class { [evil()]() {} }, function () {"), 0, false},
		{"template", oneFunctionScript("", "}, `${evil()}`, function () {"), 0, false},
		{"pure annotation", oneFunctionScript("", "}, /* @__PURE__ */ evil(), function () {"), 0, false},
		{"new", oneFunctionScript("", "}, new Evil, function () {"), 0, false},
		{"spread", oneFunctionScript("", "}, [...evil], function () {"), 0, false},
		{"global read", oneFunctionScript("", "}, evil, function () {"), 0, false},
		{"property read", oneFunctionScript("", "}.evil, function () {"), 0, false},
		{"direct eval", oneFunctionScript("", "}, eval('evil()'), function () {"), 0, false},
		{"another main function", oneFunctionScript("", "}, async function __dsh_main__() {"), 0, false},
		{"a function that is not async", "0, function __dsh_main__() {\n\"use strict\";\nreturn 1\n}", 0, false},
		{"sloppy mode", "0, async function __dsh_main__() {\nreturn 1\n}", 0, false},
		{"parameters not the bindings'", oneFunctionScript("a, b, c", "return 1"), 2, false},
		{"no function", "1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bc, ok, err := in.Compile(tt.script, "program.ts", EvalGlobal)
			require.NoError(t, err)
			if !ok {
				exc, _ := in.TakeException()
				msg, _ := in.String(exc)
				t.Fatalf("the script must compile for the check to be tested: %s", msg)
			}
			err = CheckOneFunction(bc, tt.params)
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrNotOneFunction)
			}
		})
	}
}

// TestCheckOneFunctionFormat: bytes that are not the pinned build's format
// (another version, a truncation, a wrong checksum) fail as a layout
// mismatch, never as a verdict on the program.
func TestCheckOneFunctionFormat(t *testing.T) {
	in := newInstance(t, &nopHost{})
	bc, ok, err := in.Compile(oneFunctionScript("", "return 1"), "program.ts", EvalGlobal)
	require.NoError(t, err)
	require.True(t, ok)
	badSum := append([]byte{}, bc...)
	badSum[bcChecksumAt]++
	for _, bad := range [][]byte{nil, {bcVersion + 1}, bc[:len(bc)/2], badSum} {
		err := CheckOneFunction(bad, 0)
		require.ErrorIs(t, err, ErrLayoutMismatch)
		require.NotErrorIs(t, err, ErrNotOneFunction)
	}
}
