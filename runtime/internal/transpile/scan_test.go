package transpile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// render shows the tokens of src as "kind:text" separated by spaces, kinds abbreviated.
func render(src string) string {
	sc := tokenize(src)
	kinds := map[tokKind]string{tkIdent: "id", tkPunct: "p", tkString: "str", tkNumber: "num",
		tkRegex: "re", tkTemplate: "tpl", tkPrivate: "priv"}
	parts := make([]string, len(sc.toks))
	for i := range sc.toks {
		parts[i] = kinds[sc.toks[i].kind] + ":" + sc.text(i)
	}
	return strings.Join(parts, " ")
}

func TestTokenizeRegexOrDivision(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"a / b / c", "id:a p:/ id:b p:/ id:c"},
		{"x = /re/g", "id:x p:= re:/re/g"},
		{"x /= 2", "id:x p:/= num:2"},
		{"if (x) /re/.test(y)", "id:if p:( id:x p:) re:/re/ p:. id:test p:( id:y p:)"},
		{"for await (const v of w) /a/", "id:for id:await p:( id:const id:v id:of id:w p:) re:/a/"},
		{"f(x) / 2", "id:f p:( id:x p:) p:/ num:2"},
		{"return /re/", "id:return re:/re/"},
		{"a.return / 2", "id:a p:. id:return p:/ num:2"},
		{"x! / 2", "id:x p:! p:/ num:2"},
		{"!/re/.test(s)", "p:! re:/re/ p:. id:test p:( id:s p:)"},
		// After "}", as the grammar reads it (see slash.go); where the tokenizer cannot tell, the
		// nesting check stops the tokens there.
		{"{}\n/re/.test(s)", "p:{ p:} re:/re/ p:. id:test p:( id:s p:)"},
		{"x = {} / 2", "id:x p:= p:{ p:} p:/ num:2"},
		{"x = function () {} / 2", "id:x p:= id:function p:( p:) p:{ p:} p:/ num:2"},
		{"let t: {}\n/re/", "id:let id:t p:: p:{ p:} p:/"},
		{"a[0] / 2", "id:a p:[ num:0 p:] p:/ num:2"},
		{"a++ / 2", "id:a p:++ p:/ num:2"},
		{"/[/]/.source", "re:/[/]/ p:. id:source"},
		{`/\//g`, `re:/\//g`},
		{"`a${b}c` / 2", "tpl:`a${ id:b tpl:}c` p:/ num:2"},
		{"`${/x/}`", "tpl:`${ re:/x/ tpl:}`"},
		{"`a${`b${c}`}d`", "tpl:`a${ tpl:`b${ id:c tpl:}` tpl:}d`"},
		{"`${ {a: 1} }`", "tpl:`${ p:{ id:a p:: num:1 p:} tpl:}`"},
		{"'a\\'b' \"c\\\"d\"", `str:'a\'b' str:"c\"d"`},
		{"// c\n/* d */ x", "id:x"},
		{"a?.b ? .5 : 1e-3", "id:a p:?. id:b p:? num:.5 p:: num:1e-3"},
		{"#priv in obj", "priv:#priv id:in id:obj"},
		{"é = ü😀", "id:é p:= id:ü😀"},
		{"x\n++y", "id:x p:++ id:y"},
		{"typeof /re/", "id:typeof re:/re/"},
		{"a >>>= 1", "id:a p:>>>= num:1"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			require.Equal(t, tt.want, render(tt.src))
		})
	}
}

func TestTokenizeBrackets(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		unmatched int
		open      string
	}{
		{name: "balanced", src: "f({a: [1, `${x}`]})", unmatched: -1},
		{name: "extra closer", src: "a() }", unmatched: 4},
		{name: "mismatched", src: "(]", unmatched: 1, open: "("},
		{name: "open brace", src: "if (x) {", unmatched: -1, open: "{"},
		{name: "open substitution", src: "`${a", unmatched: -1, open: "`"},
		{name: "closers in literals", src: "'}'; \"]\"; `)`; /[)]/; // }\n/* ) */", unmatched: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := tokenize(tt.src)
			require.Equal(t, tt.unmatched, sc.unmatched)
			var open string
			for _, f := range sc.open {
				open += string(f.ch)
			}
			require.Equal(t, tt.open, open)
		})
	}
}

func TestCheckErasures(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the source after blanking
	}{
		{
			name: "import type",
			src:  "import type { A } from 'a'; x",
			want: ";" + sp(26) + " x",
		},
		{
			name: "import type across lines",
			src:  "import type {\n  A,\n  B,\n} from \"a\"\nx",
			want: ";" + sp(12) + "\n" + sp(4) + "\n" + sp(4) + "\n" + sp(10) + "\nx",
		},
		{
			name: "declare namespace with non-ASCII",
			src:  "declare namespace N { const é: '😀' }\nx",
			want: ";" + sp(36) + "\nx",
		},
		{
			name: "declare module shorthand",
			src:  "declare module 'm'\nx",
			want: ";" + sp(17) + "\nx",
		},
		{
			name: "declare global",
			src:  "a; declare global { var g: number }; b",
			want: "a; ;" + sp(31) + "; b",
		},
		{
			name: "not at statement start",
			src:  "x = declare\nnamespace",
			want: "x = declare\nnamespace",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, erase := newErasableCheck(tokenize(tt.src), nil).check()
			require.Nil(t, v)
			got := blank(tt.src, erase)
			require.Equal(t, tt.want, got)
			require.Equal(t, utf16Len(tt.src), utf16Len(got))
		})
	}
}

func sp(n int) string { return strings.Repeat(" ", n) }
