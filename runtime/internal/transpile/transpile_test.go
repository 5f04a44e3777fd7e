package transpile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/testenv"
)

// nodeCheck asserts that node parses js (an expression) as valid JavaScript.
func nodeCheck(t *testing.T, js string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "check.js")
	require.NoError(t, os.WriteFile(path, []byte("const f = "+js+";\n"), 0o600))
	out, err := exec.Command(testenv.Node(t), "--check", path).CombinedOutput()
	require.NoError(t, err, "node --check: %s\n%s", out, js)
}

// nodeRun calls the program's function in node with the given parameter names bound to the given
// JavaScript expressions and returns the JSON of the value it resolves to, or "threw: <stack>".
func nodeRun(t *testing.T, p *Program, params, args []string) string {
	t.Helper()
	script := "const f = " + p.Wrap(params) + ";\n" +
		"f(" + strings.Join(args, ", ") + ").then(v => process.stdout.write(String(JSON.stringify(v))), " +
		"e => process.stdout.write('threw: ' + e.stack));\n"
	path := filepath.Join(t.TempDir(), "run.js")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o600))
	out, err := exec.Command(testenv.Node(t), path).CombinedOutput()
	require.NoError(t, err, "node: %s\n%s", out, script)
	return string(out)
}

func TestCompileErasableTypeScript(t *testing.T) {
	for _, tt := range append(erasableTypes(), erasableMembers()...) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Compile(tt.src)
			require.NoError(t, err)
			js := p.Wrap([]string{"tools", "ToolCallError"})
			for _, s := range tt.notContains {
				require.NotContains(t, js, s)
			}
			nodeCheck(t, js)
		})
	}
}

// erasableCase is a program of TypeScript's erasable syntax for
// TestCompileErasableTypeScript: notContains are TypeScript fragments that
// must not survive compilation.
type erasableCase struct {
	name        string
	src         string
	notContains []string
}

// erasableTypes is the erasable syntax of types that Compile strips:
// annotations, assertions, generics, aliases, declarations and type imports.
func erasableTypes() []erasableCase {
	return []erasableCase{
		{
			name: "interface and annotations",
			src: "interface P { x: number; y: number }\n" +
				"const p: P = { x: 1, y: 2 }\n" +
				"return p.x + p.y",
			notContains: []string{"interface", ": P", ": number"},
		},
		{
			name: "as, satisfies, non-null",
			src: "const a = [1, 2] as const\n" +
				"const b = { k: 1 } satisfies Record<string, number>\n" +
				"const m = new Map<string, number>([['k', 1]])\n" +
				"return a[0] + b.k + m.get('k')!",
			notContains: []string{" as ", "satisfies", "<string", "!;"},
		},
		{
			name: "generics and typed arrows",
			src: "function id<T>(x: T): T { return x }\n" +
				"const twice = <T,>(f: (x: T) => T, x: T): T => f(f(x))\n" +
				"const inc = (n: number): number => n + 1\n" +
				"return twice(inc, id<number>(1))",
			notContains: []string{"<T", ": T", ": number"},
		},
		{
			name: "type aliases, declare and import type",
			src: "import type { Foo } from 'foo'\n" +
				"import type * as NS from 'ns'\n" +
				"import type Def from \"def\" with { type: 'json' };\n" +
				"type Pair<A, B> = [A, B]\n" +
				"declare const injected: number\n" +
				"declare function ext(x: string): void\n" +
				"declare enum Color { Red }\n" +
				"declare const enum Size { S }\n" +
				"declare namespace Lib {\n  const version: string\n  enum Inner { A }\n}\n" +
				"declare module 'mod' { export const z: 1 }\n" +
				"declare module 'shorthand';\n" +
				"declare global { var g: number }\n" +
				"const pair: Pair<number, string> = [1, 'a']\n" +
				"return pair[0]",
			notContains: []string{"import", "declare", "type ", "Lib", "Color", "Pair<"},
		},
	}
}

// erasableMembers is the erasable syntax of classes and functions that
// Compile strips (member modifiers, overloads, this parameters, assertion
// signatures), and look-alikes it must leave alone.
func erasableMembers() []erasableCase {
	return []erasableCase{
		{
			name: "classes with TypeScript members",
			src: "abstract class Base<T> implements Iterable<T> {\n" +
				"  private items: T[] = []\n" +
				"  protected readonly size?: number\n" +
				"  declare tag: string\n" +
				"  abstract name(): string\n" +
				"  public constructor(first: T, readonly: number, opts: { readonly a: ReadonlyArray<string>, b: Map<string, readonly number[]> }) { this.items.push(first) }\n" +
				"  *[Symbol.iterator](): Iterator<T> { yield* this.items }\n" +
				"  override toString(): string { return 'base' }\n" +
				"}\n" +
				"class Impl extends Base<number> { name() { return 'impl' } }\n" +
				"return [...new Impl(7, 0, { a: [], b: new Map() })]",
			notContains: []string{"abstract", "private", "implements", "declare", "protected", "override"},
		},
		{
			name: "overloads, this parameter, assertion functions, optional parameters",
			src: "function over(x: string): string\n" +
				"function over(x: number): number\n" +
				"function over(x: any): any { return x }\n" +
				"function check(this: void, v: unknown, msg?: string): asserts v is string { if (typeof v !== 'string') throw new Error(msg) }\n" +
				"let definite!: number\n" +
				"definite = over(1)\n" +
				"check(over('s'))\n" +
				"return definite",
			notContains: []string{"asserts", "this: void", "!:", "?:"},
		},
		{
			name: "angle-bracket assertion and typeof types",
			src: "const v = <number>(<unknown>2)\n" +
				"type V = typeof v\n" +
				"const w: V = v\n" +
				"return w",
			notContains: []string{"<number>", "typeof v"},
		},
		{
			name: "dynamic import and import.meta are left to the engine",
			src:  "const load = () => import('x')\nconst meta = () => import.meta\nreturn typeof load",
		},
		{
			name: "property names that look like keywords",
			src: "const o = { enum: 1, namespace: 2, module: 3, declare: 4, import: 5, export: 6, constructor: 7 }\n" +
				"class K { enum = 1; namespace() { return 2 }; static module = 3; declare = 4; import() { return this.enum } }\n" +
				"return o.enum + o.namespace + o.module + o.declare + o.import + o.export + new K().import()",
		},
	}
}

func TestCompileRunsInNode(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		params []string
		args   []string
		want   string
	}{
		{name: "return", src: "return 1", want: "1"},
		{name: "no return", src: "const x = 1", want: "undefined"},
		{name: "await", src: "const x = await Promise.resolve(41)\nreturn x + 1", want: "42"},
		{name: "await then return inside block", src: "for (const i of [1, 2]) { if (await i === 2) return i * 10 }", want: "20"},
		{
			name:   "bindings as parameters",
			src:    "const r: any = await tools.echo({ a: 1 })\nreturn [r, new ToolCallError('x') instanceof Error]",
			params: []string{"tools", "ToolCallError"},
			args:   []string{"{ echo: async (a) => ({ echoed: a }) }", "class extends Error {}"},
			want:   `[{"echoed":{"a":1}},true]`,
		},
		{name: "strict mode", src: "return (function (this: any) { return this })()", want: "undefined"},
		{name: "strict assignment to undeclared", src: "try { undeclared = 1 } catch (e) { return (e as Error).name }", want: `"ReferenceError"`},
		{
			name: "scenario 2",
			src:  "interface P{x:number;y:number}; const p: P = {x:1,y:2}; return p.x+p.y",
			want: "3",
		},
		{
			name: "modern syntax passes through",
			src: "class A { #p = 1; static s = 2; static { A.s++ } get p() { return this.#p } }\n" +
				"const o: any = null\n" +
				"let n = 0; n ||= 5; n &&= n + 1; n ??= 0\n" +
				"return [new A().p, A.s, o?.x ?? 3, String(2n ** 3n), [1, 2].at(-1), Object.hasOwn({ a: 1 }, 'a'), n, 1_000]",
			want: `[1,3,3,"8",2,true,6,1000]`,
		},
		{
			name: "keyword-like names",
			src: "const namespace = 1; const module = { x: 2 }; const declare = 3; const type = 4\n" +
				"namespace + 1\n" +
				"return namespace + module.x + declare + type",
			want: "10",
		},
		{
			name: "regex, division and templates",
			src: "const a = 10, b = 2, g = 1\n" +
				"const r = /enum E {}/g\n" +
				"const t = `${`enum ${'E'}`} {}`\n" +
				"if (r.test(t)) return a / b / g\n" +
				"return -1",
			want: "5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Compile(tt.src)
			require.NoError(t, err)
			require.Equal(t, tt.want, nodeRun(t, p, tt.params, tt.args))
		})
	}
}

func TestCompileAcceptsLookalikes(t *testing.T) {
	tests := []struct{ name, src string }{
		{"string", `const s = "enum E { A }"; const n = 'namespace N {}'`},
		{"regex", "const r = /enum E { A }/; const q = /@dec/g"},
		{"template", "const t = `${`enum E { A }`} namespace N {} @dec constructor(private x)`"},
		{"line comment", "// enum E { A }\n// @dec class C {}\nreturn 1 // namespace N {}"},
		{"block comment", "/* enum E { A } */ /*\n constructor(private x: number) {}\n*/ return 1"},
		{"property", "const x: any = {}; x.enum = 1; x.namespace = 2; x.module = 3; return x?.enum"},
		{"identifier prefix", "const enum_ = 1; const enumerate = 2; const namespaced = 3; return enum_ + enumerate"},
		{"namespace variable", "const namespace = 1; namespace + 1; return namespace"},
		{"namespace in expression", "const namespace = 'a'; return namespace in { a: 1 }"},
		{"module variable", "const module = { exports: {} }; module.exports = 1"},
		{"declare variable", "let declare = 1; declare = 2"},
		{"constructor parameters without modifiers", "class C { constructor(readonly: number, public_: string, ...rest: readonly string[]) {} }"},
		{"constructor call", "const o: any = {}; o.constructor(1)"},
		{"private name", "class C { #enum = 1; get e() { return this.#enum } }"},
		{"trailing line comment", "return 1 // done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.src)
			require.NoError(t, err)
		})
	}
}

// rejectCase is a program Compile rejects, where, and a part of why.
type rejectCase struct {
	name     string
	src      string
	line     int
	col      int
	contains string
}

func TestCompileRejects(t *testing.T) {
	requireRejects(t, []rejectCase{
		{name: "scenario 3", src: "enum E { A }\nreturn 1", line: 1, col: 1, contains: "enum"},
		{name: "const enum", src: "let x = 1\n  const enum E { A }", line: 2, col: 3, contains: "enum"},
		{name: "enum after string", src: "const s = \"enum\"; enum E { A }", line: 1, col: 19, contains: "enum"},
		{name: "enum after regex", src: "const r = /enum/; enum E { A }", line: 1, col: 19, contains: "enum"},
		{name: "enum after regex with slash in class", src: "const r = /[/]enum/; enum E { A }", line: 1, col: 22, contains: "enum"},
		{name: "enum after division", src: "const d = 4 / 2 / 1; enum E { A }", line: 1, col: 22, contains: "enum"},
		{name: "enum after template", src: "const t = `${`enum`}`\nenum E { A }", line: 2, col: 1, contains: "enum"},
		{name: "enum after comments", src: "// enum A {}\n/* enum B {} */ enum C { X }", line: 2, col: 17, contains: "enum"},
		{name: "enum in nested block", src: "if (true) {\n  function f() {\n    enum E { A }\n  }\n}", line: 3, col: 5, contains: "enum"},
		{name: "enum after astral character", src: "const s = '😀'; enum E { A }", line: 1, col: 17, contains: "enum"},
		{name: "namespace", src: "namespace N { export const x = 1 }", line: 1, col: 1, contains: "namespace"},
		{name: "dotted namespace", src: "\nnamespace A.B.C { }", line: 2, col: 1, contains: "namespace"},
		{name: "type-only namespace", src: "namespace T { export type X = 1 }", line: 1, col: 1, contains: "namespace"},
		{name: "module block", src: "module M { }", line: 1, col: 1, contains: "module"},
		{name: "parameter property private", src: "class C {\n  constructor(private x: number) {}\n}", line: 2, col: 15, contains: `"private x"`},
		{name: "parameter property public", src: "class C { constructor(a: string, public b: number) {} }", line: 1, col: 34, contains: "public b"},
		{name: "parameter property protected", src: "class C { constructor(protected b = 1) {} }", line: 1, col: 23, contains: "protected b"},
		{name: "parameter property readonly", src: "class C { constructor(readonly b: string) {} }", line: 1, col: 23, contains: "readonly b"},
		{name: "parameter property override", src: "class B { b = 1 }\nclass C extends B { constructor(override b: number) { super() } }", line: 2, col: 33, contains: "override b"},
		{name: "parameter property after generic type", src: "class C { constructor(m: Map<string, number>, private readonly x: number) {} }", line: 1, col: 47, contains: "private readonly"},
		{name: "class decorator", src: "const dec = (c: any) => c\n@dec class C {}", line: 2, col: 1, contains: "decorator"},
		{name: "member decorator", src: "class C {\n  @dec m() {}\n}", line: 2, col: 3, contains: "decorator"},
		{name: "parameter decorator", src: "class C { m(@inject x: number) {} }", line: 1, col: 13, contains: "decorator"},
		{name: "import default", src: "const a = 1\nimport x from 'y'", line: 2, col: 1, contains: "import"},
		{name: "import named", src: "import { a } from 'y'", line: 1, col: 1, contains: "import"},
		{name: "import namespace", src: "import * as m from 'y'", line: 1, col: 1, contains: "import"},
		{name: "import side effect", src: "import 'y'", line: 1, col: 1, contains: "import"},
		{name: "import default named type", src: "import type from 'y'", line: 1, col: 1, contains: "import"},
		{name: "import equals", src: "import fs = require('fs')", line: 1, col: 1, contains: "import"},
		{name: "export const", src: "export const y = 1", line: 1, col: 1, contains: "export"},
		{name: "export default", src: "\n export default 1", line: 2, col: 2, contains: "export"},
		{name: "export list", src: "const a = 1; export { a }", line: 1, col: 14, contains: "export"},
		{name: "export type", src: "export type T = number", line: 1, col: 1, contains: "export"},
		{name: "syntax error line 3", src: "// one\nlet y = 1\nconst x = ;", line: 3, col: 11, contains: `SyntaxError: Unexpected ";"`},
		{name: "syntax error after astral character", src: "const s = 'é😀'; const x = ;", line: 1, col: 28, contains: "SyntaxError"},
		{name: "syntax error after erased import type", src: "import type { A } from 'a'; const x = ;", line: 1, col: 39, contains: "SyntaxError"},
		{name: "syntax error after erased non-ASCII", src: "declare module 'ü😀' { }; const x = ;", line: 1, col: 37, contains: "SyntaxError"},
		{name: "syntax error with CRLF", src: "let a = 1\r\nlet b = 2\r\nlet = ;", line: 3, col: 7, contains: "SyntaxError"},
		{name: "strict mode with", src: "with (Math) { }", line: 1, col: 1, contains: "strict mode"},
		{name: "strict mode octal", src: "return 010", line: 1, col: 8, contains: "octal"},
		{name: "yield outside generator", src: "yield 1", line: 1, col: 1, contains: "yield"},
		{name: "unclosed brace", src: "if (x) {\n  foo()", line: 1, col: 8, contains: `"{" is never closed`},
		{name: "unclosed paren", src: "foo(1,\n", line: 1, col: 4, contains: `"(" is never closed`},
		{name: "extra closing brace", src: "foo() }\nbar()", line: 1, col: 7, contains: `unexpected "}"`},
		{name: "NUL", src: "const s = 'a\x00b'", line: 1, col: 13, contains: "NUL"},
	})
}

// A program that ends early is rejected at its end, and the wrapper's
// footer is never named.
func TestCompileRejectsAtTheEnd(t *testing.T) {
	requireRejects(t, []rejectCase{
		{name: "ends after an operator", src: "return 1 +", line: 1, col: 11, contains: "SyntaxError: Unexpected end of program"},
		{name: "ends after an operator and a newline", src: "return 1 +\n", line: 2, col: 1, contains: "SyntaxError: Unexpected end of program"},
		{name: "ends before a class body", src: "class A", line: 1, col: 8, contains: `SyntaxError: Expected "{" but found the end of the program`},
		{name: "ends in a comment", src: "/* abc", line: 1, col: 7, contains: `to terminate multi-line comment at the end of the program`},
		{name: "unterminated template", src: "let s = `abc", line: 1, col: 9, contains: "SyntaxError: Unterminated template literal"},
		{name: "unterminated template ending in an escaped backquote", src: "let s = `abc\\`", line: 1, col: 9, contains: "Unterminated template literal"},
		{name: "unterminated template after a substitution", src: "let s = `a${`b${1}c`}d", line: 1, col: 9, contains: "Unterminated template literal"},
		{name: "unterminated template after complete ones", src: "let s = `ok`; let t = `x", line: 1, col: 23, contains: "Unterminated template literal"},
		{name: "unterminated string", src: "let s = \"abc", line: 1, col: 13, contains: "SyntaxError: Unterminated string literal"},
	})
}

// requireRejects checks that Compile rejects each case as it says.
func requireRejects(t *testing.T, tests []rejectCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.src)
			require.Nil(t, p)
			var e *Error
			require.True(t, errors.As(err, &e), "error %v (%T) is not an *Error", err, err)
			require.Contains(t, e.Message, tt.contains)
			if !strings.Contains(tt.src, "}") {
				require.NotContains(t, e.Message, `"}"`, "the wrapper's footer")
			}
			require.Equal(t, tt.line, e.Line, "line of %q", e.Error())
			require.Equal(t, tt.col, e.Column, "column of %q", e.Error())
			require.True(t, strings.HasSuffix(e.Error(), ")"), e.Error())
			require.Contains(t, e.Error(), fmt.Sprintf("(line %d:%d)", tt.line, tt.col))
		})
	}
}

func TestErrorMessageFormat(t *testing.T) {
	_, err := Compile("let a\nlet b\nlet x y")
	require.EqualError(t, err, `SyntaxError: Expected ";" but found "y" (line 3:7)`)

	_, err = Compile("enum E { A }\nreturn 1")
	require.EqualError(t, err, "SyntaxError: TypeScript enum is not supported (only erasable TypeScript is accepted): "+
		"use a plain object (as const) or a union of string literals (line 1:1)")

	cause := errors.New("cause")
	internal := &Error{Message: "internal", cause: cause}
	require.Equal(t, "internal", internal.Error())
	require.ErrorIs(t, internal, cause)
}

// TestCompileBreakout: Compile leaves the check that a program stays inside its function to the
// engine (quickjs.CheckOneFunction, on the bytecode that would run; runtime's
// TestProgramStaysInItsFunction runs these programs), and gives the error to report: at the
// bracket that closes the function when the tokenizer saw it, else at the program's start.
func TestCompileBreakout(t *testing.T) {
	tests := []struct {
		src       string
		line, col int // of the bracket that closes the function
	}{
		{"}); globalThis.escaped = 1; (async function () {", 1, 1},
		{"const a = 1\n  }); var Array = 1; (async function () {", 2, 3},
		{"}); function Array() {} (async function () {", 1, 1},
		{"}); /* @__PURE__ */ evil(); (async function () {", 1, 1},
		{"}); 1; (async function () {", 1, 1},
		{"}), evil(), (async function () {", 1, 1},
		{"})\n(async function () {", 1, 1},
		{"}); ({ get x() { return evil() } }).x; (async function () {", 1, 1},
		// A "/" after a function expression is a division, for the tokenizer as for esbuild.
		{"x = function () {} / 1 }); evil(); (async function () { let y = 2 / 1", 1, 24},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p, err := Compile(tt.src)
			require.NoError(t, err)
			e := p.Escaped()
			require.Contains(t, e.Message, "SyntaxError")
			require.Equal(t, [2]int{tt.line, tt.col}, [2]int{e.Line, e.Column}, e.Message)
			require.True(t, p.ClosesItsFunction())
		})
	}
	p, err := Compile("return 1")
	require.NoError(t, err)
	require.False(t, p.ClosesItsFunction())
	require.Equal(t, [2]int{1, 1}, [2]int{p.Escaped().Line, p.Escaped().Column}, "without a bracket to point at")
}

func TestCompileNotFooledByBrackets(t *testing.T) {
	t.Parallel()
	// Brackets inside strings, templates, regular expressions and comments do not count.
	src := "const a = '}'; const b = \"})\"; const c = `})${'}'}`; const d = /[}\\/]+/.source; // })\n" +
		"/* }) */ return a + b + c + d"
	p, err := Compile(src)
	require.NoError(t, err)
	require.Equal(t, `"}})})}[}\\/]+"`, nodeRun(t, p, nil, nil))
}

func TestReturnOneJS(t *testing.T) {
	p, err := Compile("return 1")
	require.NoError(t, err)
	require.Equal(t, "(async function __dsh_main__() {\n\"use strict\";\nreturn 1\n})", p.JS())
	require.Equal(t, "(async function __dsh_main__(tools, ToolCallError) {\n\"use strict\";\nreturn 1\n})",
		p.Wrap([]string{"tools", "ToolCallError"}))
	require.Equal(t, "(async function __dsh_main__(x) {\n\"use strict\";\nreturn 1\n})", p.Wrap([]string{"x"}))
	require.Equal(t, p.JS(), p.Wrap(nil))
	require.Equal(t, "0, async function __dsh_main__(tools, ToolCallError) {\n\"use strict\";\nreturn 1\n}",
		p.Script([]string{"tools", "ToolCallError"}))
	require.Equal(t, "0, async function __dsh_main__() {\n\"use strict\";\nreturn 1\n}", p.Script(nil))
}

// TestScriptIsWrapsFunction: Script's text has Wrap's lines, but for the opening parenthesis and
// the closing one, and evaluated as a script its completion value is Wrap's function.
func TestScriptIsWrapsFunction(t *testing.T) {
	for _, src := range []string{"return 1", "const x: number = 2\nreturn x", "return [\n  (1),\n  ((a) => a)(3),\n]"} {
		p, err := Compile(src)
		require.NoError(t, err)
		params := []string{"tools", "E"}
		wrap, script := strings.Split(p.Wrap(params), "\n"), strings.Split(p.Script(params), "\n")
		require.Len(t, script, len(wrap))
		require.Equal(t, "0, "+strings.TrimPrefix(wrap[0], "("), script[0])
		require.Equal(t, wrap[1:len(wrap)-1], script[1:len(script)-1], "the user's lines are Wrap's")
		require.Equal(t, "}", script[len(script)-1])
		// The completion value of the script, as the engine takes it: node's vm gives it back.
		run := "const vm = require('vm'); const f = vm.runInThisContext(" + jsonString(t, p.Script(params)) + ");\n" +
			"f(1, 2).then(v => process.stdout.write(typeof f + ' ' + f.name + ' ' + f.length + ' ' + JSON.stringify(v)));\n"
		path := filepath.Join(t.TempDir(), "script.js")
		require.NoError(t, os.WriteFile(path, []byte(run), 0o600))
		out, err := exec.Command(testenv.Node(t), path).CombinedOutput()
		require.NoError(t, err, "node: %s", out)
		require.Equal(t, "function __dsh_main__ 2 "+nodeRun(t, p, params, []string{"1", "2"}), string(out))
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

func TestWrapLayout(t *testing.T) {
	p, err := Compile("\"use strict\"\nconst x = 1\nreturn x")
	require.NoError(t, err)
	js := p.Wrap([]string{"a", "b"})
	lines := strings.Split(js, "\n")
	require.Equal(t, "(async function __dsh_main__(a, b) {", lines[0])
	require.Equal(t, `"use strict";`, lines[1], "our directive is the first statement")
	require.Equal(t, "})", lines[len(lines)-1])
	require.False(t, strings.HasSuffix(js, ";"))
	require.NotContains(t, js, "\x00")
}

// genPos finds needle in the wrapped script and returns its 1-based line and 1-based byte column,
// as the engine reports them.
func genPos(t *testing.T, js, needle string) (int, int) {
	t.Helper()
	for i, l := range strings.Split(js, "\n") {
		if c := strings.Index(l, needle); c >= 0 {
			return i + 1, c + 1
		}
	}
	t.Fatalf("%q not found in\n%s", needle, js)
	return 0, 0
}

func TestPositionRoundTrip(t *testing.T) {
	src := "interface Shape {\n" + // 1
		"  kind: string\n" + // 2
		"}\n" + // 3
		"const ok: Shape = { kind: 'sq' } as Shape\n" + // 4
		"if (ok) throw new Error('boom')\n" + // 5: throw at 9
		"type T = number\n" + // 6
		"const s: T = 1; const e = '😀é'; throw new RangeError(s + e)\n" + // 7
		"function f(x: number) {\n" + // 8
		"    return x.toFixed(  )\n" + // 9
		"}"
	p, err := Compile(src)
	require.NoError(t, err)
	js := p.Wrap([]string{"tools", "ToolCallError"})

	tests := []struct {
		needle    string
		line, col int
	}{
		{"throw new Error", 5, 9},
		{"new Error", 5, 15},
		{"Error(", 5, 19},
		{"const ok", 4, 1},
		{"throw new RangeError", 7, 34},
		{"RangeError(", 7, 44},
		{"s+e)", 7, 55},
		{"e)", 7, 59},
		{"return x.toFixed", 9, 5},
		{"toFixed", 9, 14},
	}
	for _, tt := range tests {
		t.Run(tt.needle, func(t *testing.T) {
			line, col := genPos(t, js, tt.needle)
			ul, uc, ok := p.Position(line, col)
			require.True(t, ok)
			require.Equal(t, [2]int{tt.line, tt.col}, [2]int{ul, uc})
		})
	}
}

func TestPositionNonASCIIGeneratedLine(t *testing.T) {
	// esbuild keeps non-ASCII characters in regular expressions, so the engine's byte columns
	// differ from source-map columns on this line. (TypeScript: JavaScript runs as written.)
	src := "const s: string = 'x'\nif (/é😀/.test(s) || s.length) throw new Error('x' + s)"
	p, err := Compile(src)
	require.NoError(t, err)
	js := p.Wrap(nil)
	line, col := genPos(t, js, "throw")
	ul, uc, ok := p.Position(line, col)
	require.True(t, ok)
	require.Equal(t, [2]int{2, 32}, [2]int{ul, uc})
	line, col = genPos(t, js, `"x"+s`)
	ul, uc, ok = p.Position(line, col+len(`"x"+`))
	require.True(t, ok)
	require.Equal(t, [2]int{2, 54}, [2]int{ul, uc})
}

func TestPositionWrapperCode(t *testing.T) {
	p, err := Compile("const x: number = 1\nreturn x")
	require.NoError(t, err)
	lines := strings.Split(p.Wrap([]string{"tools"}), "\n")
	tests := []struct {
		name      string
		line, col int
	}{
		{"header", 1, 1},
		{"header params", 1, 30},
		{"use strict", 2, 1},
		{"closing", len(lines), 1},
		{"past the end", len(lines) + 1, 1},
		{"line 0", 0, 1},
		{"column 0", 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, ok := p.Position(tt.line, tt.col)
			require.False(t, ok)
		})
	}
	require.Equal(t, `const x=1;return x`, lines[2])
	ul, uc, ok := p.Position(3, 1)
	require.True(t, ok)
	require.Equal(t, [2]int{1, 1}, [2]int{ul, uc})
}

func TestPositionFromNodeStack(t *testing.T) {
	t.Parallel()
	// node reports 1-based UTF-16 columns; on an ASCII line they equal QuickJS's byte columns.
	src := "interface I {\n  a: number\n}\nconst v: I = { a: 1 }\nfunction f(n: number): never {\n  throw new Error('at ' + n)\n}\nreturn f(v.a)"
	p, err := Compile(src)
	require.NoError(t, err)
	out := nodeRun(t, p, []string{"tools"}, []string{"{}"})
	require.True(t, strings.HasPrefix(out, "threw: Error: at 1"), out)
	var frames [][2]int
	for _, l := range strings.Split(out, "\n") {
		i := strings.Index(l, "run.js:")
		if i < 0 {
			continue
		}
		var line, col int
		parts := strings.Split(strings.TrimRight(l[i+len("run.js:"):], ")"), ":")
		require.Len(t, parts, 2)
		line, col = atoi(t, parts[0]), atoi(t, parts[1])
		if ul, uc, ok := p.Position(line, col); ok {
			frames = append(frames, [2]int{ul, uc})
		}
	}
	require.Equal(t, [][2]int{{6, 9}, {8, 8}}, frames)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		require.True(t, c >= '0' && c <= '9', s)
		n = n*10 + int(c-'0')
	}
	return n
}
