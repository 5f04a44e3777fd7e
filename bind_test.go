package coderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

type searchIn struct {
	Q     string `json:"q"`
	Limit int    `json:"limit,omitempty"`
}

type searchOut struct {
	Hits  int      `json:"hits"`
	Names []string `json:"names"`
}

func search(ctx context.Context, in searchIn) (searchOut, error) {
	if in.Q == "" {
		return searchOut{}, errors.New("q is required")
	}
	return searchOut{Hits: len(in.Q), Names: []string{in.Q + "<&>"}}, nil
}

func TestBind(t *testing.T) {
	f := coderun.Bind(search)
	tests := []struct {
		name, args, want, err string
	}{
		{"ok", `{"q":"go"}`, `{"hits":2,"names":["go<&>"]}`, ""},
		{"unknown field", `{"q":"go","lmit":3}`, "", `invalid arguments: json: unknown field "lmit"`},
		{"wrong type", `{"q":1}`, "", "invalid arguments"},
		{"two values", `{"q":"a"} {"q":"b"}`, "", "more than one JSON value"},
		{"function error", `{}`, "", "q is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := f(context.Background(), json.RawMessage(tc.args))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(out))
		})
	}
}

func TestBindInAProgram(t *testing.T) {
	rt := newRuntime(t, nil)
	ns := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{"search": coderun.Bind(search)},
		ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}}
	res := runWith(t, rt, `const r = await tools.search({q: "wasm"}); try { await tools.search({query: "x"}) } catch (e) { return [r.hits, r.names[0], e.message] }`, ns)
	require.Nil(t, res.Error)
	require.JSONEq(t, `[4, "wasm<&>", "invalid arguments: json: unknown field \"query\""]`, string(res.Value))
}

func TestDeclarations(t *testing.T) {
	raw := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }
	ns := coderun.Namespace{
		Global: "tools",
		Functions: map[string]coderun.Func{
			"search":  coderun.Bind(search),
			"my-tool": raw,
		},
		ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"},
	}
	want := "declare const tools: {\n" +
		"  \"my-tool\"(args: unknown): Promise<unknown>;\n" +
		"  search(args: { q: string; limit?: number }): Promise<{ hits: number; names: string[] }>;\n" +
		"};\n" +
		"declare class ToolCallError extends Error { readonly toolName: string; }\n"
	require.Equal(t, want, ns.Declarations())
}
