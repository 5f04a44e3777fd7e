package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
)

// The checked-in root and budget directories, from this package's.
var (
	budgetDir = filepath.Join("..", "..", "budget")
	rootDir   = filepath.Join("..", "..")
)

// TestGeneratedUpToDate regenerates budget/limits_gen.go and config_gen.go
// from budget.Fields and compares them with the checked-in files: a
// difference means a row, or the template, changed without `go generate
// ./budget`.
func TestGeneratedUpToDate(t *testing.T) {
	files, err := generate(budget.Fields(), budgetDir, rootDir)
	require.NoError(t, err)
	require.Len(t, files, 2)
	for path, want := range files {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./budget\nchecked in:\n%s\nregenerated:\n%s", path, got, want)
		}
	}
}

// A new row is all a new budget takes: both structs get its field, of its
// type, after the others; Config's with the row's Doc as its comment, and
// the template's fields after the budgets'.
func TestGenerateNewRow(t *testing.T) {
	rows := append(budget.Fields(), budget.Field{Name: "TestOnlyBudget", Type: "int", Unit: budget.Count,
		Default: 3, Min: 1, Help: "widgets a run may make", Doc: "TestOnlyBudget caps the widgets a run makes."})
	files, err := generate(rows, budgetDir, rootDir)
	require.NoError(t, err)
	for path, src := range files {
		structName := "Limits"
		if filepath.Base(path) == configFile {
			structName = "Config"
		}
		fields, docs := structFields(t, path, src, structName)
		require.Equal(t, len(rows)-1, indexOf(fields, "TestOnlyBudget int"), "%s: %v", path, fields)
		for i, f := range rows {
			require.Equal(t, f.Name+" "+f.Type, fields[i], path)
		}
		if structName == "Config" {
			require.Equal(t, "TestOnlyBudget caps the widgets a run makes.\n", docs[len(rows)-1])
			require.Equal(t, []string{"MaxTraceBytes int64", "CacheDir string", "Prewarm int"}, fields[len(rows):])
		} else {
			require.Len(t, fields, len(rows))
		}
	}
}

// structFields parses src and returns the fields of its struct name, as
// "Name Type", with their doc comments' text.
func structFields(t *testing.T, path string, src []byte, name string) (fields, docs []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	require.NoError(t, err, "%s", src)
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != name {
			return true
		}
		for _, field := range ts.Type.(*ast.StructType).Fields.List {
			var typ strings.Builder
			require.NoError(t, printer.Fprint(&typ, fset, field.Type))
			fields = append(fields, field.Names[0].Name+" "+typ.String())
			docs = append(docs, field.Doc.Text())
		}
		return false
	})
	require.NotEmpty(t, fields, "%s has no struct %s", path, name)
	return fields, docs
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// A row that cannot become a field of both structs is refused, named.
func TestCheckRows(t *testing.T) {
	good := budget.Field{Name: "TestOnlyBudget", Type: "int", Unit: budget.Count, Min: 1, Help: "h", Doc: "TestOnlyBudget caps."}
	for _, tc := range []struct {
		name   string
		change func(*budget.Field)
		want   string // "" when the row is valid
	}{
		{"valid", func(*budget.Field) {}, ""},
		{"unexported", func(f *budget.Field) { f.Name, f.Doc = "testOnlyBudget", "testOnlyBudget x" }, "not an exported Go identifier"},
		{"not an identifier", func(f *budget.Field) { f.Name = "Max Widgets" }, "not an exported Go identifier"},
		{"duplicate", func(f *budget.Field) { f.Name, f.Doc = "Fuel", "Fuel x" }, "another row's"},
		{"unknown type", func(f *budget.Field) { f.Type = "string" }, `Type "string" is none of`},
		{"duration unit of an int", func(f *budget.Field) { f.Unit = budget.Duration }, "one type of the unit Duration"},
		{"duration type of a count", func(f *budget.Field) { f.Type = "time.Duration" }, "one type of the unit Duration"},
		{"size of an int", func(f *budget.Field) { f.Unit = budget.Size }, "a Size is an int64"},
		{"no help", func(f *budget.Field) { f.Help = "" }, "no Help"},
		{"doc of another name", func(f *budget.Field) { f.Doc = "OnlyBudget caps." }, "does not begin with its Name"},
		{"doc closing a comment", func(f *budget.Field) { f.Doc = "TestOnlyBudget */ x" }, "holds */"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := good
			tc.change(&row)
			err := check(append(budget.Fields(), row))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, fmt.Sprintf("row %d (%q)", len(budget.Fields()), row.Name))
		})
	}
	require.ErrorContains(t, check(nil), "no rows")
}

// comment fills each paragraph to commentWidth, never splits a word, and
// marks a paragraph break with an empty comment line.
func TestComment(t *testing.T) {
	long := strings.Repeat("word ", 40)
	got := comment("A "+long+"\n\nB.", "\t")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	require.Greater(t, len(lines), 3)
	for _, l := range lines {
		require.True(t, strings.HasPrefix(l, "\t//"), l)
		require.LessOrEqual(t, len(l)-len("\t"), commentWidth, l)
		require.NotContains(t, l, "  ")
	}
	require.Equal(t, "\t//", lines[len(lines)-2])
	require.Equal(t, "\t// B.", lines[len(lines)-1])
	require.Equal(t, "A "+strings.TrimSpace(long), strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(lines[:len(lines)-2], " "), "//", "")), " "))
	require.Equal(t, "\t// "+strings.Repeat("x", 100)+"\n", comment(strings.Repeat("x", 100), "\t"))
}
