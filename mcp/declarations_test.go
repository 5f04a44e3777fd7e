package mcp

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The declarations of the reference server's tools (server-everything
// 2026.8.31, its tools/list recorded in testdata/everything-tools.json) are
// the ones in testdata/everything-declarations.ts, which is valid
// TypeScript.
func TestEverythingDeclarations(t *testing.T) {
	b, err := os.ReadFile("testdata/everything-tools.json")
	require.NoError(t, err)
	var list sdk.ListToolsResult
	require.NoError(t, json.Unmarshal(b, &list))
	require.Len(t, list.Tools, 13)
	u := &Upstream{name: "everything", tools: list.Tools}

	got := Declarations([]*Upstream{u})
	want, err := os.ReadFile("testdata/everything-declarations.ts")
	require.NoError(t, err)
	require.Equal(t, string(want), got)

	res := api.Transform(got, api.TransformOptions{Loader: api.LoaderTS, LogLevel: api.LogLevelSilent})
	require.Empty(t, res.Errors)
}

// Docs carries each tool's description (or title) and schemas.
func TestDocs(t *testing.T) {
	tools := []*sdk.Tool{
		{Name: "a", Description: "Does a.", InputSchema: map[string]any{"type": "object"}, OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}}},
		{Name: "b", Title: "The B", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "c", InputSchema: map[string]any{"bad": make(chan int)}},
	}
	docs := Docs(tools)
	require.Len(t, docs, 3)
	require.Equal(t, "Does a.", docs["a"].Description)
	require.JSONEq(t, `{"type":"object"}`, string(docs["a"].Input))
	require.JSONEq(t, `{"type":"object","properties":{"n":{"type":"number"}}}`, string(docs["a"].Output))
	require.Equal(t, "The B", docs["b"].Description)
	require.JSONEq(t, `{"type":"object","properties":{}}`, string(docs["b"].Input))
	require.Nil(t, docs["b"].Output)
	require.Nil(t, docs["c"].Input)
}
