package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A JavaScript program reaches the engine as written (transpile's verbatim
// path): the engine then reads comments and line breaks as esbuild did when
// it checked that the program is one function body, so that text which one
// of them reads as a comment never closes the function for the other.
func TestVerbatimProgramStaysInItsFunction(t *testing.T) {
	e := testEngine(t)
	const escape = " })(); globalThis.escaped = 1; (async function () {\n"
	for _, tc := range []struct{ name, program string }{
		{"HTML open comment", "const x = 1 <!--" + escape + "return [x, typeof escaped]"},
		{"HTML close comment at a line start", "const x = 1\n-->" + escape + "return [x, typeof escaped]"},
		{"HTML close comment after a multi-line comment", "const x = 1 /* \n */ -->" + escape + "return [x, typeof escaped]"},
		{"line comment", "const x = 1 //" + escape + "return [x, typeof escaped]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.run(context.Background(), tc.program, nil)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, `[1,"undefined"]`, string(o.Value))
		})
	}
	// Source text and names are the user's.
	o, err := e.run(context.Background(), "function f ( a ) { /* as written */ return a }\nconst load = 1\n{ const load = () => f(2); return [String(f), load.name, load()] }", nil)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, `["function f ( a ) { /* as written */ return a }","load",2]`, string(o.Value))
}
