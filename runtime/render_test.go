package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// An exception's stack shows the program's frames at their positions in the
// user's source, and native frames between them; the wrapper, the prelude
// and the host's way into the program (Reflect.apply) are not shown.
func TestExceptionStackFrames(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name, program, message string
	}{
		{"top level", `throw new Error("top")`,
			"Error: top\n    at <program> (program.ts:1:11)"},
		{"nested function", "function f() {\n  throw new Error(\"x\")\n}\nreturn f()",
			"Error: x\n    at f (program.ts:2:13)\n    at <program> (program.ts:4:8)"},
		// JavaScript runs as written: the engine places the call at the
		// called property, as V8 does.
		{"native frame between program frames", "return [1, 2].map((x) => {\n  throw new TypeError(\"in map\")\n})",
			"TypeError: in map\n    at <anonymous> (program.ts:2:13)\n    at map (native)\n    at <program> (program.ts:1:15)"},
		{"timer callback", "setTimeout(() => {\n  throw new Error(\"late\")\n}, 1)\nawait new Promise(r => setTimeout(r, 50))",
			"Error: late\n    at <anonymous> (program.ts:2:13)"},
		{"after an await", "await null\nthrow new Error(\"later\")",
			"Error: later\n    at <program> (program.ts:2:11)"},
		// QuickJS-NG 0.10.1 records no position for a property read in a
		// return statement, so the program's frame has no place to point
		// to: the message names the property, and no frame is shown.
		// QuickJS-NG 0.16 records a position for a property read: the
		// start of the member expression (2:8, `o`).
		{"property read", "const o: any = {}\nreturn o.a.b",
			"TypeError: cannot read property 'b' of undefined\n    at <program> (program.ts:2:8)"},
		// Frames are told apart by their location, never by the name,
		// which the program chooses.
		{"function name that looks like a host frame", "const o = {[\"coderun:x (native)\"]() {\n  throw new Error(\"n\")\n}}\nreturn o[\"coderun:x (native)\"]()",
			"Error: n\n    at coderun:x (native) (program.ts:2:13)\n    at <program> (program.ts:4:8)"},
		{"non-Error value", `throw {toString() { return "obj" }}`, "obj"},
		// The rejection is made by the prelude, inside a native Promise
		// constructor: neither is the program's.
		{"binding arguments refused", "const x = 1\nawait tools.echo(() => 1)",
			"ToolError: binding arguments must be lossless JSON\n    at <program> (program.ts:2:13)"},
		{"binding called with no argument", "const x = 1\nawait tools.echo()",
			"ToolError: tools.echo takes one argument, a JSON value such as {}, and was called without one\n    at <program> (program.ts:2:13)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.run(context.Background(), tc.program, echoTools())
			require.NoError(t, err)
			require.Equal(t, KindException, o.Kind)
			require.Equal(t, tc.message, o.Message)
		})
	}
}
