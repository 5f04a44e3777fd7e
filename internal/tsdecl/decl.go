package tsdecl

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Member describes one function of a namespace for Namespace.
type Member struct {
	// Name is the member name; any string. It is rendered as a bare property
	// name when it is an ASCII identifier, else as a JSON-quoted string.
	Name string
	// Doc is an optional description, rendered as a /** ... */ comment.
	Doc string
	// Params and Result are JSON Schemas of the single argument and of the
	// resolution (see typeScript); nil means unknown.
	Params, Result json.RawMessage
}

// Namespace renders one namespace as a TypeScript declaration for a model's
// prompt, members sorted by name:
//
//	declare const tools: {
//	  /** Search the web. */
//	  search(args: { q: string }): Promise<{ hits: number }>;
//	  "my-tool"(args: unknown): Promise<unknown>;
//	};
//
// global is written as given, so it should be a valid binding global;
// member names and docs may be any strings. Every line ends with "\n".
func Namespace(global string, members []Member) string {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })

	var b strings.Builder
	if len(sorted) == 0 {
		b.WriteString("declare const " + global + ": {};\n")
		return b.String()
	}
	b.WriteString("declare const " + global + ": {\n")
	for _, m := range sorted {
		const indent = "  "
		writeDoc(&b, indent, m.Doc)
		b.WriteString(indent + PropertyName(m.Name) + "(args: " + schemaOrUnknown(m.Params, indent) +
			"): Promise<" + schemaOrUnknown(m.Result, indent) + ">;\n")
	}
	b.WriteString("};\n")
	return b.String()
}

// schemaOrUnknown renders a member's schema, with nil or blank as unknown.
func schemaOrUnknown(schema json.RawMessage, indent string) string {
	if len(strings.TrimSpace(string(schema))) == 0 {
		return tsUnknown
	}
	return typeScript(schema, indent)
}

// ErrorClass renders the declaration of an injected error class:
//
//	declare class ToolCallError extends Error { readonly toolName: string; }
//
// name is written as given, so it should be a valid class name; the member
// property may be any string.
func ErrorClass(name, memberProperty string) string {
	return "declare class " + name + " extends Error { readonly " + PropertyName(memberProperty) + ": string; }\n"
}

// maxDocBytes bounds a doc comment's text: a longer one is cut at a
// character boundary and ends with "…".
const maxDocBytes = 4096

// writeDoc writes doc as a JSDoc comment indented by indent, or nothing when
// doc is blank. The comment cannot end early or break the declarations
// around it: "*/" is written as "*\/", line endings (including U+2028 and
// U+2029) are normalised to "\n", other control characters become spaces,
// and the text is cut to maxDocBytes. Trailing spaces and leading and
// trailing blank lines are dropped; a multi-line doc becomes a block comment
// with one " * " line per line.
func writeDoc(b *strings.Builder, indent, doc string) {
	lines := docLines(doc)
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

// docLines returns doc cleaned and split into lines for writeDoc.
func docLines(doc string) []string {
	doc = strings.ToValidUTF8(truncate(doc, maxDocBytes), "\uFFFD")
	doc = strings.Map(func(r rune) rune {
		switch {
		case r == '\n', r == '\t':
			return r
		case r == '\u2028', r == '\u2029':
			return '\n'
		case r < 0x20, r == 0x7f:
			return ' '
		}
		return r
	}, strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(doc))
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
	return lines
}

// truncate cuts s to at most max bytes, at a character boundary, ending it
// with "…" when it was cut.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
