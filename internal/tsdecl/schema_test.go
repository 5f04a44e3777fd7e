package tsdecl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Schemas render as TypeScript types: booleans, scalars, enums, arrays,
// tuples and unions.
func TestTypeScript(t *testing.T) {
	requireTypeScript(t, []schemaCase{
		{"true", `true`, "unknown"},
		{"false", `false`, "never"},
		{"empty", `{}`, "unknown"},
		{"not a schema", `42`, "unknown"},
		{"string", `{"type": "string", "format": "uri"}`, "string"},
		{"integer", `{"type": "integer"}`, "number"},
		{"null", `{"type": "null"}`, "null"},
		{"unknown type", `{"type": "decimal"}`, "unknown"},
		{"type array", `{"type": ["string", "null"]}`, "string | null"},
		{"nullable", `{"type": "number", "nullable": true}`, "number | null"},
		{"const", `{"const": "a\"b"}`, `"a\"b"`},
		{"enum", `{"type": "string", "enum": ["x", 1, null, true]}`, `"x" | 1 | null | true`},
		{"array", `{"type": "array", "items": {"type": "string"}}`, "string[]"},
		{"array of union", `{"type": "array", "items": {"type": ["string", "number"]}}`, "(string | number)[]"},
		{"array without items", `{"type": "array"}`, "unknown[]"},
		{"implicit array", `{"items": {"type": "boolean"}}`, "boolean[]"},
		{"tuple", `{"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}`, "[string, number]"},
		{"open tuple", `{"type": "array", "prefixItems": [{"type": "string"}]}`, "[string, ...unknown[]]"},
		{"draft-07 tuple", `{"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "number"}}`, "[string, ...number[]]"},
		{"anyOf", `{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}`, "string | string[]"},
		{"oneOf with unknown", `{"oneOf": [{"type": "string"}, {}]}`, "unknown"},
		{"anyOf duplicates", `{"anyOf": [{"type": "string"}, {"type": "string", "minLength": 1}]}`, "string"},
		{"allOf", `{"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "object", "properties": {"b": {"type": "number"}}}]}`,
			"{ a: string } & { b?: number }"},
	})
}

// Object schemas render as object types, one line or one property a line,
// with doc comments; references are followed, recursion renders as unknown.
func TestTypeScriptObjects(t *testing.T) {
	requireTypeScript(t, []schemaCase{
		{"object and anyOf of requirements", `{"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}`,
			"{ a?: string }"},
		{"object", `{"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}, "c": {"type": "boolean"}}, "required": ["b", "a"]}`,
			"{ b: number; a: string; c?: boolean }"},
		{"empty object", `{"type": "object", "properties": {}}`, "{}"},
		{"closed empty object", `{"type": "object", "additionalProperties": false}`, "{}"},
		{"free object", `{"type": "object"}`, "{ [key: string]: unknown }"},
		{"map", `{"type": "object", "additionalProperties": {"type": "number"}}`, "{ [key: string]: number }"},
		{"open object", `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}`,
			"{ a?: string; [key: string]: unknown }"},
		{"pattern properties", `{"type": "object", "patternProperties": {"^x": {"type": "string"}, "^y": {"type": "number"}}, "additionalProperties": false}`,
			"{ [key: string]: string | number }"},
		{"quoted names", `{"type": "object", "properties": {"my-key": {"type": "string"}, "9": {}, "*/": {}}, "required": ["my-key"]}`,
			`{ "my-key": string; "*/"?: unknown; "9"?: unknown }`},
		{"nested", `{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]}}}, "required": ["tags"]}`,
			"{ tags: { k: string }[] }"},
		{"described", `{"type": "object", "properties": {"path": {"type": "string", "description": "File to read. */ not a comment end"}, "n": {"type": "integer", "description": "Lines\nto read", "default": 10}}, "required": ["path"]}`,
			"{\n" +
				"    /** File to read. *\\/ not a comment end */\n" +
				"    path: string;\n" +
				"    /**\n" +
				"     * Lines\n" +
				"     * to read\n" +
				"     * @default 10\n" +
				"     */\n" +
				"    n?: number;\n" +
				"  }"},
		{"nested multi-line", `{"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string", "description": "an x"}}}}}`,
			"{\n" +
				"    o?: {\n" +
				"      /** an x */\n" +
				"      x?: string;\n" +
				"    };\n" +
				"  }"},
		{"long inline becomes multi-line", `{"type": "object", "properties": {"aaaaaaaaaaaaaaaaaaaa": {"type": "string"}, "bbbbbbbbbbbbbbbbbbbb": {"type": "string"}, "cccccccccccccccccccc": {"type": "string"}}}`,
			"{\n" +
				"    aaaaaaaaaaaaaaaaaaaa?: string;\n" +
				"    bbbbbbbbbbbbbbbbbbbb?: string;\n" +
				"    cccccccccccccccccccc?: string;\n" +
				"  }"},
		{"ref", `{"type": "object", "properties": {"p": {"$ref": "#/$defs/point"}}, "required": ["p"], "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}}`,
			"{ p: { x: number } }"},
		{"recursive ref", `{"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}`,
			"{ next?: unknown }"},
		{"dangling ref", `{"$ref": "#/definitions/missing"}`, "unknown"},
		{"remote ref", `{"$ref": "https://example.com/s.json"}`, "unknown"},
		{"escaped ref", `{"$defs": {"a/b": {"type": "string"}}, "$ref": "#/$defs/a~1b"}`, "string"},
	})
}

// schemaCase is a JSON schema and the TypeScript type it renders as.
type schemaCase struct {
	name   string
	schema string
	want   string
}

// requireTypeScript checks that each case's schema renders as its type,
// indented by two spaces, and that the type is valid TypeScript.
func requireTypeScript(t *testing.T, tests []schemaCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := typeScript(json.RawMessage(tc.schema), "  ")
			require.Equal(t, tc.want, got)
			requireValidType(t, got)
		})
	}
}

// The SDK hands schemas over as decoded JSON; those render like raw JSON.
func TestTypeScriptDecoded(t *testing.T) {
	var decoded any
	require.NoError(t, json.Unmarshal([]byte(`{"type": "object", "properties": {"n": {"type": "number", "default": 2.5}}}`), &decoded))
	require.Equal(t, "{\n  /** @default 2.5 */\n  n?: number;\n}", typeScript(decoded, ""))
	require.Equal(t, "unknown", typeScript(nil, ""))
	require.Equal(t, "unknown", typeScript(make(chan int), ""))
}

// A deeply nested schema does not make the rendering explode.
func TestTypeScriptDepth(t *testing.T) {
	s := `{"type": "string"}`
	for range 100 {
		s = `{"type": "array", "items": ` + s + `}`
	}
	got := typeScript(json.RawMessage(s), "")
	require.Contains(t, got, "unknown")
	require.NotContains(t, got, "string")
}

// Local $refs that fan out would expand exponentially within the depth
// bound; the rendering budget keeps the output bounded, and what is cut
// renders as unknown.
func TestTypeScriptFanOutBounded(t *testing.T) {
	const levels, width = 20, 8
	defs := map[string]any{"d0": map[string]any{"type": "string", "enum": []any{strings.Repeat("x", 100)}}}
	for i := 1; i <= levels; i++ {
		props := map[string]any{}
		for j := range width {
			props[fmt.Sprintf("p%d", j)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i-1), "description": strings.Repeat("d", 50)}
		}
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"type": "object", "properties": props}
	}
	s := map[string]any{"$defs": defs, "$ref": fmt.Sprintf("#/$defs/d%d", levels)}
	got := typeScript(s, "")
	require.Contains(t, got, "unknown")
	// Unbounded, this is width^12 subschemas (the depth bound stops it at
	// 12 levels of property and $ref); bounded, it is about 156 KB.
	require.Less(t, len(got), 4*maxRenderCost)
	requireValidType(t, got)
}

// A huge enum renders once, without quadratic work: its members are
// charged to the budget, so the rest of the schema still renders.
func TestTypeScriptHugeEnum(t *testing.T) {
	values := make([]any, 200_000)
	for i := range values {
		values[i] = i
	}
	got := typeScript(map[string]any{"type": "object", "properties": map[string]any{
		"big": map[string]any{"enum": values}}}, "")
	require.Equal(t, "{ big?: unknown }", got)

	values = values[:1000]
	got = typeScript(map[string]any{"enum": values}, "")
	require.Equal(t, 1000, strings.Count(got, " | ")+1)
}

// Descriptions of properties are escaped like member docs.
func TestTypeScriptPropertyDocEscaped(t *testing.T) {
	got := typeScript(json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string", "description": "x */ y\u2028z", "default": "*/"}}}`), "")
	requireValidType(t, got)
	require.Equal(t, "{\n  /**\n   * x *\\/ y\n   * z\n   * @default \"*\\/\"\n   */\n  a?: string;\n}", got)
}

// Whatever schema an upstream sends renders as valid TypeScript of bounded
// size.
func FuzzTypeScript(f *testing.F) {
	for _, s := range []string{
		`{"type": "object", "properties": {"a": {"type": "string", "description": "x */"}}, "required": ["a"]}`,
		`{"anyOf": [{"const": {"a": [1, null]}}, {"enum": ["x", -1.5e300, true]}], "nullable": true}`,
		`{"$defs": {"n": {"properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}`,
		`{"type": "array", "prefixItems": [{"type": "integer"}], "items": false}`,
		`{"patternProperties": {"^x": {"type": "number", "default": 1}}, "additionalProperties": {"type": "null"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		got := typeScript(json.RawMessage(schema), "  ")
		require.LessOrEqual(t, len(got), 64*maxRenderCost+8*len(schema))
		requireValidType(t, got)
	})
}
