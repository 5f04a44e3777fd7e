package coderun

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/coderun/coderun/internal/tsdecl"
)

// Doc documents a namespace member for Declarations. It plays no part in
// running: calls are not checked against its schemas.
type Doc struct {
	// Description says what the member does, for a model; it becomes the
	// member's doc comment.
	Description string
	// Input is the JSON Schema of the member's argument, and Output that of
	// what the call resolves to; nil means unknown. Describe infers both
	// from Go types; an MCP tool brings its inputSchema and outputSchema.
	Input, Output json.RawMessage
}

// Describe returns a Doc with description and the JSON Schemas of the JSON
// encodings of In and Out, for a member made by Bind from a
// func(context.Context, In) (Out, error). The schemas follow encoding/json:
// json tags name the properties, omitempty and omitzero fields and pointer
// fields are optional, pointers admit null, embedded structs are flattened,
// time.Time and encoding.TextMarshaler types are strings, and types whose
// encoding the Go type does not determine (interfaces, json.RawMessage,
// json.Marshaler types, recursive references) accept anything. A field's
// jsonschema tag is its description, as with the MCP go-sdk's AddTool.
// Slices and maps are declared as arrays and objects, although nil ones
// encode as null.
func Describe[In, Out any](description string) Doc {
	return Doc{
		Description: description,
		Input:       tsdecl.SchemaFor(reflect.TypeFor[In]()),
		Output:      tsdecl.SchemaFor(reflect.TypeFor[Out]()),
	}
}

// Declarations renders namespaces as TypeScript declarations, for putting
// into a model's prompt next to a Request with the same Bindings: a
// `declare const` for each namespace, in order and separated by a blank
// line, with one method per member sorted by name, then a `declare class`
// for each distinct ErrorClass (compared by pointer, as Run does). A member
// with a Doc is typed from its schemas and commented with its description;
// a member without one is (args: unknown) => Promise<unknown>. Docs for
// names that are not members are ignored.
func Declarations(namespaces ...Namespace) string {
	var b strings.Builder
	var classes []*ErrorClass
	for i, ns := range namespaces {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(tsdecl.Namespace(ns.Global, ns.members()))
		if ns.ErrorClass != nil && !slices.Contains(classes, ns.ErrorClass) {
			classes = append(classes, ns.ErrorClass)
		}
	}
	for _, c := range classes {
		b.WriteString(tsdecl.ErrorClass(c.Name, c.MemberNameProperty))
	}
	return b.String()
}

// Declarations renders the namespace as TypeScript declarations: see the
// package-level Declarations.
func (ns Namespace) Declarations() string { return Declarations(ns) }

// members lists the namespace's members with their docs, sorted by name.
func (ns Namespace) members() []tsdecl.Member {
	names := make([]string, 0, len(ns.Functions))
	for name := range ns.Functions {
		names = append(names, name)
	}
	sort.Strings(names)
	members := make([]tsdecl.Member, len(names))
	for i, name := range names {
		d := ns.Docs[name]
		members[i] = tsdecl.Member{Name: name, Doc: d.Description, Params: d.Input, Result: d.Output}
	}
	return members
}
