package transpile

import (
	"strconv"
	"strings"
)

// shape is a program pattern that makes esbuild recurse (or backtrack) once per repetition:
// the program is pre×n + mid + post×n. A shape with levels is instead a fixed number of openers
// around a filling: pre×levels + mid×m + post×levels, where build chooses m. A "%d" in a
// repeated part stands for the repetition's number, so that each repetition has its own names.
type shape struct {
	name           string
	pre, mid, post string
	rejected       bool // at 1 MiB the program is refused (for its nesting) before esbuild sees it
	overWork       bool // at 1 MiB the program is refused for its compile work (see work.go)
	levels         int  // the number of openers, when the size grows the filling instead
}

// build returns the shape repeated to about size bytes.
func (s shape) build(size int) string {
	if s.levels > 0 {
		outer := s.levels * (len(s.pre) + len(s.post))
		return strings.Repeat(s.pre, s.levels) + repeatCounted(s.mid, max(1, (size-outer)/len(s.mid))) +
			strings.Repeat(s.post, s.levels)
	}
	return s.repeat(max(1, (size-len(s.mid))/max(1, len(s.pre)+len(s.post))))
}

// repeat returns the shape repeated n times.
func (s shape) repeat(n int) string {
	return repeatCounted(s.pre, n) + s.mid + repeatCounted(s.post, n)
}

// repeatCounted is strings.Repeat, replacing "%d" with the repetition's number, up to the size
// the plain repetition has.
func repeatCounted(unit string, n int) string {
	if !strings.Contains(unit, "%d") {
		return strings.Repeat(unit, n)
	}
	var b strings.Builder
	size := n * len(unit)
	b.Grow(size + len(unit) + 16)
	for k := 0; b.Len() < size; k++ {
		b.WriteString(strings.ReplaceAll(unit, "%d", strconv.Itoa(k)))
	}
	return b.String()
}

// worstShapes are the deep or backtracking shapes that checkNesting bounds, and some flat shapes
// that esbuild handles iteratively and that must compile.
var worstShapes = []shape{
	{name: "parens", pre: "(", mid: "x", post: ")", rejected: true},
	{name: "arrays", pre: "[", mid: "", post: "]", rejected: true},
	{name: "objects", pre: "({a:", mid: "1", post: "})", rejected: true},
	{name: "blocks", pre: "{", mid: "", post: "}", rejected: true},
	{name: "functions", pre: "(function(){", mid: "", post: "})", rejected: true},
	{name: "calls", pre: "f(", mid: "", post: ")", rejected: true},
	{name: "templates", pre: "`${", mid: "x", post: "}`", rejected: true},
	{name: "minus", pre: "-", mid: "x", rejected: true},
	{name: "not", pre: "!", mid: "x", rejected: true},
	{name: "tilde", pre: "~", mid: "x", rejected: true},
	{name: "increment", pre: "++", mid: "x", rejected: true},
	{name: "typeof", pre: "typeof ", mid: "x", rejected: true},
	{name: "void", pre: "void ", mid: "x", rejected: true},
	{name: "await", pre: "await ", mid: "x", rejected: true},
	{name: "new", pre: "new ", mid: "X", rejected: true},
	{name: "spread", pre: "[...", mid: "x", post: "]", rejected: true},
	{name: "member chain", pre: "a.", mid: "b", rejected: true},
	{name: "call chain", mid: "f", post: "()", rejected: true},
	{name: "index chain", mid: "a", post: "[0]", rejected: true},
	{name: "optional call chain", mid: "a", post: "?.()", rejected: true},
	{name: "non-null chain", mid: "a", post: "!.b", rejected: true},
	{name: "tagged templates", mid: "f", post: "``", rejected: true},
	{name: "assignments", pre: "a=", mid: "b", rejected: true},
	{name: "exponents", pre: "a**", mid: "b", rejected: true},
	{name: "ternaries", pre: "a?b:", mid: "c", rejected: true},
	{name: "nested ternaries", pre: "a?", mid: "b", post: ":c", rejected: true},
	{name: "arrows", pre: "a=>", mid: "b", rejected: true},
	{name: "async arrows", pre: "async a=>", mid: "b", rejected: true},
	{name: "if chain", pre: "if(a)", mid: "b", rejected: true},
	{name: "else if chain", pre: "if(a)b;else ", mid: "c", rejected: true},
	{name: "else if blocks", pre: "if(a){}else ", mid: "{}", rejected: true},
	{name: "while chain", pre: "while(a)", mid: "b", rejected: true},
	{name: "labels", pre: "a:", mid: "b", rejected: true},
	{name: "do chain", pre: "do ", mid: "x", post: ";while(a)", rejected: true},
	{name: "class extends", pre: "(class extends ", mid: "X", post: "{})", rejected: true},
	{name: "type arguments", pre: "let x: A<", mid: "B", post: ">", rejected: true},
	{name: "keyof", pre: "let x: keyof ", mid: "T", rejected: true},
	{name: "conditional types", pre: "type T = A extends B ? C : ", mid: "D", rejected: true},
	{name: "function types", pre: "let f: (a: ", mid: "T", post: ") => T", rejected: true},
	{name: "type casts", pre: "<any>", mid: "x", rejected: true},
	{name: "comparisons and commas", pre: "a<b,", mid: "c", rejected: true},
	{name: "speculative arrows", pre: "x=a?(b):c=>", mid: "d", rejected: true},
	{name: "less-than newline", pre: "a<b|\n", mid: "c", rejected: true},
	{name: "sums", pre: "a+", mid: "b", overWork: true}, // its names are counted deep in the chain
	{name: "logical", pre: "a&&", mid: "b", overWork: true},
	{name: "commas", pre: "a,", mid: "b", rejected: true},
	{name: "statements", pre: "x=-a.b.c;\n", mid: "", overWork: true},
	{name: "strings", pre: "s+='((((((((((((((((((((';\n", mid: ""},
	// Openers left open (or nested) before a long program, each of which the scan's checks
	// once walked from to the end of the program (or of the opener).
	{name: "unclosed declare global", pre: "declare global {\n", mid: "x=-a.b.c;\n", levels: 490, overWork: true},
	{name: "unclosed import attrs", pre: "import type X from 'm' with {\n", mid: "x=-a.b.c;\n", levels: 160, overWork: true},
	{name: "unclosed constructors", pre: "constructor(", mid: "x=-a.b.c;\n", levels: 240, overWork: true},
	{name: "nested constructors", pre: "constructor(", mid: "x=-a.b.c,\n", post: ")", levels: 240, overWork: true},
	// Tokens deep inside brackets, for each of which the scan once walked down the stack of
	// open brackets to the function around it.
	{name: "awaits in arrays", pre: "[", mid: "await x,\n", post: "]", levels: 490, overWork: true},
	{name: "vars in blocks", pre: "{", mid: "var a;\n", post: "}", levels: 490, overWork: true},
	// Flat shapes on which esbuild spends the most time per unit of compile work (see work.go):
	// statements ended by line breaks, blocks, object literals, new names, functions.
	{name: "lines", pre: "x\n", overWork: true},
	{name: "number lines", pre: "1\n", overWork: true},
	{name: "empty blocks", pre: "{}\n", overWork: true},
	{name: "blocks with a name", pre: "{x}\n", overWork: true},
	{name: "block declarations", pre: "{let a=1}\n", overWork: true},
	{name: "shorthand objects", pre: "x={a,b,c,d,e,f,g,h};\n", overWork: true},
	{name: "templates with a name", pre: "`${x}`;\n", overWork: true},
	{name: "new names", pre: "a%d\n", overWork: true},
	{name: "new names in blocks", pre: "{a%d}\n", overWork: true},
	// At 1 MiB, these are refused for their number of functions (maxFunctions).
	{name: "function declarations", pre: "function f%d(a,b){return a+b}\n"},
	{name: "arrow functions", pre: "a=>b\n"},
	{name: "classes", pre: "class A%d{m(){}}\n"},
	// Names and blocks deep inside scopes, each of which esbuild resolves or creates by walking
	// the scopes around it.
	{name: "names in blocks", pre: "{", mid: "x\n", post: "}", levels: 480, overWork: true},
	{name: "assignments in blocks", pre: "{", mid: "a=1\n", post: "}", levels: 480, overWork: true},
	{name: "blocks in blocks", pre: "{", mid: "{}\n", post: "}", levels: 480, overWork: true},
	{name: "new names in blocks deep", pre: "{", mid: "a%d\n", post: "}", levels: 480, overWork: true},
	{name: "names in arrays", pre: "[", mid: "x,", post: "]", levels: 480, overWork: true},
	{name: "names in arrows", pre: "a=>[", mid: "x,", post: "]", levels: 100, overWork: true},
	{name: "names in for loops", pre: "for(;;){", mid: "x\n", post: "}", levels: 150, overWork: true},
	{name: "names in catch blocks", pre: "try{}catch(e){", mid: "e\n", post: "}", levels: 60, overWork: true},
	{name: "names in switch cases", pre: "switch(x){case 1:", mid: "x\n", post: "}", levels: 60, overWork: true},
}
