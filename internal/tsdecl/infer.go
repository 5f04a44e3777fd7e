package tsdecl

import (
	"encoding"
	"encoding/json"
	"reflect"
	"time"
)

var (
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	marshalerType       = reflect.TypeFor[json.Marshaler]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// schema is a JSON Schema under construction.
type schema = map[string]any

// SchemaFor returns a JSON Schema of the JSON encoding of Go type t, the
// values a Func made by coderun.Bind decodes or encodes. It follows
// encoding/json's rules:
//
//   - bool is "boolean"; integer kinds are "integer"; float kinds and
//     json.Number are "number"; string is "string".
//   - []byte (a slice whose elements have kind uint8 and no marshaler) is a
//     base64 "string"; other slices and all arrays are "array"s of items.
//   - Maps with string, integer or encoding.TextMarshaler keys are "object"s
//     with additionalProperties.
//   - A pointer adds "null" to the type of what it points to.
//   - Structs are "object"s without additional properties, with the fields
//     encoding/json encodes: named by json tag, skipping "-" and unexported
//     fields, flattening embedded structs (including the rules that hide
//     ambiguous names). A field is required unless tagged omitempty or
//     omitzero, a pointer, or promoted through an embedded pointer. A field
//     tagged ",string" whose type is a bool, number or string kind is a
//     "string". A field's jsonschema tag is its description, as with the
//     MCP go-sdk (unless it starts with a "WORD=" option).
//   - time.Time is a "string" of format date-time; types implementing
//     encoding.TextMarshaler or encoding.TextUnmarshaler are "string".
//   - Interfaces, json.RawMessage, types implementing json.Marshaler or
//     json.Unmarshaler (on the value or on its pointer), types encoding/json
//     cannot encode, and a nil t have the empty schema {}, which accepts
//     anything.
//
// Recursive types do not loop: a named type met again while its schema is
// being built (a recursive reference) is {}. A named type used several times
// without recursion is expanded inline each time. The output is
// deterministic.
func SchemaFor(t reflect.Type) json.RawMessage {
	r := inferrer{active: map[reflect.Type]bool{}}
	b, err := json.Marshal(r.schema(t))
	if err != nil { // Unreachable: the schema holds only strings, bools, ints, slices and maps.
		return json.RawMessage("{}")
	}
	return b
}

// inferrer holds the named types on the current path.
type inferrer struct {
	active map[reflect.Type]bool
}

func (r *inferrer) schema(t reflect.Type) schema {
	if t == nil {
		return schema{}
	}
	if t.Kind() == reflect.Pointer {
		return nullable(r.schema(t.Elem()))
	}
	switch {
	case t == timeType:
		return schema{"type": "string", "format": "date-time"}
	case t == numberType:
		return schema{"type": "number"}
	case t == rawMessageType, implementsAny(t, marshalerType, unmarshalerType):
		return schema{}
	case implementsAny(t, textMarshalerType, textUnmarshalerType):
		return schema{"type": "string"}
	}

	switch t.Kind() {
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number"}
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
		return r.composite(t)
	default: // Interface, Chan, Func, Complex, UnsafePointer.
		return schema{}
	}
}

// composite builds the schemas of structs, slices, arrays and maps, the
// kinds through which a named type can refer to itself.
func (r *inferrer) composite(t reflect.Type) schema {
	if t.Name() != "" {
		if r.active[t] {
			return schema{}
		}
		r.active[t] = true
		defer delete(r.active, t)
	}
	switch t.Kind() {
	case reflect.Struct:
		return r.object(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 &&
			!implementsAny(reflect.PointerTo(t.Elem()), marshalerType, textMarshalerType) {
			return schema{"type": "string", "contentEncoding": "base64"}
		}
		return schema{"type": "array", "items": r.schema(t.Elem())}
	case reflect.Array:
		return schema{"type": "array", "items": r.schema(t.Elem()), "minItems": t.Len(), "maxItems": t.Len()}
	default: // Map.
		if !usableMapKey(t.Key()) {
			return schema{}
		}
		return schema{"type": "object", "additionalProperties": r.schema(t.Elem())}
	}
}

func (r *inferrer) object(t reflect.Type) schema {
	props := schema{}
	required := []string{}
	for _, f := range jsonFields(t) {
		var fs schema
		if f.quoted {
			fs = schema{"type": "string"}
			if f.typ.Kind() == reflect.Pointer {
				fs = nullable(fs)
			}
		} else {
			fs = r.schema(f.typ)
		}
		if f.description != "" {
			fs["description"] = f.description
		}
		props[f.name] = fs
		if !f.omitEmpty && !f.omitZero && !f.viaPointer && f.typ.Kind() != reflect.Pointer {
			required = append(required, f.name)
		}
	}
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// nullable adds "null" to the types s admits, unless s admits anything.
func nullable(s schema) schema {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []string{t, "null"}
	case []string:
		for _, name := range t {
			if name == "null" {
				return s
			}
		}
		s["type"] = append(t, "null")
	}
	return s
}

// implementsAny reports whether t or *t implements any of the interfaces,
// which is when encoding/json uses a custom (un)marshaler for addressable
// values of t.
func implementsAny(t reflect.Type, ifaces ...reflect.Type) bool {
	pt := t
	if t.Kind() != reflect.Pointer {
		pt = reflect.PointerTo(t)
	}
	for _, i := range ifaces {
		if t.Implements(i) || pt.Implements(i) {
			return true
		}
	}
	return false
}

// usableMapKey reports whether encoding/json can encode maps with keys of
// type k; all such keys become JSON object member names.
func usableMapKey(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return k.Implements(textMarshalerType)
}
