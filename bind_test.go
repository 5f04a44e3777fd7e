package coderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
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
	class := &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}
	tools := coderun.Namespace{
		Global: "tools",
		Functions: map[string]coderun.Func{
			"search":    coderun.Bind(search),
			"untyped":   coderun.Bind(search), // Bind alone carries no types
			"my-tool":   raw,
			"described": raw,
			"schemas":   raw,
		},
		Docs: map[string]coderun.Doc{
			"search":    coderun.Describe[searchIn, searchOut]("Searches the index.\nAt most 10 hits; a comment end */ stays inside."),
			"described": {Description: "Echoes its argument."},
			"schemas": {
				Input:  json.RawMessage(`{"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}}}, "required": ["ids"]}`),
				Output: json.RawMessage(`{"type": ["string", "null"]}`),
			},
			"no-such-member": {Description: "ignored"},
		},
		ErrorClass: class,
	}
	web := coderun.Namespace{Global: "web", Functions: map[string]coderun.Func{"fetch": raw}, ErrorClass: class}
	empty := coderun.Namespace{Global: "empty"}

	tests := []struct {
		name       string
		namespaces []coderun.Namespace
		want       string
	}{
		{"mixed namespace", []coderun.Namespace{tools}, `declare const tools: {
  /** Echoes its argument. */
  described(args: unknown): Promise<unknown>;
  "my-tool"(args: unknown): Promise<unknown>;
  schemas(args: { ids: number[] }): Promise<string | null>;
  /**
   * Searches the index.
   * At most 10 hits; a comment end *\/ stays inside.
   */
  search(args: { q: string; limit?: number }): Promise<{ hits: number; names: string[] }>;
  untyped(args: unknown): Promise<unknown>;
};
declare class ToolCallError extends Error { readonly toolName: string; }
`},
		{"a shared class is declared once, after the namespaces", []coderun.Namespace{web, empty, web}, `declare const web: {
  fetch(args: unknown): Promise<unknown>;
};

declare const empty: {};

declare const web: {
  fetch(args: unknown): Promise<unknown>;
};
declare class ToolCallError extends Error { readonly toolName: string; }
`},
		{"none", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, coderun.Declarations(tc.namespaces...))
		})
	}
	require.Equal(t, coderun.Declarations(tools), tools.Declarations())
}

type describeBase struct {
	ID string `json:"id"`
}

// DescribeNote is exported: encoding/json cannot decode into an embedded
// pointer to an unexported struct.
type DescribeNote struct {
	Note string `json:"note"`
}

// describeAll has a field of every kind Describe treats specially.
type describeAll struct {
	describeBase
	*DescribeNote
	Name    string            `json:"name" jsonschema:"who"`
	Age     int               `json:"age,omitempty"`
	Work    *describeBase     `json:"work"`
	Tags    map[string]int    `json:"tags"`
	List    []*float64        `json:"list"`
	Bytes   []byte            `json:"bytes"`
	When    time.Time         `json:"when"`
	Addr    netip.Addr        `json:"addr"`
	Count   int64             `json:"count,string"`
	Any     any               `json:"any"`
	Raw     json.RawMessage   `json:"raw"`
	Grid    [2][2]uint8       `json:"grid"`
	Nested  map[string][]bool `json:"nested,omitzero"`
	private int
}

// What Bind encodes validates against the schema Describe infers for Out,
// and arguments that validate against the one for In decode. Arguments of
// the wrong shape fail both. (encoding/json is laxer than the schema in
// places: it accepts arrays of numbers for []byte and arrays of any length
// for Go arrays.)
func TestDescribeMatchesBind(t *testing.T) {
	d := coderun.Describe[describeAll, describeAll]("")
	resolve := func(raw json.RawMessage) *jsonschema.Resolved {
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(raw, &s))
		r, err := s.Resolve(nil)
		require.NoError(t, err)
		return r
	}
	in, out := resolve(d.Input), resolve(d.Output)
	echo := coderun.Bind(func(_ context.Context, v describeAll) (describeAll, error) { return v, nil })
	one := 1.5
	values := []describeAll{
		{Tags: map[string]int{}, List: []*float64{}, Bytes: []byte{}},
		{describeBase: describeBase{ID: "x"}, DescribeNote: &DescribeNote{Note: "n"}, Name: "a", Age: 3,
			Work: &describeBase{ID: "w"}, Tags: map[string]int{"k": 1}, List: []*float64{&one, nil},
			Bytes: []byte("hi"), When: time.Unix(1, 0).UTC(), Addr: netip.MustParseAddr("::1"), Count: 7,
			Any: []any{1, "x"}, Raw: json.RawMessage(`{"r":true}`), Nested: map[string][]bool{"n": {true}}},
	}
	for i, v := range values {
		arg, err := json.Marshal(v)
		require.NoError(t, err)
		var instance any
		require.NoError(t, json.Unmarshal(arg, &instance))
		require.NoError(t, in.Validate(instance), "value %d as an argument: %s", i, arg)

		res, err := echo(context.Background(), arg)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(res, &instance))
		require.NoError(t, out.Validate(instance), "value %d as a result: %s", i, res)
	}
	for _, bad := range []string{`{"name": 1}`, `{"extra": 1}`, `{"count": 7}`, `{"bytes": 5}`, `{"grid": [["x"]]}`, `{"work": {"id": 1}}`} {
		var instance any
		require.NoError(t, json.Unmarshal([]byte(bad), &instance))
		require.Error(t, in.Validate(instance), bad)
		_, err := echo(context.Background(), json.RawMessage(bad))
		require.Error(t, err, bad)
	}
}

// AddFunc gives the member Bind gives and the declaration Describe gives,
// whatever the types; it makes the namespace's maps and replaces a member
// of the same name.
func TestAddFuncIsBindAndDescribe(t *testing.T) {
	class := &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}
	byHand := coderun.Namespace{Global: "tools", ErrorClass: class,
		Functions: map[string]coderun.Func{
			"search": coderun.Bind(search),
			"all":    coderun.Bind(func(_ context.Context, v describeAll) (describeAll, error) { return v, nil }),
			"echo":   coderun.Bind(func(_ context.Context, v any) (any, error) { return v, nil }),
		},
		Docs: map[string]coderun.Doc{
			"search": coderun.Describe[searchIn, searchOut]("Searches."),
			"all":    coderun.Describe[describeAll, describeAll]("Echoes every kind of field."),
			"echo":   coderun.Describe[any, any](""),
		},
	}
	added := coderun.Namespace{Global: "tools", ErrorClass: class}
	coderun.AddFunc(&added, "search", "replaced below", func(context.Context, int) (int, error) { return 0, nil })
	coderun.AddFunc(&added, "search", "Searches.", search)
	coderun.AddFunc(&added, "all", "Echoes every kind of field.", func(_ context.Context, v describeAll) (describeAll, error) { return v, nil })
	coderun.AddFunc(&added, "echo", "", func(_ context.Context, v any) (any, error) { return v, nil })
	require.Equal(t, byHand.Declarations(), added.Declarations())
	require.Equal(t, byHand.Docs, added.Docs)
	require.Len(t, added.Functions, 3)

	rt := newRuntime(t, nil)
	for _, ns := range []coderun.Namespace{byHand, added} {
		res := runWith(t, rt, `const r = await tools.search({q: "wasm"}); try { await tools.search({query: "x"}) } catch (e) { return [r.hits, r.names[0], e.message] }`, ns)
		require.NoError(t, res.Err())
		require.JSONEq(t, `[4, "wasm<&>", "invalid arguments: json: unknown field \"query\""]`, string(res.Value))
	}
}
