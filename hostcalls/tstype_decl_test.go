package hostcalls

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRenderDeclarations(t *testing.T) {
	type searchArgs struct {
		Q     string `json:"q"`
		Limit *int   `json:"limit"`
	}
	type searchResult struct {
		Hits int `json:"hits"`
	}
	tests := []struct {
		name           string
		global         string
		members        []Member
		errorClass     string
		memberProperty string
		want           string
	}{
		{
			name:   "brief example, members sorted",
			global: "tools",
			members: []Member{
				{Name: "search", Doc: "Search the web.", Params: TSType(reflect.TypeFor[searchArgs]()), Result: TSType(reflect.TypeFor[searchResult]())},
				{Name: "my-tool"},
			},
			errorClass:     "ToolCallError",
			memberProperty: "toolName",
			want: `declare const tools: {
  "my-tool"(args: unknown): Promise<unknown>;
  /** Search the web. */
  search(args: { q: string; limit?: number }): Promise<{ hits: number }>;
};
declare class ToolCallError extends Error { readonly toolName: string; }
`,
		},
		{
			name:    "no members, no class",
			global:  "empty",
			members: nil,
			want:    "declare const empty: {};\n",
		},
		{
			name:   "odd member names are quoted",
			global: "t",
			members: []Member{
				{Name: "__proto__", Params: "string", Result: "string"},
				{Name: "", Params: "number", Result: "number"},
				{Name: "a b\"c", Params: "unknown", Result: "unknown"},
				{Name: "<tag>&", Params: "unknown", Result: "unknown"},
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
		{
			name:   "doc comments",
			global: "tools",
			members: []Member{
				{Name: "a", Doc: "Ends a comment */ early; **/ too.", Params: "unknown", Result: "unknown"},
				{Name: "b", Doc: "\n  First line.  \r\n\r\n  Indented */\n\n", Params: "unknown", Result: "unknown"},
				{Name: "c", Doc: " \n\t\n", Params: "unknown", Result: "unknown"},
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
};
`,
		},
		{
			name:           "quoted member property, blank types",
			global:         "db",
			members:        []Member{{Name: "query", Params: " ", Result: ""}},
			errorClass:     "DbError",
			memberProperty: "tool-name",
			want: `declare const db: {
  query(args: unknown): Promise<unknown>;
};
declare class DbError extends Error { readonly "tool-name": string; }
`,
		},
		{
			name:   "recursive and nested types",
			global: "fs",
			members: []Member{{
				Name:   "tree",
				Params: TSType(reflect.TypeFor[map[string][]tsAddress]()),
				Result: TSType(reflect.TypeFor[*tsTree]()),
			}},
			want: `declare const fs: {
  tree(args: Record<string, { street: string; zip?: string }[]>): Promise<{ value: number; children: unknown[]; parent?: unknown } | null>;
};
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, RenderDeclarations(tt.global, tt.members, tt.errorClass, tt.memberProperty))
		})
	}
}

func TestRenderDeclarationsLeavesInputAlone(t *testing.T) {
	members := []Member{{Name: "b"}, {Name: "a"}}
	_ = RenderDeclarations("tools", members, "", "")
	require.Equal(t, []Member{{Name: "b"}, {Name: "a"}}, members)
}
