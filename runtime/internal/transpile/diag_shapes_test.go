package transpile

import (
	"strings"
)

// diagShape is a program that makes esbuild report something once per repetition of unit
// (every "%d" in it replaced by the repetition's number), between pre and post.
type diagShape struct {
	name            string
	pre, unit, post string
	// twice: the numbered units are written twice in a row, so that each of the second
	// run repeats one of the first, half the program away.
	twice bool
	// linear: esbuild's reports are cheap (their notes are near): the program is accepted.
	linear bool
}

// build returns the shape repeated to about size bytes.
func (d diagShape) build(size int) string {
	var b strings.Builder
	limit := size - len(d.pre) - len(d.post)
	if d.twice {
		limit /= 2
	}
	for i := 0; ; i++ {
		u := strings.ReplaceAll(d.unit, "%d", itoa(i))
		if b.Len()+len(u) > limit {
			break
		}
		b.WriteString(u)
	}
	units := b.String()
	if d.twice {
		units += units
	}
	return d.pre + units + d.post
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// diagShapes are the constructs esbuild reports many times, with or without a note far away.
var diagShapes = []diagShape{
	// Notes at the "use strict" directive.
	{name: "legacy octal", unit: "010;"},
	{name: "octal escape", unit: `"\01";`},
	{name: "template octal escape", unit: "`\\1`;"},
	{name: "delete name", unit: "delete a;"},
	{name: "delete parenthesized", unit: "delete (a);"},
	{name: "with", unit: "with(a);"},
	{name: "reserved word", unit: "static;"},
	{name: "reserved declared", unit: "{let implements}"},
	{name: "yield outside generator", unit: "yield;"},
	{name: "eval declared", unit: "var eval;"},
	{name: "arguments assigned", unit: "arguments=1;"},
	{name: "eval destructured", unit: "[eval]=x;"},
	{name: "for-in initializer", unit: "for(var a=1 in b);"},
	// Notes at a first declaration.
	{name: "redeclared let", unit: "let a;"},
	{name: "redeclared list", unit: "let a=1,a=1;"},
	{name: "redeclared pattern", unit: "let [a]=1;"},
	{name: "redeclared escaped", pre: "let a;", unit: `let \u0061;`},
	{name: "var through block", pre: "let a;", unit: "{var a;}"},
	{name: "block var then let", unit: "{var a}let a;"},
	{name: "let in statement", unit: "if(a)let b;"},
	{name: "param redeclared", pre: "function f(a){", unit: "let a;", post: "}"},
	{name: "catch redeclared", pre: "try{}catch(e){", unit: "let e;", post: "}"},
	{name: "duplicate params", pre: "function f(", unit: "a,", post: "a){}"},
	{name: "duplicate pattern params", pre: "function f(", unit: "a,[a],{b:a},", post: "a){}"},
	{name: "duplicate arrow pattern", pre: "({", unit: "a,", post: "a})=>1"},
	{name: "const assigned", pre: "const a=1;", unit: "a=1;"},
	{name: "const assigned before", unit: "a=1;", post: "const a=1;"},
	{name: "const incremented", pre: "const a=1;", unit: "a++;"},
	{name: "const destructured", pre: "const a=1;[", unit: "a,", post: "a]=x"},
	{name: "const for-of", pre: "const a=1;", unit: "for(a of x);"},
	// Notes at an earlier occurrence.
	{name: "duplicate keys", pre: "x={", unit: "k%d:1,", post: "}", twice: true},
	{name: "duplicate keys repeated", pre: "x={", unit: "a:1,", post: "}"},
	{name: "duplicate string keys", pre: "x={", unit: `"k%d":1,k%d:1,`, post: "}", linear: true},
	{name: "duplicate class members", pre: "class C{", unit: "k%d;", post: "}", twice: true},
	{name: "duplicate proto", pre: "x={__proto__:1,", unit: "__proto__:1,", post: "}"},
	{name: "duplicate cases", pre: "switch(x){", unit: "case %d:", post: "}", twice: true},
	{name: "duplicate string cases", pre: "switch(x){case 'a':", unit: `case "a":`, post: "}"},
	{name: "nullish chain", pre: "x=[]", unit: "??a", post: ";"},
	{name: "nullish chains", unit: "x=[]??a??a??a??a??a??a??a??a??a??a??a??a??a??a??a??a;"},
	// Errors without a note, a few bytes each.
	{name: "decrement literal", unit: "--1;"},
	{name: "increment literal", unit: "1++;"},
	{name: "assign call", unit: "f()=1;"},
	{name: "assign parenthesized literal", unit: "(1)=1;"},
	{name: "assign optional chain", unit: "a?.b=1;"},
	{name: "assign this", unit: "this=1;"},
	{name: "assign new.target", unit: "new.target=1;"},
	{name: "literal pattern", pre: "[", unit: "1,", post: "1]=x"},
	{name: "expression pattern", pre: "[", unit: "a+b,", post: "a]=x"},
	{name: "object literal pattern", pre: "({", unit: "a:1,", post: "a}=x)"},
	{name: "regexp flags", unit: "x=/a/gg;"},
	{name: "break label", unit: "break a;"},
	{name: "super", unit: "super.x;"},
	{name: "private name", unit: "this.#a;"},
	{name: "private in", unit: "#a in b;"},
}
