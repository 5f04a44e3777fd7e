package mcp

import (
	"context"
	"regexp"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

// annotatedServer has tools named in order, with every kind of annotation.
func annotatedServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "annotated", Version: "1"}, nil)
	add := func(name string, a *sdk.ToolAnnotations) {
		sdk.AddTool(s, &sdk.Tool{Name: name, Annotations: a}, func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name}}}, nil, nil
		})
	}
	add("a_wipe", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(true)})
	add("b_create", nil)
	add("c_write", &sdk.ToolAnnotations{DestructiveHint: ptr(false)})
	add("d_read", &sdk.ToolAnnotations{ReadOnlyHint: true})
	add("e_list", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false)})
	return s
}

func examples(desc string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```ts\n(.*?)```").FindAllStringSubmatch(desc, -1) {
		out = append(out, m[1])
	}
	return out[:len(out)-1] // the last block is the declarations
}

// The examples call only tools annotated read-only and not destructive,
// and none when there is no such tool: models copy them verbatim.
func TestDescriptionExamples(t *testing.T) {
	u, _ := startUpstream(t, "local", annotatedServer())
	ex := examples(Description([]*Upstream{u}))
	require.Len(t, ex, 2)
	require.Contains(t, ex[0], `local.d_read({ text: "text" }),`)
	require.Contains(t, ex[0], `local.e_list({ text: "text" }),`)
	require.Contains(t, ex[1], `return await local.d_read({ text: "text" });`)
	for _, e := range ex {
		require.NotRegexp(t, `a_wipe|b_create|c_write`, e)
	}

	unsafe := sdk.NewServer(&sdk.Implementation{Name: "unsafe", Version: "1"}, nil)
	sdk.AddTool(unsafe, &sdk.Tool{Name: "create_directory", Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false)}},
		func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
			return nil, nil, nil
		})
	v, _ := startUpstream(t, "files", unsafe)
	ex = examples(Description([]*Upstream{v}))
	require.Len(t, ex, 2)
	for _, e := range ex {
		require.NotContains(t, e, "files.")
	}
	s, err := NewServer(newRuntime(t, nil), []*Upstream{v}, nil)
	require.NoError(t, err)
	for _, e := range ex {
		res := s.RunCode(context.Background(), e)
		require.False(t, res.IsError, "example:\n%s", e)
	}
}

// A tool that requires tasks is left out of the namespace and the
// declarations, and the description says so.
func TestTaskOnlyToolsLeftOut(t *testing.T) {
	p := &inProcess{server: testServer(nil), taskOnly: []string{"echo"}}
	u := NewUpstream("local", p.dial, nil)
	require.NoError(t, u.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, u.Close()) })

	require.Equal(t, []string{"echo"}, u.TaskOnlyTools())
	for _, tool := range u.Tools() {
		require.NotEqual(t, "echo", tool.Name)
	}
	s, err := NewServer(newRuntime(t, nil), []*Upstream{u}, nil)
	require.NoError(t, err)
	desc := s.Description()
	require.NotContains(t, desc, "echo(args")
	require.Contains(t, desc, "add(args")
	require.Contains(t, desc, "\nNot available: local.echo (these tools can only run as MCP tasks, which run_code does not support).\n")
	res := s.RunCode(context.Background(), `return typeof local.echo + " " + typeof local.add`)
	require.False(t, res.IsError)
	require.Equal(t, "undefined function", res.Content[0].(*sdk.TextContent).Text)
}
