package transpile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewTargetPrinted: esbuild prints the target of "new" with the parentheses it needs, so a
// TypeScript program (which runs as esbuild printed it) means what it says. esbuild v0.28.0
// printed new (f()`x`)() as new f()`x` and new (o?.C)() as new o?.C, a syntax error.
func TestNewTargetPrinted(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"tagged template", "const mk = () => (s: TemplateStringsArray) => function C(this: any) { this.v = s[0] }\n" +
			"return new (mk()`x`)().v", `"x"`},
		{"optional chain", "const o: any = { C: function (this: any) { this.v = 'o' } }\nreturn new (o?.C)().v", `"o"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.src)
			require.NoError(t, err)
			require.False(t, p.verbatim)
			require.Equal(t, tt.want, nodeRun(t, p, nil, nil))
		})
	}
}
