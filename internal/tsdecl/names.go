package tsdecl

import (
	"bytes"
	"encoding/json"
	"strings"
)

// PropertyName renders name as a TypeScript property name: bare when it is
// an ASCII identifier (letters, digits, "_" and "$", not digit-led), else as
// a JSON string literal, which is also a valid TypeScript string literal.
func PropertyName(name string) string {
	if IsIdentifier(name) {
		return name
	}
	return Literal(name)
}

// IsIdentifier reports whether s is an ASCII identifier that TypeScript
// accepts as a bare property name: letters, digits, "_" and "$", not
// digit-led.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c == '$', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Literal renders a JSON value as a TypeScript literal type (or
// expression): JSON's strings, numbers, booleans, null, arrays and objects
// are all valid TypeScript with the same meaning. It is "unknown" for a
// value that does not encode.
func Literal(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return tsUnknown
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
