package tsdecl

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// maxSchemaDepth bounds how deeply typeScript descends into a schema, so that
// a hostile or pathological schema cannot make the declarations explode.
const maxSchemaDepth = 24

// maxRenderCost bounds the work of rendering one schema: every subschema
// visited costs 1, and every literal, property name and doc comment its
// length in bytes. Once it is spent, what is left renders as unknown, so
// that local $refs that fan out (each definition using the next one twice,
// say) cannot make the output grow exponentially.
const maxRenderCost = 1 << 16

// typeScript renders a JSON Schema as the TypeScript type of the values it
// accepts, for a model's prompt. schema is the schema as decoded JSON
// (map[string]any, bool, ...), a json.RawMessage, or anything else that
// marshals to JSON.
//
// Understood: type (a string or an array of strings), properties, required,
// additionalProperties and patternProperties (an index signature), items and
// prefixItems (arrays and tuples), enum, const, anyOf, oneOf, allOf, nullable
// (OpenAPI), boolean schemas and local $refs ("#/$defs/..."; a recursive
// reference renders as unknown). A property's description (or title)
// becomes its doc comment (see writeDoc), with its default as an @default
// line. Required properties come first, in the order of required, then the
// optional ones sorted by name. Anything else, any schema that cannot be
// decoded, and what lies deeper than 24 levels or beyond a bounded amount
// of rendering work, renders as unknown.
//
// Objects are inline ({ a: number; b?: string }) when they are short and no
// property has a doc comment; otherwise they span several lines, indented
// from indent, the indentation of the line the type starts on.
func typeScript(schema any, indent string) string {
	root, ok := Decode(schema)
	if !ok {
		return tsUnknown
	}
	r := schemaRenderer{root: root, active: map[string]bool{}, budget: maxRenderCost}
	return r.render(root, indent, 0).ts
}

const (
	tsUnknown = "unknown"
	tsNever   = "never"
)

// Decode turns a schema given as typeScript accepts it into decoded JSON
// values (numbers as json.Number), reporting false when it does not decode.
func Decode(schema any) (any, bool) {
	switch s := schema.(type) {
	case nil:
		return nil, false
	case map[string]any, bool:
		return s, true
	case json.RawMessage:
		return decodeJSON(s)
	case []byte:
		return decodeJSON(s)
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, false
	}
	return decodeJSON(b)
}

func decodeJSON(b []byte) (any, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// precedence of a rendered type, for parenthesising.
type precedence int

const (
	precUnion        precedence = iota // A | B
	precIntersection                   // A & B
	precPrimary                        // everything else
)

type rendered struct {
	ts   string
	prec precedence
}

func primary(ts string) rendered { return rendered{ts: ts, prec: precPrimary} }

type schemaRenderer struct {
	root   any
	active map[string]bool // $refs being rendered, to stop recursion
	budget int             // what is left of maxRenderCost
}

// charge spends cost from the budget and reports whether any was left.
func (r *schemaRenderer) charge(cost int) bool {
	if r.budget <= 0 {
		return false
	}
	r.budget -= cost
	return true
}

func (r *schemaRenderer) render(s any, indent string, depth int) rendered {
	if depth > maxSchemaDepth || !r.charge(1) {
		return primary(tsUnknown)
	}
	switch s := s.(type) {
	case bool:
		if s {
			return primary(tsUnknown)
		}
		return primary(tsNever)
	case map[string]any:
		return r.renderObjectSchema(s, indent, depth)
	}
	return primary(tsUnknown)
}

func (r *schemaRenderer) renderObjectSchema(s map[string]any, indent string, depth int) rendered {
	if ref, ok := s["$ref"].(string); ok {
		target, found := ResolveRef(r.root, ref)
		if !found || r.active[ref] {
			return primary(tsUnknown)
		}
		r.active[ref] = true
		defer delete(r.active, ref)
		return r.render(target, indent, depth+1)
	}
	if c, ok := s["const"]; ok {
		return r.literal(c)
	}
	if e, ok := s["enum"].([]any); ok {
		lits := make([]rendered, len(e))
		for i, v := range e {
			lits[i] = r.literal(v)
		}
		return union(lits)
	}

	base := r.renderTyped(s, indent, depth)
	parts := []rendered{base}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[key].([]any); ok && len(alts) > 0 {
			members := make([]rendered, len(alts))
			for i, a := range alts {
				members[i] = r.render(a, indent, depth+1)
			}
			parts = append(parts, union(members))
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			parts = append(parts, r.render(a, indent, depth+1))
		}
	}
	t := intersection(parts)
	if nullable, _ := s["nullable"].(bool); nullable && t.ts != tsUnknown {
		t = union([]rendered{t, primary("null")})
	}
	return t
}

// literal renders a const or enum value, charging its length.
func (r *schemaRenderer) literal(v any) rendered {
	lit := Literal(v)
	if !r.charge(len(lit)) {
		return primary(tsUnknown)
	}
	return primary(lit)
}

// renderTyped renders what the schema's type keyword (or, without one, its
// object or array keywords) says.
func (r *schemaRenderer) renderTyped(s map[string]any, indent string, depth int) rendered {
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, v := range t {
			if name, ok := v.(string); ok {
				types = append(types, name)
			}
		}
	default:
		switch {
		case hasAny(s, "properties", "additionalProperties", "patternProperties"):
			types = []string{"object"}
		case hasAny(s, "items", "prefixItems"):
			types = []string{"array"}
		default:
			return primary(tsUnknown)
		}
	}
	members := make([]rendered, 0, len(types))
	for _, t := range types {
		switch t {
		case "string", "number", "boolean", "null":
			members = append(members, primary(t))
		case "integer":
			members = append(members, primary("number"))
		case "array":
			members = append(members, r.renderArray(s, indent, depth))
		case "object":
			members = append(members, r.renderObject(s, indent, depth))
		default:
			members = append(members, primary(tsUnknown))
		}
	}
	return union(members)
}

func hasAny(s map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

func (r *schemaRenderer) renderArray(s map[string]any, indent string, depth int) rendered {
	prefix, _ := s["prefixItems"].([]any)
	rest, hasRest := s["items"]
	if tuple, ok := rest.([]any); ok { // draft-07 tuple form
		prefix, rest = tuple, s["additionalItems"]
		_, hasRest = s["additionalItems"]
	}
	if len(prefix) == 0 {
		if !hasRest {
			return primary("unknown[]")
		}
		return primary(arrayOf(r.render(rest, indent, depth+1)))
	}
	elems := make([]string, 0, len(prefix)+1)
	for _, p := range prefix {
		elems = append(elems, r.render(p, indent, depth+1).ts)
	}
	closed := false
	if hasRest {
		if b, ok := rest.(bool); ok && !b {
			closed = true
		}
	}
	if !closed {
		restTS := primary(tsUnknown)
		if hasRest {
			restTS = r.render(rest, indent, depth+1)
		}
		elems = append(elems, "..."+arrayOf(restTS))
	}
	return primary("[" + strings.Join(elems, ", ") + "]")
}

func arrayOf(elem rendered) string {
	if elem.prec < precPrimary {
		return "(" + elem.ts + ")[]"
	}
	return elem.ts + "[]"
}

type tsProperty struct {
	index    bool // the index signature, [key: string]
	name     string
	doc      string
	optional bool
	ts       string
}

// maxInlineObject is the longest object type rendered on one line.
const maxInlineObject = 72

// renderObject renders the object schema s as an object type: its
// properties, then an index signature for its patternProperties and
// additionalProperties.
func (r *schemaRenderer) renderObject(s map[string]any, indent string, depth int) rendered {
	inner := indent + "  "
	props, _ := s["properties"].(map[string]any)
	order, required := propertyOrder(s, props)
	var fields []tsProperty
	for _, name := range order {
		p := props[name]
		doc := propertyDoc(p)
		r.charge(len(name) + min(len(doc), maxDocBytes))
		fields = append(fields, tsProperty{
			name:     name,
			doc:      doc,
			optional: !required[name],
			ts:       r.render(p, inner, depth+1).ts,
		})
	}

	var index []rendered
	if pp, ok := s["patternProperties"].(map[string]any); ok {
		keys := make([]string, 0, len(pp))
		for k := range pp {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			index = append(index, r.render(pp[k], inner, depth+1))
		}
	}
	if ap, ok := s["additionalProperties"]; ok {
		if b, isBool := ap.(bool); !isBool || b {
			index = append(index, r.render(ap, inner, depth+1))
		}
	} else if props == nil && len(index) == 0 {
		index = append(index, primary(tsUnknown))
	}
	if len(index) > 0 {
		fields = append(fields, tsProperty{index: true, ts: union(index).ts})
	}
	if len(fields) == 0 {
		return primary("{}")
	}
	return layoutObject(fields, indent, inner)
}

// propertyOrder returns the names of the properties props of the object
// schema s in the order they are rendered (the required ones in the order
// of s's "required", then the others sorted), and the set of the required.
func propertyOrder(s, props map[string]any) ([]string, map[string]bool) {
	required := map[string]bool{}
	var order []string
	if req, ok := s["required"].([]any); ok {
		for _, v := range req {
			if name, ok := v.(string); ok && !required[name] {
				required[name] = true
				if _, declared := props[name]; declared {
					order = append(order, name)
				}
			}
		}
	}
	var optional []string
	for name := range props {
		if !required[name] {
			optional = append(optional, name)
		}
	}
	slices.Sort(optional)
	return append(order, optional...), required
}

// layoutObject renders an object type of fields: on one line when it is
// short and has no doc comments, else one field a line, indented by inner.
func layoutObject(fields []tsProperty, indent, inner string) rendered {
	multiline := false
	parts := make([]string, len(fields))
	for i, f := range fields {
		if f.doc != "" || strings.Contains(f.ts, "\n") {
			multiline = true
		}
		parts[i] = f.key() + ": " + f.ts
	}
	if inline := "{ " + strings.Join(parts, "; ") + " }"; !multiline && len(inline) <= maxInlineObject {
		return primary(inline)
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, f := range fields {
		writeDoc(&b, inner, f.doc)
		b.WriteString(inner + parts[i] + ";\n")
	}
	b.WriteString(indent + "}")
	return primary(b.String())
}

func (f tsProperty) key() string {
	if f.index {
		return "[key: string]"
	}
	k := PropertyName(f.name)
	if f.optional {
		k += "?"
	}
	return k
}

// propertyDoc is a property's doc comment: its description (or title), and
// its default value.
func propertyDoc(p any) string {
	m, ok := p.(map[string]any)
	if !ok {
		return ""
	}
	doc, _ := m["description"].(string)
	if doc == "" {
		doc, _ = m["title"].(string)
	}
	if d, ok := m["default"]; ok {
		if doc != "" {
			doc += "\n"
		}
		doc += "@default " + Literal(d)
	}
	return doc
}

// union joins types with " | ", flattening nested unions, dropping
// duplicates and never, and collapsing to unknown when any member is unknown.
func union(members []rendered) rendered {
	var out []string
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		if m.ts == tsUnknown {
			return primary(tsUnknown)
		}
		if m.ts == tsNever || seen[m.ts] {
			continue
		}
		seen[m.ts] = true
		out = append(out, m.ts)
	}
	switch len(out) {
	case 0:
		return primary(tsNever)
	case 1:
		if len(members) == 1 {
			return members[0]
		}
		return primary(out[0])
	}
	return rendered{ts: strings.Join(out, " | "), prec: precUnion}
}

// intersection joins types with " & ", dropping unknown members (which
// constrain nothing) and parenthesising unions.
func intersection(members []rendered) rendered {
	var out []rendered
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		if m.ts == tsUnknown || seen[m.ts] {
			continue
		}
		if m.ts == tsNever {
			return primary(tsNever)
		}
		seen[m.ts] = true
		out = append(out, m)
	}
	switch len(out) {
	case 0:
		return primary(tsUnknown)
	case 1:
		return out[0]
	}
	parts := make([]string, len(out))
	for i, m := range out {
		parts[i] = m.ts
		if m.prec == precUnion {
			parts[i] = "(" + m.ts + ")"
		}
	}
	return rendered{ts: strings.Join(parts, " & "), prec: precIntersection}
}

// ResolveRef resolves a local JSON pointer reference ("#", "#/$defs/x")
// against the decoded root schema.
func ResolveRef(root any, ref string) (any, bool) {
	if ref == "#" {
		return root, true
	}
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(path, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}
