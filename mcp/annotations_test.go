package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// annotationsServer has one tool per annotation, named t0, t1, ….
func annotationsServer(anns ...*sdk.ToolAnnotations) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "ann", Version: "1"}, nil)
	for i, a := range anns {
		addTextTool(s, fmt.Sprintf("t%d", i), a)
	}
	return s
}

func addTextTool(s *sdk.Server, name string, a *sdk.ToolAnnotations) {
	sdk.AddTool(s, &sdk.Tool{Name: name, Annotations: a}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name}}}, nil, nil
	})
}

// run_code's annotations follow its upstreams' tools, with the MCP
// defaults for the hints they leave out.
func TestAnnotations(t *testing.T) {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	additive := &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	idempotentWrite := &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	destructive := &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	tests := []struct {
		name string
		sets [][]*sdk.ToolAnnotations // tools per upstream
		want hints
	}{
		{name: "no upstream", want: hints{readOnly: true, idempotent: true}},
		{name: "read-only", sets: [][]*sdk.ToolAnnotations{{readOnly, readOnly}, {readOnly}},
			want: hints{readOnly: true, idempotent: true}},
		{name: "read-only, open world by default", sets: [][]*sdk.ToolAnnotations{{{ReadOnlyHint: true}}},
			want: hints{readOnly: true, idempotent: true, openWorld: true}},
		{name: "additive", sets: [][]*sdk.ToolAnnotations{{readOnly, additive}}, want: hints{}},
		{name: "idempotent writes", sets: [][]*sdk.ToolAnnotations{{readOnly, idempotentWrite}}, want: hints{idempotent: true}},
		{name: "destructive", sets: [][]*sdk.ToolAnnotations{{destructive}}, want: hints{destructive: true}},
		{name: "mixed across upstreams", sets: [][]*sdk.ToolAnnotations{{readOnly}, {additive, destructive}},
			want: hints{destructive: true}},
		{name: "unannotated: the defaults", sets: [][]*sdk.ToolAnnotations{{readOnly, nil}},
			want: hints{destructive: true, openWorld: true}},
		{name: "read-only but marked destructive counts as read-only",
			sets: [][]*sdk.ToolAnnotations{{{ReadOnlyHint: true, DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}}},
			want: hints{readOnly: true, idempotent: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ups []*Upstream
			for i, set := range tc.sets {
				u, _ := startUpstream(t, fmt.Sprintf("u%d", i), annotationsServer(set...))
				ups = append(ups, u)
			}
			a := Annotations(ups)
			require.Equal(t, tc.want, hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint})
		})
	}
}

// Clients see run_code's annotations, and see them change when an
// upstream's tools do.
func TestAnnotationsListed(t *testing.T) {
	srv := annotationsServer(&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)})
	u, _ := startUpstream(t, "local", srv)
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	changed := make(chan struct{}, 16)
	cs := connectClient(t, s, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	listed := func() *sdk.ToolAnnotations {
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		require.Len(t, res.Tools, 1)
		require.NotNil(t, res.Tools[0].Annotations)
		return res.Tools[0].Annotations
	}
	a := listed()
	require.True(t, a.ReadOnlyHint)
	require.False(t, *a.DestructiveHint)

	addTextTool(srv, "wipe", &sdk.ToolAnnotations{DestructiveHint: ptr(true)})
	require.Eventually(t, func() bool { return u.cur.stale.Load() }, 10*time.Second, 10*time.Millisecond)
	text, isError := callRunCode(t, cs, `return await local.wipe({})`)
	require.False(t, isError, text)
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("the client was not told that run_code changed")
	}
	a = listed()
	require.False(t, a.ReadOnlyHint)
	require.True(t, *a.DestructiveHint)
	require.True(t, *a.OpenWorldHint, "wipe leaves openWorldHint to its default")
}

// Every node of run_code's input and output schemas carries a validation
// keyword and no type list, as the MCP Inspector's --strict portability
// check wants (checked by hand with @modelcontextprotocol/inspector 2.12.0
// --cli --method tools/list --strict: 0 errors, 0 warnings): a node with
// only a description accepts anything by accident, and some clients map
// schemas onto a dialect with a single type.
func TestSchemasHaveValidationKeywords(t *testing.T) {
	for name, raw := range map[string]json.RawMessage{"input": runCodeInputSchema, "output": OutputSchema} {
		var root any
		require.NoError(t, json.Unmarshal(raw, &root), name)
		n := checkSchemaNode(t, name, root)
		require.Greater(t, n, 1, "%s: nodes checked", name)
	}
}

// validationKeywords are the keywords that constrain a value.
var validationKeywords = []string{"type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not"}

// checkSchemaNode requires a validation keyword in schema and in every
// subschema, and returns how many nodes it checked.
func checkSchemaNode(t *testing.T, path string, schema any) int {
	t.Helper()
	m, ok := schema.(map[string]any)
	if !ok {
		_, isBool := schema.(bool)
		require.True(t, isBool, "%s: a schema is an object or a boolean", path)
		return 1
	}
	found := false
	for _, k := range validationKeywords {
		if _, ok := m[k]; ok {
			found = true
		}
	}
	require.True(t, found, "%s carries no validation keyword: %v", path, m)
	_, isList := m["type"].([]any)
	require.False(t, isList, "%s: a type list is less portable than anyOf (the Inspector warns)", path)
	n := 1
	for _, k := range []string{"properties", "$defs", "patternProperties"} {
		if sub, ok := m[k].(map[string]any); ok {
			for name, s := range sub {
				n += checkSchemaNode(t, path+"."+k+"."+name, s)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if s, ok := m[k]; ok {
			n += checkSchemaNode(t, path+"."+k, s)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := m[k].([]any); ok {
			for i, s := range list {
				n += checkSchemaNode(t, fmt.Sprintf("%s.%s[%d]", path, k, i), s)
			}
		}
	}
	return n
}
