package transpile

import "strings"

// shape is a program pattern that makes esbuild recurse (or backtrack) once per repetition:
// the program is pre×n + mid + post×n. A shape with levels is instead a fixed number of openers
// around a filling: pre×levels + mid×m + post×levels, where build chooses m.
type shape struct {
	name           string
	pre, mid, post string
	rejected       bool // at 1 MiB the program is refused before esbuild sees it
	levels         int  // the number of openers, when the size grows the filling instead
}

// build returns the shape repeated to about size bytes.
func (s shape) build(size int) string {
	if s.levels > 0 {
		outer := s.levels * (len(s.pre) + len(s.post))
		return strings.Repeat(s.pre, s.levels) + strings.Repeat(s.mid, max(1, (size-outer)/len(s.mid))) +
			strings.Repeat(s.post, s.levels)
	}
	return s.repeat(max(1, (size-len(s.mid))/max(1, len(s.pre)+len(s.post))))
}

// repeat returns the shape repeated n times.
func (s shape) repeat(n int) string {
	return strings.Repeat(s.pre, n) + s.mid + strings.Repeat(s.post, n)
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
	{name: "sums", pre: "a+", mid: "b"},
	{name: "logical", pre: "a&&", mid: "b"},
	{name: "commas", pre: "a,", mid: "b"},
	{name: "statements", pre: "x=-a.b.c;\n", mid: ""},
	{name: "strings", pre: "s+='((((((((((((((((((((';\n", mid: ""},
	// Openers left open (or nested) before a long program, each of which the scan's checks
	// once walked from to the end of the program (or of the opener).
	{name: "unclosed declare global", pre: "declare global {\n", mid: "x=-a.b.c;\n", levels: 490},
	{name: "unclosed import attrs", pre: "import type X from 'm' with {\n", mid: "x=-a.b.c;\n", levels: 160},
	{name: "unclosed constructors", pre: "constructor(", mid: "x=-a.b.c;\n", levels: 240},
	{name: "nested constructors", pre: "constructor(", mid: "x=-a.b.c,\n", post: ")", levels: 240},
	// Tokens deep inside brackets, for each of which the scan once walked down the stack of
	// open brackets to the function around it.
	{name: "awaits in arrays", pre: "[", mid: "await x,\n", post: "]", levels: 490},
	{name: "vars in blocks", pre: "{", mid: "var a;\n", post: "}", levels: 490},
}
