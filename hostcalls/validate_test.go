package hostcalls

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name  string
		decls []Decl
	}{
		{"no namespaces", nil},
		{"zero members", []Decl{{Global: "tools"}}},
		{"odd member names", []Decl{{
			Global:  "tools",
			Members: []string{"", "__proto__", "constructor", "toString", "my-tool", "with space", "名前", "\u2028"},
		}}},
		{"member of max length", []Decl{{Global: "tools", Members: []string{strings.Repeat("m", MaxMemberNameLen)}}}},
		{"global of max length", []Decl{{Global: strings.Repeat("g", maxIdentifierLen)}}},
		{"underscore-led identifiers", []Decl{{Global: "_tools", ErrorClass: "_E1", MemberProperty: "x"}}},
		{"error class with code property", []Decl{{Global: "tools", ErrorClass: "ToolCallError", MemberProperty: "code"}}},
		{"member property is not an identifier", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "tool-name"}}},
		{"member property near dunder", []Decl{
			{Global: "a", ErrorClass: "A", MemberProperty: "____"},
			{Global: "b", ErrorClass: "B", MemberProperty: "__x"},
			{Global: "c", ErrorClass: "C", MemberProperty: "x__"},
		}},
		{"member property of max length", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: strings.Repeat("p", maxMemberPropertyLen)}}},
		{"member property ignored without class", []Decl{{Global: "tools", MemberProperty: "message"}}},
		{"case differs from reserved", []Decl{{Global: "none"}, {Global: "Console"}, {Global: "AWAIT"}}},
		{"same member in two namespaces", []Decl{
			{Global: "a", Members: []string{"x"}},
			{Global: "b", Members: []string{"x"}},
		}},
		{"several namespaces with classes", []Decl{
			{Global: "tools", ErrorClass: "ToolCallError", MemberProperty: "toolName"},
			{Global: "db", ErrorClass: "DbError", MemberProperty: "query"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, Validate(tt.decls))
		})
	}
}

// invalidCase is a binding declaration Validate rejects, with the full
// message after the ErrInvalidBinding prefix.
type invalidCase struct {
	name  string
	decls []Decl
	want  string
}

// requireInvalid checks that Validate rejects each case with its message.
func requireInvalid(t *testing.T, tests []invalidCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.decls)
			require.ErrorIs(t, err, ErrInvalidBinding)
			require.EqualError(t, err, ErrInvalidBinding.Error()+": "+tt.want)
		})
	}
}

// tenKB is a 10 KB name.
func tenKB() string { return strings.Repeat("a", 10*1024) }

// TestValidateRejectsGlobals: binding globals that are not usable identifiers, reserved or taken.
func TestValidateRejectsGlobals(t *testing.T) {
	long := tenKB()
	requireInvalid(t, []invalidCase{
		{"dollar global", []Decl{{Global: "$tools"}},
			`binding global "$tools" is not a usable identifier`},
		{"empty global", []Decl{{Global: ""}},
			`binding global "" is not a usable identifier`},
		{"digit-led global", []Decl{{Global: "1tools"}},
			`binding global "1tools" is not a usable identifier`},
		{"hyphenated global", []Decl{{Global: "my-tools"}},
			`binding global "my-tools" is not a usable identifier`},
		{"non-ASCII global", []Decl{{Global: "café"}},
			`binding global "café" is not a usable identifier`},
		{"non-ASCII letter-only global", []Decl{{Global: "ツール"}},
			`binding global "ツール" is not a usable identifier`},
		{"invalid UTF-8 global", []Decl{{Global: "t\xffools"}},
			`binding global "t\xffools" is not a usable identifier`},
		{"10 KB global", []Decl{{Global: long}},
			`binding global "` + long[:maxIdentifierLen] + `"... is too long (max 64)`},
		{"global one byte too long", []Decl{{Global: strings.Repeat("g", maxIdentifierLen+1)}},
			`binding global "` + strings.Repeat("g", maxIdentifierLen) + `"... is too long (max 64)`},
		{"JS reserved global", []Decl{{Global: "await"}},
			`binding global "await" is a reserved word`},
		{"Python reserved global", []Decl{{Global: "lambda"}},
			`binding global "lambda" is a reserved word`},
		{"Python capitalised reserved global", []Decl{{Global: "None"}},
			`binding global "None" is a reserved word`},
		{"underscore global", []Decl{{Global: "_"}},
			`binding global "_" is a reserved word`},
		{"console global", []Decl{{Global: "console"}},
			`reserved binding global "console"`},
		{"setTimeout global", []Decl{{Global: "setTimeout"}},
			`reserved binding global "setTimeout"`},
		{"dunder reserved global", []Decl{{Global: "__builtins__"}},
			`reserved binding global "__builtins__"`},
		{"duplicate global", []Decl{{Global: "tools"}, {Global: "db"}, {Global: "tools"}},
			`duplicate binding global "tools"`},
	})
}

// TestValidateRejectsClasses: error classes that are not usable identifiers, reserved, or clash with a global.
func TestValidateRejectsClasses(t *testing.T) {
	long := tenKB()
	requireInvalid(t, []invalidCase{
		{"digit-led class", []Decl{{Global: "tools", ErrorClass: "1x", MemberProperty: "toolName"}},
			`binding error class "1x" is not a usable identifier`},
		{"dollar class", []Decl{{Global: "tools", ErrorClass: "$Err", MemberProperty: "toolName"}},
			`binding error class "$Err" is not a usable identifier`},
		{"10 KB class", []Decl{{Global: "tools", ErrorClass: long, MemberProperty: "toolName"}},
			`binding error class "` + long[:maxIdentifierLen] + `"... is too long (max 64)`},
		{"reserved-word class", []Decl{{Global: "tools", ErrorClass: "await", MemberProperty: "toolName"}},
			`binding error class "await" is a reserved word`},
		{"reserved-global class", []Decl{{Global: "tools", ErrorClass: "console", MemberProperty: "toolName"}},
			`reserved binding error class "console"`},
		{"class equals own global", []Decl{{Global: "tools", ErrorClass: "tools", MemberProperty: "toolName"}},
			`duplicate injected global "tools"`},
		{"class equals later global", []Decl{
			{Global: "tools", ErrorClass: "ToolCallError", MemberProperty: "toolName"},
			{Global: "ToolCallError"},
		}, `duplicate injected global "ToolCallError"`},
		{"class equals earlier global", []Decl{
			{Global: "ToolCallError"},
			{Global: "tools", ErrorClass: "ToolCallError", MemberProperty: "toolName"},
		}, `duplicate injected global "ToolCallError"`},
		{"class shared by two namespaces", []Decl{
			{Global: "tools", ErrorClass: "ToolCallError", MemberProperty: "toolName"},
			{Global: "db", ErrorClass: "ToolCallError", MemberProperty: "toolName"},
		}, `duplicate injected global "ToolCallError"`},
	})
}

// TestValidateRejectsMemberProperties: error member properties that an error object already has or that are not names.
func TestValidateRejectsMemberProperties(t *testing.T) {
	long := tenKB()
	requireInvalid(t, []invalidCase{
		{"message property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "message"}},
			`binding error member property "message" is not usable`},
		{"empty property", []Decl{{Global: "tools", ErrorClass: "E"}},
			`binding error member property "" is not usable`},
		{"name property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "name"}},
			`binding error member property "name" is not usable`},
		{"stack property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "stack"}},
			`binding error member property "stack" is not usable`},
		{"args property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "args"}},
			`binding error member property "args" is not usable`},
		{"with_traceback property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "with_traceback"}},
			`binding error member property "with_traceback" is not usable`},
		{"add_note property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "add_note"}},
			`binding error member property "add_note" is not usable`},
		{"dunder property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "__class__"}},
			`binding error member property "__class__" is not usable`},
		{"shortest dunder property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "_____"}},
			`binding error member property "_____" is not usable`},
		{"dunder property with newline", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "__a\nb__"}},
			`binding error member property "__a\nb__" is not usable`},
		{"10 KB property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: long}},
			`binding error member property "` + long[:maxMemberPropertyLen] + `"... is not usable`},
		{"NUL in property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "a\x00b"}},
			`binding error member property "a\x00b" is not usable`},
		{"invalid UTF-8 property", []Decl{{Global: "tools", ErrorClass: "E", MemberProperty: "a\xfe"}},
			`binding error member property "a\xfe" is not usable`},
	})
}

// TestValidateRejectsMembers: member names that are too long, not UTF-8, hold a NUL or repeat.
func TestValidateRejectsMembers(t *testing.T) {
	long := tenKB()
	requireInvalid(t, []invalidCase{
		{"10 KB member", []Decl{{Global: "tools", Members: []string{"ok", long}}},
			`binding member "` + long[:MaxMemberNameLen] + `"... of "tools" is not usable`},
		{"member one byte too long", []Decl{{Global: "tools", Members: []string{strings.Repeat("m", MaxMemberNameLen+1)}}},
			`binding member "` + strings.Repeat("m", MaxMemberNameLen) + `"... of "tools" is not usable`},
		{"NUL in member", []Decl{{Global: "tools", Members: []string{"a\x00b"}}},
			`binding member "a\x00b" of "tools" is not usable`},
		{"invalid UTF-8 member", []Decl{{Global: "tools", Members: []string{"\xc3("}}},
			`binding member "\xc3(" of "tools" is not usable`},
		{"duplicate member", []Decl{{Global: "tools", Members: []string{"b", "a", "b"}}},
			`duplicate binding member "b" of "tools"`},
		{"first member in sorted order wins", []Decl{{Global: "tools", Members: []string{"z\x00", "a\x00"}}},
			`binding member "a\x00" of "tools" is not usable`},
	})
}

// TestValidateRejectsOrder: which of several faults is reported: the first in declaration order.
func TestValidateRejectsOrder(t *testing.T) {
	requireInvalid(t, []invalidCase{
		{"global error before class error", []Decl{{Global: "$t", ErrorClass: "1x", MemberProperty: "message"}},
			`binding global "$t" is not a usable identifier`},
		{"class error before property error", []Decl{{Global: "t", ErrorClass: "1x", MemberProperty: "message"}},
			`binding error class "1x" is not a usable identifier`},
		{"property error before member error", []Decl{{Global: "t", ErrorClass: "E", MemberProperty: "message", Members: []string{"\x00"}}},
			`binding error member property "message" is not usable`},
		{"earlier namespace wins", []Decl{{Global: "tools", Members: []string{"\x00"}}, {Global: "$db"}},
			`binding member "\x00" of "tools" is not usable`},
	})
}

func TestQuoteBounded(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"within limit", "abc", 3, `"abc"`},
		{"over limit", "abcd", 3, `"abc"...`},
		{"cut inside a rune backs off", "aé", 2, `"a"...`},
		{"cut at a rune boundary", "éa", 2, `"é"...`},
		{"cut inside a four-byte rune backs off", "a😀", 4, `"a"...`},
		{"invalid UTF-8 backs off at most three bytes", "ab\x80\x80\x80\x80\x80\x80", 6, `"ab\x80"...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, quoteBounded(tt.in, tt.limit))
		})
	}
}

func TestValidateSharedErrorClass(t *testing.T) {
	owner := Decl{Global: "files", ErrorClass: "ToolCallError", MemberProperty: "toolName"}
	shared := Decl{Global: "web", ErrorClass: "ToolCallError", MemberProperty: "toolName", SharesErrorClass: true}
	require.NoError(t, Validate([]Decl{owner, shared}))

	err := Validate([]Decl{shared, owner})
	require.ErrorIs(t, err, ErrInvalidBinding)
	require.ErrorContains(t, err, `binding error class "ToolCallError" of "web" is not declared by an earlier namespace`)

	other := shared
	other.MemberProperty = "tool"
	require.ErrorContains(t, Validate([]Decl{owner, other}), "is not declared by an earlier namespace")

	unshared := shared
	unshared.SharesErrorClass = false
	require.ErrorContains(t, Validate([]Decl{owner, unshared}), `duplicate injected global "ToolCallError"`)
}
