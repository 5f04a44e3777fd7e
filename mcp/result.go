package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun/serialize"
)

// ResultJSON maps the result of a tools/call (see the MCP specification's
// [tool result]) to what the program's call resolves to, as lossless JSON,
// or to the error it rejects with:
//
//   - isError: an error whose message is the result's text content (the
//     text items joined by newlines);
//   - structuredContent, when present: that value;
//   - otherwise, when every content item is text: the text items joined by
//     newlines, parsed as JSON when the text is lossless JSON, else as a
//     JSON string;
//   - no content at all: null;
//   - otherwise (images, audio, resources): the content items as an array
//     of MCP content objects ({"type": "image", "data": ..., ...}).
//
// [tool result]: https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-result
func ResultJSON(res *sdk.CallToolResult) (json.RawMessage, error) {
	if res == nil {
		return json.RawMessage("null"), nil
	}
	if res.IsError {
		text, _ := textOf(res.Content)
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return nil, errors.New(text)
	}
	if res.NeedsInput() {
		return nil, errors.New("the tool asked the client for input, which a program cannot provide")
	}
	if res.StructuredContent != nil {
		b, err := marshalJSON(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("the tool's structuredContent cannot be encoded: %w", err)
		}
		if err := serialize.CheckJSON(b); err != nil {
			return nil, fmt.Errorf("the tool's structuredContent is not lossless JSON: %w", err)
		}
		return b, nil
	}
	if len(res.Content) == 0 {
		return json.RawMessage("null"), nil
	}
	if text, ok := textOf(res.Content); ok {
		if trimmed := bytes.TrimSpace([]byte(text)); len(trimmed) > 0 && serialize.CheckJSON(trimmed) == nil {
			return trimmed, nil
		}
		return marshalString(text), nil
	}
	b, err := marshalJSON(res.Content)
	if err != nil {
		return nil, fmt.Errorf("the tool's content cannot be encoded: %w", err)
	}
	return b, nil
}

// textOf joins the text items of content with newlines, and reports whether
// every item was text.
func textOf(content []sdk.Content) (string, bool) {
	var texts []string
	all := true
	for _, c := range content {
		if t, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		} else {
			all = false
		}
	}
	return strings.Join(texts, "\n"), all
}

// marshalString encodes s as a JSON string without HTML escaping.
func marshalString(s string) json.RawMessage {
	b, _ := marshalJSON(s) // A string always encodes.
	return b
}

// marshalJSON encodes v as compact JSON without HTML escaping.
func marshalJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
