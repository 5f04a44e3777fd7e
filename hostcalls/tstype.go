package hostcalls

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
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

// tsUnknown is the TypeScript type of anything whose JSON shape the Go type
// does not determine.
const tsUnknown = "unknown"

// TSType renders a Go type as the TypeScript type of its JSON encoding,
// following encoding/json's rules:
//
//   - bool is boolean; all integer and float kinds are number; string is
//     string; json.Number is number.
//   - []byte (a slice whose elements have kind uint8 and no marshaler) is
//     string (base64); other slices and all arrays are T[].
//   - Maps with string, integer or encoding.TextMarshaler keys are
//     Record<string, T>.
//   - A pointer is T | null.
//   - Structs are object types, { a: T; b?: U }, with fields in declaration
//     order, selected and named like encoding/json does: by json tag name,
//     skipping "-" and unexported fields, flattening embedded structs
//     (including the rules that hide ambiguous names). A field is optional
//     (b?: U) when tagged omitempty or omitzero, when it is a pointer (then
//     its type is rendered without "| null"), or when it is promoted through
//     an embedded pointer. A field tagged ",string" whose type is a bool,
//     number or string kind is string.
//   - time.Time and types implementing encoding.TextMarshaler or
//     encoding.TextUnmarshaler are string.
//   - Interfaces, json.RawMessage, and types implementing json.Marshaler or
//     json.Unmarshaler (on the value or on its pointer) are unknown.
//   - Types encoding/json cannot encode (channels, functions, complex
//     numbers, maps with other keys) are unknown, as is a nil t.
//
// Recursive types do not loop: a named type met again while it is still
// being rendered (a recursive reference) renders as unknown. A named type
// used several times without recursion is expanded inline each time. The
// output is deterministic and on one line.
func TSType(t reflect.Type) string {
	r := renderer{active: map[reflect.Type]bool{}}
	s, _ := r.render(t)
	return s
}

// renderer holds the named types on the current rendering path.
type renderer struct {
	active map[reflect.Type]bool
}

// render returns the TypeScript type of t and whether it is a top-level
// union (so that it needs parentheses as an array element).
func (r *renderer) render(t reflect.Type) (ts string, union bool) {
	if t == nil {
		return tsUnknown, false
	}
	if t.Kind() == reflect.Pointer {
		return nullable(r.render(t.Elem()))
	}
	switch {
	case t == timeType:
		return "string", false
	case t == numberType:
		return "number", false
	case t == rawMessageType, implementsAny(t, marshalerType, unmarshalerType):
		return tsUnknown, false
	case implementsAny(t, textMarshalerType, textUnmarshalerType):
		return "string", false
	}

	switch t.Kind() {
	case reflect.Bool:
		return "boolean", false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number", false
	case reflect.String:
		return "string", false
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
		return r.renderComposite(t), false
	default: // Interface, Chan, Func, Complex, UnsafePointer.
		return tsUnknown, false
	}
}

// renderComposite renders structs, slices, arrays and maps, the kinds through
// which a named type can refer to itself.
func (r *renderer) renderComposite(t reflect.Type) string {
	if t.Name() != "" {
		if r.active[t] {
			return tsUnknown
		}
		r.active[t] = true
		defer delete(r.active, t)
	}
	switch t.Kind() {
	case reflect.Struct:
		return r.renderStruct(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 &&
			!implementsAny(reflect.PointerTo(t.Elem()), marshalerType, textMarshalerType) {
			return "string"
		}
		return r.renderArray(t.Elem())
	case reflect.Array:
		return r.renderArray(t.Elem())
	default: // Map.
		if !usableMapKey(t.Key()) {
			return tsUnknown
		}
		v, _ := r.render(t.Elem())
		return "Record<string, " + v + ">"
	}
}

func (r *renderer) renderArray(elem reflect.Type) string {
	s, union := r.render(elem)
	if union {
		return "(" + s + ")[]"
	}
	return s + "[]"
}

func (r *renderer) renderStruct(t reflect.Type) string {
	fields := jsonFields(t)
	if len(fields) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{ ")
	for i, f := range fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(PropertyName(f.name))
		ft := f.typ
		optional := f.omitEmpty || f.omitZero || f.viaPointer || ft.Kind() == reflect.Pointer
		if optional {
			b.WriteString("?")
		}
		b.WriteString(": ")
		switch {
		case f.quoted:
			b.WriteString("string")
		case ft.Kind() == reflect.Pointer:
			s, _ := r.render(ft.Elem())
			b.WriteString(s)
		default:
			s, _ := r.render(ft)
			b.WriteString(s)
		}
	}
	b.WriteString(" }")
	return b.String()
}

// nullable adds "| null" to a rendered type unless it already admits null.
func nullable(ts string, union bool) (string, bool) {
	if ts == tsUnknown || strings.HasSuffix(ts, " | null") {
		return ts, union
	}
	return ts + " | null", true
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
