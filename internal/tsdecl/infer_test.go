package tsdecl

import (
	"encoding/json"
	"math/big"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type (
	tsAddress struct {
		Street string `json:"street"`
		Zip    string `json:"zip,omitempty"`
	}
	tsPerson struct {
		Name     string            `json:"name"`
		Age      int               `json:"age,omitempty"`
		Home     tsAddress         `json:"home"`
		Work     *tsAddress        `json:"work"`
		Past     []tsAddress       `json:"past"`
		Tags     map[string]string `json:"tags,omitzero"`
		Secret   string            `json:"-"`
		Dash     string            `json:"-,"`
		private  string
		Untagged bool
		Born     time.Time `json:"born"`
		ID       int64     `json:"id,string"`
		Ratio    *float64  `json:"ratio,string"`
		Flag     bool      `json:"flag,string"`
		Slice    []int     `json:"slice,string"` // ",string" does not apply to slices
	}
	tsTree struct {
		Value    int       `json:"value"`
		Children []*tsTree `json:"children"`
		Parent   *tsTree   `json:"parent"`
	}
	tsA struct {
		B *tsB `json:"b"`
	}
	tsB struct {
		A tsA `json:"a"`
	}
	tsSelfList []tsSelfList
	tsSelfMap  map[string]tsSelfMap

	tsBase struct {
		ID      string `json:"id"`
		Created string `json:"created"`
	}
	tsOptBase struct {
		Note string `json:"note"`
	}
	tsEmbeds struct {
		tsBase
		*tsOptBase
		Created int    `json:"created"` // shallower field hides tsBase.Created
		Named   tsBase `json:"named"`
	}
	tsEmbedTagged struct {
		tsBase `json:"base"`
	}
	tsLeft struct {
		X int
		Y int `json:"y"`
	}
	tsRight struct {
		X string
		Y string
	}
	tsAmbiguous struct {
		tsLeft
		tsRight
	}
	tsEmbedNonStruct struct {
		tsCelsius // unexported non-struct: ignored
		Meters
		json.Number
	}
	// Meters is exported so that embedding it yields a field.
	Meters    float64
	tsCelsius float64
	tsViaL    struct{ tsBase }
	tsViaR    struct{ tsBase }
	tsDiamond struct {
		tsViaL
		tsViaR
		Own string `json:"own"`
	}
	tsSelfEmbed struct {
		*tsSelfEmbed
		X int `json:"x"`
	}
	tsRoute struct {
		From tsAddress `json:"from"`
		To   tsAddress `json:"to"`
	}

	tsWeird struct {
		Hyphen  string `json:"my-field"`
		BadTag  string `json:"bad\"tag"`
		Digits  int    `json:"1st"`
		Dollar  int    `json:"$ref"`
		Ch      chan int
		Fn      func()
		Cplx    complex128
		Empty   struct{}
		Any     any
		Err     error
		Raw     json.RawMessage `json:"raw"`
		Num     json.Number     `json:"num"`
		PtrPtr  **int           `json:"pp"`
		PtrAny  *any            `json:"pa"`
		Arr     [2]byte         `json:"arr"`
		Bytes   []byte          `json:"bytes"`
		MapInt  map[int]bool    `json:"mi"`
		MapBad  map[[2]int]bool `json:"mb"`
		MapText map[netip.Addr]int
	}

	tsJSONMarshaler   struct{ X int }
	tsJSONUnmarshaler struct{ X int }
	tsTextPtr         struct{ X int }
	tsMarshalerFields struct {
		M  tsJSONMarshaler   `json:"m"`
		U  tsJSONUnmarshaler `json:"u"`
		T  tsTextPtr         `json:"t"`
		MQ tsJSONMarshaler   `json:"mq,string"`
		BI *big.Int          `json:"bi"`
		IP netip.Addr        `json:"ip"`
		TP *time.Time        `json:"tp"`
	}
)

type tsDescribed struct {
	Text  string `json:"text" jsonschema:"the text to echo"`
	Lines int    `json:"lines,omitempty" jsonschema:"up to 10\nlines */"`
	Opt   int    `json:"opt,omitempty" jsonschema:"enum=1,2"`
}

func (tsJSONMarshaler) MarshalJSON() ([]byte, error)  { return []byte(`0`), nil }
func (*tsJSONUnmarshaler) UnmarshalJSON([]byte) error { return nil }
func (*tsTextPtr) MarshalText() ([]byte, error)       { return nil, nil }

// Go types render through their inferred schemas as TypeScript types that
// match their JSON encoding: scalars, pointers, collections and the types
// with a JSON encoding of their own.
func TestSchemaForRendered(t *testing.T) {
	requireRendered(t, []renderedCase{
		{"nil", nil, "unknown"},
		{"bool", reflect.TypeFor[bool](), "boolean"},
		{"int", reflect.TypeFor[int](), "number"},
		{"uint8", reflect.TypeFor[uint8](), "number"},
		{"float32", reflect.TypeFor[float32](), "number"},
		{"named float", reflect.TypeFor[tsCelsius](), "number"},
		{"string", reflect.TypeFor[string](), "string"},
		{"bytes", reflect.TypeFor[[]byte](), "string"},
		{"byte array", reflect.TypeFor[[4]byte](), "number[]"},
		{"slice", reflect.TypeFor[[]string](), "string[]"},
		{"array", reflect.TypeFor[[3]int](), "number[]"},
		{"nested slice", reflect.TypeFor[[][]bool](), "boolean[][]"},
		{"pointer", reflect.TypeFor[*int](), "number | null"},
		{"pointer to pointer", reflect.TypeFor[**int](), "number | null"},
		{"slice of pointers", reflect.TypeFor[[]*int](), "(number | null)[]"},
		{"map", reflect.TypeFor[map[string]int](), "{ [key: string]: number }"},
		{"map with int keys", reflect.TypeFor[map[int64][]string](), "{ [key: string]: string[] }"},
		{"map with text keys", reflect.TypeFor[map[netip.Addr]bool](), "{ [key: string]: boolean }"},
		{"map with unusable keys", reflect.TypeFor[map[float64]bool](), "unknown"},
		{"map of pointers", reflect.TypeFor[map[string]*bool](), "{ [key: string]: boolean | null }"},
		{"any", reflect.TypeFor[any](), "unknown"},
		{"pointer to any", reflect.TypeFor[*any](), "unknown"},
		{"raw message", reflect.TypeFor[json.RawMessage](), "unknown"},
		{"json number", reflect.TypeFor[json.Number](), "number"},
		{"time", reflect.TypeFor[time.Time](), "string"},
		{"time pointer", reflect.TypeFor[*time.Time](), "string | null"},
		{"duration", reflect.TypeFor[time.Duration](), "number"},
		{"json marshaler", reflect.TypeFor[tsJSONMarshaler](), "unknown"},
		{"json unmarshaler on pointer", reflect.TypeFor[tsJSONUnmarshaler](), "unknown"},
		{"text marshaler on pointer", reflect.TypeFor[tsTextPtr](), "string"},
		{"big int", reflect.TypeFor[*big.Int](), "unknown"},
		{"chan", reflect.TypeFor[chan int](), "unknown"},
		{"func", reflect.TypeFor[func()](), "unknown"},
		{"complex", reflect.TypeFor[complex64](), "unknown"},
		{"empty struct", reflect.TypeFor[struct{}](), "{}"},
	})
}

// Structs render as object types with the fields encoding/json writes, in
// its order, optional where omitted when empty; recursion renders as
// unknown.
func TestSchemaForRenderedStructs(t *testing.T) {
	requireRendered(t, []renderedCase{
		{"anonymous struct", reflect.TypeFor[struct {
			Q string `json:"q"`
		}](), "{ q: string }"},
		{"nested struct", reflect.TypeFor[tsPerson](), `{
  name: string;
  home: { street: string; zip?: string };
  past: { street: string; zip?: string }[];
  "-": string;
  Untagged: boolean;
  born: string;
  id: string;
  flag: string;
  slice: number[];
  age?: number;
  ratio?: string | null;
  tags?: { [key: string]: string };
  work?: { street: string; zip?: string } | null;
}`},
		{"slice of structs", reflect.TypeFor[[]tsAddress](), "{ street: string; zip?: string }[]"},
		{"recursive struct", reflect.TypeFor[tsTree](),
			"{ value: number; children: unknown[]; parent?: unknown }"},
		{"pointer to recursive struct", reflect.TypeFor[*tsTree](),
			"{ value: number; children: unknown[]; parent?: unknown } | null"},
		{"mutually recursive structs", reflect.TypeFor[tsA](), "{ b?: { a: unknown } | null }"},
		{"recursive slice", reflect.TypeFor[tsSelfList](), "unknown[]"},
		{"recursive map", reflect.TypeFor[tsSelfMap](), "{ [key: string]: unknown }"},
		{"embedded structs", reflect.TypeFor[tsEmbeds](), `{
  id: string;
  created: number;
  named: { id: string; created: string };
  note?: string;
}`},
		{"embedded struct with tag name", reflect.TypeFor[tsEmbedTagged](),
			"{ base: { id: string; created: string } }"},
		{"ambiguous embedded fields", reflect.TypeFor[tsAmbiguous](), "{ y: number; Y: string }"},
		{"embedded non-struct", reflect.TypeFor[tsEmbedNonStruct](), "{ Meters: number; Number: number }"},
		{"same struct embedded twice at one depth", reflect.TypeFor[tsDiamond](), "{ own: string }"},
		{"self-embedding struct", reflect.TypeFor[tsSelfEmbed](), "{ x: number }"},
		{"repeated non-recursive type is expanded each time", reflect.TypeFor[tsRoute](), `{
  from: { street: string; zip?: string };
  to: { street: string; zip?: string };
}`},
	})
}

// Fields render with their JSON names (quoted where they are not
// identifiers), their types as encoding/json writes them, and their
// jsonschema descriptions as doc comments.
func TestSchemaForRenderedFields(t *testing.T) {
	requireRendered(t, []renderedCase{
		{"field names and odd types", reflect.TypeFor[tsWeird](), `{
  "my-field": string;
  BadTag: string;
  "1st": number;
  $ref: number;
  Ch: unknown;
  Fn: unknown;
  Cplx: unknown;
  Empty: {};
  Any: unknown;
  Err: unknown;
  raw: unknown;
  num: number;
  arr: number[];
  bytes: string;
  mi: { [key: string]: boolean };
  mb: unknown;
  MapText: { [key: string]: number };
  pa?: unknown;
  pp?: number | null;
}`},
		{"marshaler fields", reflect.TypeFor[tsMarshalerFields](), `{
  m: unknown;
  u: unknown;
  t: string;
  mq: unknown;
  ip: string;
  bi?: unknown;
  tp?: string | null;
}`},
		{"described fields", reflect.TypeFor[tsDescribed](), `{
  /** the text to echo */
  text: string;
  /**
   * up to 10
   * lines *\/
   */
  lines?: number;
  opt?: number;
}`},
	})
}

// renderedCase is a Go type and the TypeScript type its schema renders as.
type renderedCase struct {
	name string
	typ  reflect.Type
	want string
}

// requireRendered checks that the schema of each case's type renders as
// its TypeScript type, and that the type is valid TypeScript.
func requireRendered(t *testing.T, tests []renderedCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := typeScript(SchemaFor(tt.typ), "")
			require.Equal(t, tt.want, got)
			requireValidType(t, got)
		})
	}
}

// The test types encode as TestSchemaForRenderedStructs and
// TestSchemaForRenderedFields say: their field names and optionality are
// checked against what encoding/json actually produces.
func TestTestTypesEncoding(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"zero person", tsPerson{},
			`{"name":"","home":{"street":""},"work":null,"past":null,"-":"","Untagged":false,` +
				`"born":"0001-01-01T00:00:00Z","id":"0","ratio":null,"flag":"false","slice":null}`},
		{"embeds with nil pointer", tsEmbeds{}, `{"id":"","created":0,"named":{"id":"","created":""}}`},
		{"embeds with pointer", tsEmbeds{tsOptBase: &tsOptBase{}}, `{"id":"","note":"","created":0,"named":{"id":"","created":""}}`},
		{"diamond", tsDiamond{}, `{"own":""}`},
		{"self-embedding", tsSelfEmbed{}, `{"x":0}`},
		{"ambiguous", tsAmbiguous{}, `{"y":0,"Y":""}`},
		{"embedded non-struct", tsEmbedNonStruct{Number: "1"}, `{"Meters":0,"Number":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(got))
		})
	}
}

// The inferred schemas themselves, for the constructs whose schema says
// more than its rendering.
func TestSchemaFor(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"nil", nil, `{}`},
		{"any", reflect.TypeFor[any](), `{}`},
		{"pointer", reflect.TypeFor[**int](), `{"type": ["integer", "null"]}`},
		{"time", reflect.TypeFor[time.Time](), `{"type": "string", "format": "date-time"}`},
		{"bytes", reflect.TypeFor[[]byte](), `{"type": "string", "contentEncoding": "base64"}`},
		{"array", reflect.TypeFor[[2]bool](), `{"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 2}`},
		{"map", reflect.TypeFor[map[int]*string](), `{"type": "object", "additionalProperties": {"type": ["string", "null"]}}`},
		{"struct", reflect.TypeFor[tsDescribed](), `{"type": "object", "additionalProperties": false, "required": ["text"], "properties": {
			"text": {"type": "string", "description": "the text to echo"},
			"lines": {"type": "integer", "description": "up to 10\nlines */"},
			"opt": {"type": "integer"}}}`},
		{"empty struct", reflect.TypeFor[struct{}](), `{"type": "object", "properties": {}, "additionalProperties": false}`},
		{"quoted pointer", reflect.TypeFor[struct {
			P *int `json:"p,string"`
		}](), `{"type": "object", "properties": {"p": {"type": ["string", "null"]}}, "additionalProperties": false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.JSONEq(t, tt.want, string(SchemaFor(tt.typ)))
		})
	}
}
