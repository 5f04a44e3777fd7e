package hostcalls

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// contractReservedWords and contractReservedGlobals are copied verbatim from
// contract §3 and the brief, so that a typo in names.go fails a test; the
// globals' second line is what coderun injects besides (docs/contract.md
// §2): the program's input, the timers and the web-platform globals.
const (
	contractReservedWords = `await break case catch class const continue debugger
    default delete do else enum export extends false finally for function if import in instanceof new
    null return super switch this throw true try typeof var void while with yield let static
    implements interface package private protected public arguments eval False None True and as
    assert async def del elif except from global is lambda nonlocal not or pass raise match type _`
	contractReservedGlobals = `console __dsh_main__ __builtins__ __name__ __debug__
    setTimeout clearTimeout globalThis undefined NaN Infinity
    input setInterval clearInterval queueMicrotask TextEncoder TextDecoder atob btoa structuredClone crypto
    Event EventTarget AbortController AbortSignal DOMException performance URL URLSearchParams Intl`
)

func TestReservedSetsMatchContract(t *testing.T) {
	tests := []struct {
		name string
		got  func() []string
		want string
	}{
		{"words", sortedReservedWords, contractReservedWords},
		{"globals", sortedReservedGlobals, contractReservedGlobals},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Fields(tt.want)
			slices.Sort(want)
			require.Equal(t, want, tt.got())
		})
	}
}

func TestReservedListsAreCopies(t *testing.T) {
	words := sortedReservedWords()
	words[0] = "notReserved"
	require.NotEqual(t, "notReserved", sortedReservedWords()[0])
	require.False(t, isReservedWord("notReserved"))

	globals := sortedReservedGlobals()
	globals[0] = "notReserved"
	require.NotEqual(t, "notReserved", sortedReservedGlobals()[0])
	require.False(t, isReservedGlobal("notReserved"))
}

func TestIsReserved(t *testing.T) {
	tests := []struct {
		name       string
		wantWord   bool
		wantGlobal bool
	}{
		{"await", true, false},
		{"lambda", true, false},
		{"None", true, false},
		{"none", false, false},
		{"_", true, false},
		{"type", true, false},
		{"console", false, true},
		{"Console", false, false},
		{"clearTimeout", false, true},
		{"__debug__", false, true},
		{"input", false, true},
		{"Input", false, false},
		{"setInterval", false, true},
		{"crypto", false, true},
		{"URL", false, true},
		{"Intl", false, true},
		{"tools", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.wantWord, isReservedWord(tt.name))
			require.Equal(t, tt.wantGlobal, isReservedGlobal(tt.name))
		})
	}
}

func TestIsIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"tools", true},
		{"_", true},
		{"_0", true},
		{"A9_z", true},
		{"", false},
		{"0a", false},
		{"$a", false},
		{"a$", false},
		{"a-b", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.want, isIdentifier(tt.in))
		})
	}
}

// sortedReservedWords returns the reserved words checked by isReservedWord, sorted.
// The slice is a fresh copy that the caller may modify.
func sortedReservedWords() []string { return sortedKeys(reservedWords) }

// sortedReservedGlobals returns the names checked by isReservedGlobal, sorted. The
// slice is a fresh copy that the caller may modify.
func sortedReservedGlobals() []string { return sortedKeys(reservedGlobals) }

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
