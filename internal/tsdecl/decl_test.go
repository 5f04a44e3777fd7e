package tsdecl

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNamespace(t *testing.T) {
	type searchArgs struct {
		Q     string `json:"q"`
		Limit *int   `json:"limit"`
	}
	type searchResult struct {
		Hits int `json:"hits"`
	}
	requireNamespaces(t, []namespaceCase{
		{
			name:   "brief example, members sorted",
			global: "tools",
			members: []Member{
				{Name: "search", Doc: "Search the web.", Params: SchemaFor(reflect.TypeFor[searchArgs]()), Result: SchemaFor(reflect.TypeFor[searchResult]())},
				{Name: "my-tool"},
			},
			want: `declare const tools: {
  "my-tool"(args: unknown): Promise<unknown>;
  /** Search the web. */
  search(args: { q: string; limit?: number | null }): Promise<{ hits: number }>;
};
`,
		},
		{
			name:    "no members",
			global:  "empty",
			members: nil,
			want:    "declare const empty: {};\n",
		},
		{
			name:    "blank and broken schemas are unknown",
			global:  "db",
			members: []Member{{Name: "query", Params: json.RawMessage(" "), Result: json.RawMessage(`{"type": `)}},
			want: `declare const db: {
  query(args: unknown): Promise<unknown>;
};
`,
		},
		{
			name:   "multi-line types are indented under the member",
			global: "fs",
			members: []Member{{
				Name:   "read",
				Params: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string", "description": "File to read."}}, "required": ["path"]}`),
				Result: SchemaFor(reflect.TypeFor[map[string][]string]()),
			}},
			want: `declare const fs: {
  read(args: {
    /** File to read. */
    path: string;
  }): Promise<{ [key: string]: string[] }>;
};
`,
		},
	})
}

// Member names that are not identifiers are quoted, and members are sorted
// by name.
func TestNamespaceNames(t *testing.T) {
	str := json.RawMessage(`{"type": "string"}`)
	num := json.RawMessage(`{"type": "number"}`)
	requireNamespaces(t, []namespaceCase{
		{
			name:   "odd member names are quoted",
			global: "t",
			members: []Member{
				{Name: "__proto__", Params: str, Result: str},
				{Name: "", Params: num, Result: num},
				{Name: "a b\"c"},
				{Name: "<tag>&"},
				{Name: "1st"},
				{Name: "$ok"},
				{Name: "名前"},
				{Name: "line\u2028sep"},
				{Name: "delete"},
			},
			want: `declare const t: {
  ""(args: number): Promise<number>;
  $ok(args: unknown): Promise<unknown>;
  "1st"(args: unknown): Promise<unknown>;
  "<tag>&"(args: unknown): Promise<unknown>;
  __proto__(args: string): Promise<string>;
  "a b\"c"(args: unknown): Promise<unknown>;
  delete(args: unknown): Promise<unknown>;
  "line\u2028sep"(args: unknown): Promise<unknown>;
  "名前"(args: unknown): Promise<unknown>;
};
`,
		},
	})
}

// Doc comments cannot end early, keep their lines and drop control
// characters.
func TestNamespaceDocs(t *testing.T) {
	requireNamespaces(t, []namespaceCase{
		{
			name:   "doc comments",
			global: "tools",
			members: []Member{
				{Name: "a", Doc: "Ends a comment */ early; **/ too."},
				{Name: "b", Doc: "\n  First line.  \r\n\r\n  Indented */\n\n"},
				{Name: "c", Doc: " \n\t\n"},
				{Name: "d", Doc: "one\u2028two\u2029three\rfour\x00\x1b[31m\x7fend"},
				{Name: "e", Doc: "ends in a star *"},
			},
			want: `declare const tools: {
  /** Ends a comment *\/ early; **\/ too. */
  a(args: unknown): Promise<unknown>;
  /**
   *   First line.
   *
   *   Indented *\/
   */
  b(args: unknown): Promise<unknown>;
  c(args: unknown): Promise<unknown>;
  /**
   * one
   * two
   * three
   * four  [31m end
   */
  d(args: unknown): Promise<unknown>;
  /** ends in a star * */
  e(args: unknown): Promise<unknown>;
};
`,
		},
	})
}

// namespaceCase is a namespace and the declaration Namespace writes for it.
type namespaceCase struct {
	name    string
	global  string
	members []Member
	want    string
}

// requireNamespaces checks that Namespace writes each case's declaration,
// and that it is valid TypeScript.
func requireNamespaces(t *testing.T, tests []namespaceCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Namespace(tt.global, tt.members)
			require.Equal(t, tt.want, got)
			requireValidTS(t, got)
		})
	}
}

func TestNamespaceLeavesInputAlone(t *testing.T) {
	members := []Member{{Name: "b"}, {Name: "a"}}
	_ = Namespace("tools", members)
	require.Equal(t, []Member{{Name: "b"}, {Name: "a"}}, members)
}

func TestErrorClass(t *testing.T) {
	require.Equal(t, "declare class ToolCallError extends Error { readonly toolName: string; }\n",
		ErrorClass("ToolCallError", "toolName"))
	require.Equal(t, "declare class DbError extends Error { readonly \"tool-name\": string; }\n",
		ErrorClass("DbError", "tool-name"))
}

// A doc comment is bounded, cut at a character boundary, and a "*/" that
// the cut would split cannot survive as a comment end either.
func TestWriteDocBounded(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"ascii", strings.Repeat("a", 10*maxDocBytes)},
		{"multi-byte", strings.Repeat("é", maxDocBytes)},
		{"comment ends", strings.Repeat("*/", maxDocBytes)},
		{"many lines", strings.Repeat("x\n", maxDocBytes)},
		{"invalid UTF-8", strings.Repeat("\xff", 2*maxDocBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeDoc(&b, "  ", tt.doc)
			got := b.String()
			body := strings.TrimSuffix(strings.TrimPrefix(got, "  /**"), " */\n")
			require.NotContains(t, body, "*/")
			require.True(t, strings.HasSuffix(got, "…\n   */\n") || strings.HasSuffix(got, "… */\n"), got[max(0, len(got)-40):])
			// The text kept is at most maxDocBytes (plus escapes), laid out
			// with at most " * " and the indent per line.
			lines := strings.Count(got, "\n")
			require.LessOrEqual(t, len(got), 2*maxDocBytes+lines*len("   * ")+16)
			require.True(t, utf8Valid(got))
			requireValidTS(t, got+"declare const x: number;\n")
		})
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }
