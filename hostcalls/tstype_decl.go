package hostcalls

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Member describes one function of a namespace for RenderDeclarations.
type Member struct {
	// Name is the member name; any string. It is rendered as a bare property
	// name when it is an ASCII identifier, else as a JSON-quoted string.
	Name string
	// Doc is an optional doc comment, rendered as /** ... */.
	Doc string
	// Params is the TypeScript type of the single argument, for example from
	// TSType; "" means unknown.
	Params string
	// Result is the TypeScript type of the resolution; "" means unknown.
	Result string
}

// RenderDeclarations renders one namespace as TypeScript declarations for a
// model's prompt, members sorted by name:
//
//	declare const tools: {
//	  /** Search the web. */
//	  search(args: { q: string }): Promise<{ hits: number }>;
//	  "my-tool"(args: unknown): Promise<unknown>;
//	};
//
// followed, when errorClass is not "", by the error class:
//
//	declare class ToolCallError extends Error { readonly toolName: string; }
//
// global and errorClass are written as given, so they should have passed
// Validate; member names, the member property and docs may be any strings.
// Every line ends with "\n". A "*/" inside a doc is written as "*\/", and
// multi-line docs become a block comment with one " * " line per line.
func RenderDeclarations(global string, members []Member, errorClass, memberProperty string) string {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })

	var b strings.Builder
	if len(sorted) == 0 {
		b.WriteString("declare const " + global + ": {};\n")
	} else {
		b.WriteString("declare const " + global + ": {\n")
		for _, m := range sorted {
			WriteDocComment(&b, "  ", m.Doc)
			b.WriteString("  " + PropertyName(m.Name) +
				"(args: " + orUnknown(m.Params) + "): Promise<" + orUnknown(m.Result) + ">;\n")
		}
		b.WriteString("};\n")
	}
	if errorClass != "" {
		b.WriteString("declare class " + errorClass + " extends Error { readonly " +
			PropertyName(memberProperty) + ": string; }\n")
	}
	return b.String()
}

func orUnknown(ts string) string {
	if strings.TrimSpace(ts) == "" {
		return tsUnknown
	}
	return ts
}

// WriteDocComment writes doc as a JSDoc comment indented by indent, or
// nothing when doc is blank. Line endings are normalised, trailing spaces and
// leading and trailing blank lines dropped, and "*/" escaped.
func WriteDocComment(b *strings.Builder, indent, doc string) {
	doc = strings.ReplaceAll(doc, "\r\n", "\n")
	doc = strings.ReplaceAll(doc, "\r", "\n")
	doc = strings.ReplaceAll(doc, "*/", "*\\/")
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	switch len(lines) {
	case 0:
		return
	case 1:
		b.WriteString(indent + "/** " + lines[0] + " */\n")
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		if l == "" {
			b.WriteString(indent + " *\n")
		} else {
			b.WriteString(indent + " * " + l + "\n")
		}
	}
	b.WriteString(indent + " */\n")
}

// PropertyName renders name as a TypeScript property name: bare when it is
// an ASCII identifier (letters, digits, "_" and "$", not digit-led), else as
// a JSON string literal, which is also a valid TypeScript string literal.
func PropertyName(name string) string {
	if IsTSIdentifier(name) {
		return name
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(name) // A string always encodes.
	return strings.TrimSuffix(buf.String(), "\n")
}

// IsTSIdentifier reports whether s is an ASCII identifier that TypeScript
// accepts as a bare property name: letters, digits, "_" and "$", not
// digit-led.
func IsTSIdentifier(s string) bool {
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
