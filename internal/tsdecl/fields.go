package tsdecl

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// jsonField is one member of a struct's JSON encoding.
type jsonField struct {
	name        string
	tagged      bool         // name came from the json tag
	index       []int        // field index sequence, for ordering
	typ         reflect.Type // the Go field's own type
	omitEmpty   bool
	omitZero    bool
	quoted      bool   // ",string" applies: the value is encoded as a JSON string
	viaPointer  bool   // promoted through an embedded pointer, so absent when it is nil
	description string // from the jsonschema tag
}

// jsonFields returns the fields encoding/json encodes for struct type t, in
// encoding order. It follows encoding/json's typeFields: a breadth-first walk
// of embedded structs, then Go's dominance rules modified by json tags.
func jsonFields(t reflect.Type) []jsonField {
	type queued struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var current []queued
	next := []queued{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []jsonField

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}

		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true

			for i := range q.typ.NumField() {
				sf := q.typ.Field(i)
				name, opts, ok := fieldTag(sf)
				if !ok {
					continue
				}
				index := append(slices.Clip(q.index), i)

				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}

				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{
						name:        name,
						tagged:      name != "",
						index:       index,
						typ:         sf.Type,
						omitEmpty:   hasTagOption(opts, "omitempty"),
						omitZero:    hasTagOption(opts, "omitzero"),
						quoted:      hasTagOption(opts, "string") && quotable(ft),
						viaPointer:  q.viaPointer,
						description: schemaTagDescription(sf.Tag),
					}
					if f.name == "" {
						f.name = sf.Name
					}
					fields = append(fields, f)
					if count[q.typ] > 1 {
						// The same struct is embedded twice at this depth:
						// record a duplicate so that dominance drops it.
						fields = append(fields, f)
					}
					continue
				}

				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{
						typ:        ft,
						index:      index,
						viaPointer: q.viaPointer || sf.Type.Kind() == reflect.Pointer,
					})
				}
			}
		}
	}

	return dominantFields(fields)
}

// fieldTag returns the name (empty when the json tag gives none) and the
// options of the json tag of sf; false if encoding/json skips sf: it is
// unexported and not an embedded struct, or tagged "-".
func fieldTag(sf reflect.StructField) (name, opts string, ok bool) {
	if sf.Anonymous {
		et := sf.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if !sf.IsExported() && et.Kind() != reflect.Struct {
			return "", "", false
		}
	} else if !sf.IsExported() {
		return "", "", false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", "", false
	}
	name, opts, _ = strings.Cut(tag, ",")
	if !isValidJSONTag(name) {
		name = ""
	}
	return name, opts, true
}

// dominantFields applies Go's dominance rules, modified by json tags, to
// fields: of the fields with one name, the shallowest wins, a tagged one
// before an untagged one; two equally shallow and equally tagged hide each
// other. It returns the winners in field index order.
func dominantFields(fields []jsonField) []jsonField {
	slices.SortFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})

	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		// fields[i] dominates unless a second field with the same name is
		// equally shallow and equally tagged, which hides both.
		if j == i+1 || len(fields[i].index) != len(fields[i+1].index) || fields[i].tagged != fields[i+1].tagged {
			out = append(out, fields[i])
		}
		i = j
	}

	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

// quotable reports whether the ",string" option changes the encoding of a
// field of type t (already dereferenced once if an unnamed pointer): only
// bool, number and string kinds without a custom (un)marshaler are affected.
func quotable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.String:
		return !implementsAny(t, marshalerType, unmarshalerType, textMarshalerType, textUnmarshalerType)
	}
	return false
}

// schemaTagDescription returns the description a jsonschema struct tag
// gives a field, as the MCP go-sdk reads it: the whole tag, unless it starts
// with "WORD=", which go-sdk reserves for options.
func schemaTagDescription(tag reflect.StructTag) string {
	d := tag.Get("jsonschema")
	first := d
	if i := strings.IndexAny(d, " \t\n"); i >= 0 {
		first = d[:i]
	}
	if strings.Contains(first, "=") {
		return ""
	}
	return d
}

// hasTagOption reports whether the comma-separated options contain opt.
func hasTagOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// isValidJSONTag reports whether encoding/json accepts s as a field name in a
// json tag.
func isValidJSONTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
