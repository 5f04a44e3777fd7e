package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun"
)

// MaxIndentBytes is how many bytes indenting may add to a value's compact
// JSON in run_code's text: a value whose indented form would be larger is
// shown compact. Indentation grows with depth times size, so an unbounded
// allowance would let a small deep value make a huge response.
const MaxIndentBytes = 64 << 10

// FormatResult renders a coderun Result for a model. On success the
// content is one text item holding the log entries, one per line, then one
// holding the value: a string as is, anything else as JSON, indented by two
// spaces when that adds at most MaxIndentBytes and keeps the logs and the
// value within maxOutputBytes (0 means the default Config's
// MaxOutputBytes), else compact (each item only when there is something to
// show; "(no output)" when there is neither). The structured content is
// {logs, value} (value absent when the program returned nothing; see
// OutputSchema). So the value's text is never larger than its compact JSON
// plus MaxIndentBytes, nor than maxOutputBytes when the compact JSON fits.
// On failure it is an error result whose text is "code run failed (KIND):
// MESSAGE", or "code run failed (KIND, BUDGET): MESSAGE" when a budget or a
// fault ended the run (see coderun.Failure), followed by the log entries
// written before the failure.
func FormatResult(res coderun.Result, maxOutputBytes int64) *sdk.CallToolResult {
	if res.Error != nil {
		label := string(res.Error.Kind)
		if res.Error.Budget != "" {
			label += ", " + string(res.Error.Budget)
		}
		text := fmt.Sprintf("code run failed (%s): %s", label, res.Error.Message)
		if len(res.Logs) > 0 {
			text += "\n\noutput before the failure:\n" + strings.Join(res.Logs, "\n")
		}
		return errorResult(text)
	}
	if maxOutputBytes <= 0 {
		maxOutputBytes = coderun.DefaultConfig().MaxOutputBytes
	}
	var content []sdk.Content
	var logText string
	if len(res.Logs) > 0 {
		logText = strings.Join(res.Logs, "\n")
		content = append(content, &sdk.TextContent{Text: logText})
	}
	if res.Value != nil {
		content = append(content, &sdk.TextContent{Text: formatValue(res.Value, maxOutputBytes-int64(len(logText)))})
	}
	if len(content) == 0 {
		content = []sdk.Content{&sdk.TextContent{Text: "(no output)"}}
	}
	logs := res.Logs
	if logs == nil {
		logs = []string{}
	}
	return &sdk.CallToolResult{Content: content, StructuredContent: structuredResult{Logs: logs, Value: res.Value}}
}

// structuredResult is run_code's structured content.
type structuredResult struct {
	Logs  []string        `json:"logs"`
	Value json.RawMessage `json:"value,omitempty"`
}

// OutputSchema is run_code's output schema, the shape of its structured
// content.
var OutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "logs": {
      "type": "array",
      "items": {"type": "string"},
      "description": "What the program printed with console.log and the like, one entry per call."
    },
    "value": {
      "anyOf": [{"type": "object"}, {"type": "array"}, {"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}],
      "description": "The program's return value, as JSON; absent when it returned nothing."
    }
  },
  "required": ["logs"]
}`)

// formatValue renders a value for the text content: a JSON string as the
// string, anything else indented when its indented size, counted first in
// one pass without building it, is at most MaxIndentBytes over the compact
// size and at most limit; else as it is (compact).
func formatValue(v json.RawMessage, limit int64) string {
	var str string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &str) == nil {
		return str
	}
	budget := min(int64(len(v))+MaxIndentBytes, limit)
	if n, ok := indentedSize(v, budget); !ok || n > budget {
		return string(v)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, v, "", "  "); err != nil {
		return string(v)
	}
	return buf.String()
}

// indentedSize returns the size of json.Indent(v, "", "  ") for compact
// JSON v (whitespace in v, which Indent drops, is counted as kept), counting
// in one pass over v; it stops, reporting false, as soon
// as the count exceeds budget (so its work is O(len(v)) however deep v is).
func indentedSize(v []byte, budget int64) (int64, bool) {
	var size, depth int64
	inString, escaped := false, false
	newline := func() { size += 1 + 2*depth }
	for i := 0; i < len(v); i++ {
		c := v[i]
		size++
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if i+1 < len(v) && (v[i+1] == '}' || v[i+1] == ']') {
				size++ // empty: "[]" or "{}" as it is
				i++
				break
			}
			depth++
			newline()
		case c == '}' || c == ']':
			depth--
			newline() // before the bracket
		case c == ',':
			newline()
		case c == ':':
			size++ // ": "
		}
		if size > budget {
			return size, false
		}
	}
	return size, true
}
