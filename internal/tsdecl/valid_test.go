package tsdecl

import (
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// requireValidTS fails the test when src is not valid TypeScript, as
// esbuild parses it (it parses types fully to strip them).
func requireValidTS(t *testing.T, src string) {
	t.Helper()
	res := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS, LogLevel: api.LogLevelSilent})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, e := range res.Errors {
			msgs = append(msgs, e.Text)
		}
		t.Fatalf("not valid TypeScript (%s):\n%s", strings.Join(msgs, "; "), src)
	}
}

// requireValidType is requireValidTS for a type.
func requireValidType(t *testing.T, ts string) {
	t.Helper()
	requireValidTS(t, "type T = "+ts+";\n")
}

// The check catches what it should.
func TestRequireValidTS(t *testing.T) {
	for _, bad := range []string{"{ a: string", "string |", "{ a?: }", "/** */ */ x"} {
		res := api.Transform("type T = "+bad+";\n", api.TransformOptions{Loader: api.LoaderTS, LogLevel: api.LogLevelSilent})
		if len(res.Errors) == 0 {
			t.Errorf("esbuild accepted %q", bad)
		}
	}
}
