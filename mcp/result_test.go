package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

func text(s string) sdk.Content { return &sdk.TextContent{Text: s} }

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name    string
		res     *sdk.CallToolResult
		want    string
		wantErr string
	}{
		{name: "structured wins over text",
			res:  &sdk.CallToolResult{Content: []sdk.Content{text(`{"sum":3}`)}, StructuredContent: map[string]any{"sum": 3.5, "tag": "<a>"}},
			want: `{"sum":3.5,"tag":"<a>"}`},
		{name: "structured array", res: &sdk.CallToolResult{StructuredContent: []any{1.0, "x"}}, want: `[1,"x"]`},
		{name: "structured not lossless", res: &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1e300}},
			wantErr: "the tool's structuredContent is not lossless JSON: integer beyond ±2^53: 1e+300 at offset 5"},
		{name: "plain text", res: &sdk.CallToolResult{Content: []sdk.Content{text("Echo: hi")}}, want: `"Echo: hi"`},
		{name: "html is not escaped", res: &sdk.CallToolResult{Content: []sdk.Content{text("<b>&</b>")}}, want: `"<b>&</b>"`},
		{name: "JSON text", res: &sdk.CallToolResult{Content: []sdk.Content{text(" {\"a\": [1, null]}\n")}}, want: `{"a": [1, null]}`},
		{name: "number text", res: &sdk.CallToolResult{Content: []sdk.Content{text("42")}}, want: `42`},
		{name: "lossy JSON text stays a string", res: &sdk.CallToolResult{Content: []sdk.Content{text("12345678901234567890")}}, want: `"12345678901234567890"`},
		{name: "duplicate keys stay a string", res: &sdk.CallToolResult{Content: []sdk.Content{text(`{"a":1,"a":2}`)}}, want: `"{\"a\":1,\"a\":2}"`},
		{name: "texts joined", res: &sdk.CallToolResult{Content: []sdk.Content{text("a"), text("b")}}, want: `"a\nb"`},
		{name: "texts joined into JSON", res: &sdk.CallToolResult{Content: []sdk.Content{text("[1,"), text("2]")}}, want: "[1,\n2]"},
		{name: "empty text", res: &sdk.CallToolResult{Content: []sdk.Content{text("")}}, want: `""`},
		{name: "no content", res: &sdk.CallToolResult{}, want: `null`},
		{name: "nil", res: nil, want: `null`},
		{name: "image",
			res:  &sdk.CallToolResult{Content: []sdk.Content{text("logo:"), &sdk.ImageContent{Data: []byte("png"), MIMEType: "image/png"}}},
			want: `[{"type":"text","text":"logo:"},{"type":"image","mimeType":"image/png","data":"cG5n"}]`},
		{name: "error", res: &sdk.CallToolResult{IsError: true, Content: []sdk.Content{text("no such file"), text("(ENOENT)")}},
			wantErr: "no such file\n(ENOENT)"},
		{name: "error without text", res: &sdk.CallToolResult{IsError: true}, wantErr: "the tool reported an error without a message"},
		{name: "error with structured content", res: &sdk.CallToolResult{IsError: true, Content: []sdk.Content{text("bad")}, StructuredContent: map[string]any{}},
			wantErr: "bad"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResultJSON(tc.res)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

// A run's result is one text item for the logs, one for the value, and
// the structured content {logs, value}; a failure is an error result.
func TestFormatResult(t *testing.T) {
	tests := []struct {
		name       string
		res        coderun.Result
		texts      []string
		structured string // "" for none
	}{
		{name: "logs and value", res: coderun.Result{Logs: []string{"a", "b c"}, Value: json.RawMessage(`{"x":[1,"y"]}`)},
			texts: []string{"a\nb c", "{\n  \"x\": [\n    1,\n    \"y\"\n  ]\n}"}, structured: `{"logs":["a","b c"],"value":{"x":[1,"y"]}}`},
		{name: "string value as is", res: coderun.Result{Logs: []string{}, Value: json.RawMessage(`"line1\nline2"`)},
			texts: []string{"line1\nline2"}, structured: `{"logs":[],"value":"line1\nline2"}`},
		{name: "null value", res: coderun.Result{Logs: []string{}, Value: json.RawMessage(`null`)},
			texts: []string{"null"}, structured: `{"logs":[],"value":null}`},
		{name: "logs only", res: coderun.Result{Logs: []string{"only"}},
			texts: []string{"only"}, structured: `{"logs":["only"]}`},
		{name: "nothing", res: coderun.Result{}, texts: []string{"(no output)"}, structured: `{"logs":[]}`},
		{name: "failure", res: coderun.Result{Logs: []string{"before"}, Error: &coderun.Failure{Kind: coderun.Timeout, Budget: coderun.BudgetWall, Message: "wall-clock ceiling reached (1000ms)"}},
			texts: []string{"code run failed (timeout, wall): wall-clock ceiling reached (1000ms)\n\noutput before the failure:\nbefore"}},
		{name: "failure without a budget", res: coderun.Result{Error: &coderun.Failure{Kind: coderun.Exception, Message: "Error: x"}},
			texts: []string{"code run failed (exception): Error: x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FormatResult(tc.res, 0)
			require.Equal(t, tc.res.Error != nil, got.IsError)
			var texts []string
			for _, c := range got.Content {
				texts = append(texts, c.(*sdk.TextContent).Text)
			}
			require.Equal(t, tc.texts, texts)
			if tc.structured == "" {
				require.Nil(t, got.StructuredContent)
				return
			}
			b, err := json.Marshal(got.StructuredContent)
			require.NoError(t, err)
			require.JSONEq(t, tc.structured, string(b))
		})
	}
}

// deepArray returns [[…[1]…]] nested depth deep, as compact JSON.
func deepArray(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth))
}

// indentedSize counts exactly what json.Indent makes of compact JSON.
func TestIndentedSize(t *testing.T) {
	for _, v := range []string{`1`, `null`, `"s"`, `[]`, `{}`, `[[]]`, `[{}]`, `{"a":[]}`, `[1,2,[3,{}],{"a":{"b":[true,null]}}]`,
		`{"k:,[]{}\"\\":"v,:[{}]"}`, `[[[[1]],[[2,3]]]]`, string(deepArray(50))} {
		var buf bytes.Buffer
		require.NoError(t, json.Indent(&buf, []byte(v), "", "  "))
		n, ok := indentedSize([]byte(v), 1<<30)
		require.True(t, ok)
		require.Equal(t, int64(buf.Len()), n, v)
	}
}

// A value's text is never larger than its compact JSON plus MaxIndentBytes,
// nor than MaxOutputBytes less the logs: a deep value is shown compact
// (indented, an array nested 9,990 deep would be 200 MB of spaces).
func TestFormatResultBounded(t *testing.T) {
	tests := []struct {
		name     string
		value    json.RawMessage
		logs     []string
		max      int64 // 0 for the default
		indented bool
	}{
		{name: "deep", value: deepArray(9990)},
		{name: "shallow", value: json.RawMessage(`{"list":[1,2,3],"n":{"m":null}}`), indented: true},
		{name: "wide within the allowance", value: wideArray(t, 100), indented: true},
		{name: "wide beyond the allowance", value: wideArray(t, 3000)},
		{name: "over MaxOutputBytes", value: json.RawMessage(`{"a":[1,2]}`), max: 14},
		{name: "logs count against MaxOutputBytes", value: json.RawMessage(`{"a":1}`), logs: []string{"0123456789"}, max: 21},
		{name: "fits with the logs", value: json.RawMessage(`{"a":1}`), logs: []string{"0123456789"}, max: 22, indented: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := FormatResult(coderun.Result{Value: tc.value, Logs: tc.logs}, tc.max)
			text := res.Content[len(res.Content)-1].(*sdk.TextContent).Text
			limit := tc.max
			if limit == 0 {
				limit = coderun.DefaultConfig().MaxOutputBytes
			}
			require.LessOrEqual(t, len(text), len(tc.value)+MaxIndentBytes)
			require.LessOrEqual(t, int64(len(text)), max(limit, int64(len(tc.value))))
			want := string(tc.value)
			if tc.indented {
				var buf bytes.Buffer
				require.NoError(t, json.Indent(&buf, tc.value, "", "  "))
				want = buf.String()
			}
			require.Equal(t, want, text)
		})
	}
}

// wideArray returns n small objects as compact JSON.
func wideArray(t *testing.T, n int) json.RawMessage {
	t.Helper()
	list := make([]map[string]any, n)
	for i := range list {
		list[i] = map[string]any{"id": i, "tags": []string{"a", "b"}}
	}
	b, err := json.Marshal(list)
	require.NoError(t, err)
	return b
}
