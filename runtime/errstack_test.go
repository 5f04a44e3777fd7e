package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// err.stack read inside the program is the text the failure message shows:
// the program's frames at their positions in the user's source (TypeScript
// annotations shift the engine's columns), native frames between them, and
// none of coderun's frames.
func TestStackInsideProgram(t *testing.T) {
	e := testEngine(t)
	bindings := echoFailTools()
	for _, tc := range []struct {
		name, program, want string
	}{
		{"nested function",
			"const n: number = 1\nfunction f(a: string, b: number): string {\n  return new Error(\"x\").stack!\n}\nreturn f(\"a\", n)",
			// QuickJS-NG 0.16 places a call at its last argument (5:15,
			// `n`), not at the callee (5:8) as V8 does: the right line, inside
			// the call.
			"    at f (program.ts:3:14)\n    at <program> (program.ts:5:15)\n"},
		{"native frame between program frames",
			"const xs: number[] = [1]\nreturn xs.map((x: number) => new Error(\"m\").stack)[0]",
			// The engine places a call whose last argument is a function at
			// that function (2:16), not at the callee (2:11) as V8 does.
			"    at <anonymous> (program.ts:2:34)\n    at map (native)\n    at <program> (program.ts:2:16)\n"},
		{"timer callback",
			"return await new Promise<string>(r => setTimeout(() => r(new Error(\"t\").stack!), 1))",
			"    at <anonymous> (program.ts:1:62)\n"},
		{"after an await",
			"await null\nconst s: string = new Error(\"a\").stack!\nreturn s",
			"    at <program> (program.ts:2:23)\n"},
		{"caught engine error",
			"try {\n  const o: any = null\n  o.x = 1\n} catch (e: any) { return e.stack }",
			"    at <program> (program.ts:3:3)\n"},
		{"binding arguments refused (made by the prelude during the call)",
			"try { await tools.echo(() => 1) } catch (e: any) { return e.stack }",
			"    at <program> (program.ts:1:19)\n"},
		{"binding rejection (made by the prelude on delivery: no frame of the program)",
			"try { await tools.fail({}) } catch (e: any) { return [e.message, e.stack] }",
			`["it failed",""]`},
		{"Error.captureStackTrace",
			"const o: {stack?: string} = {}\nError.captureStackTrace(o)\nreturn o.stack",
			"    at <program> (program.ts:2:25)\n"},
		{"eval frames keep the engine's positions",
			"try { eval(\"\\n  null.x\") } catch (e: any) { return e.stack }",
			"    at <eval> (<input>:2:3)\n    at <program> (program.ts:1:7)\n"},
		{"a SyntaxError's place has no function name",
			"try { eval(\"(\") } catch (e: any) { return e.stack }",
			// The end of the input "(", where the parse failed.
			"    at <input>:1:2\n    at <program> (program.ts:1:7)\n"},
		{"console.log of an error",
			"function f(): void {\n  console.log(new Error(\"logged\"))\n}\nf()\nreturn \"\"",
			""},
		{"Error.stackTraceLimit", "Error.stackTraceLimit = 1\nfunction f() { return new Error().stack }\nreturn f()",
			"    at f (program.ts:2:27)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.run(context.Background(), tc.program, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			if strings.HasPrefix(tc.want, "[") {
				require.JSONEq(t, tc.want, string(o.Value))
			} else if tc.name == "console.log of an error" {
				require.Equal(t, []string{"Error: logged\n    at f (program.ts:2:19)\n    at <program> (program.ts:4:1)"}, o.Logs)
			} else {
				require.Equal(t, jsonText(tc.want), string(o.Value))
			}
		})
	}
}

func jsonText(s string) string {
	return fmt.Sprintf("%q", s)
}

// A program's Error.prepareStackTrace reads back as set and receives call
// sites of the program's frames only, at the user's positions; the main
// function has no name there, as a script's top level has none in V8.
func TestProgramPrepareStackTrace(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name, program, want string
	}{
		{"call sites",
			`const f = (e: Error, sites: any[]) => sites.map(s => [s.getFunctionName(), s.getFileName(), s.getLineNumber(), s.getColumnNumber(), s.isNative(), typeof s.getFunction(), Object.prototype.toString.call(s)])
Error.prepareStackTrace = f
function g(x: number) {
  return [x].map(() => new Error("x").stack)[0]
}
return [Error.prepareStackTrace === f, TypeError.prepareStackTrace === f, g(1)]`,
			`[true, true, [[null, "program.ts", 4, 28, false, "undefined", "[object CallSite]"],
			  ["map", null, -1, -1, true, "undefined", "[object CallSite]"],
			  ["g", "program.ts", 4, 14, false, "undefined", "[object CallSite]"],
			  [null, "program.ts", 6, 75, false, "undefined", "[object CallSite]"]]]`},
		{"the default comes back",
			"Error.prepareStackTrace = () => \"custom\"\nconst a = new Error().stack\nError.prepareStackTrace = undefined\nreturn [a, new Error().stack, Error.prepareStackTrace === undefined]",
			`["custom", "    at <program> (program.ts:4:16)\n", true]`},
		{"a throwing prepareStackTrace leaves no stack, as in the engine",
			"Error.prepareStackTrace = () => { throw new Error(\"inner\") }\nreturn [new Error(\"outer\").stack === null, new Error(\"outer\").message]",
			`[true, "outer"]`},
		{"call sites are not the engine's",
			"let site: any\nError.prepareStackTrace = (e: any, s: any[]) => { site = s[0]; return \"\" }\nnew Error().stack\nconst p = Object.getPrototypeOf(site)\nreturn [p.constructor === Object, Object.getOwnPropertyNames(p).sort(), (() => { try { p.getLineNumber.call({}); return \"no\" } catch (e) { return String(e.name) } })()]",
			`[true, ["getColumnNumber","getFileName","getFunction","getFunctionName","getLineNumber","isNative"], "TypeError"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.run(context.Background(), tc.program, nil)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, tc.want, string(o.Value))
		})
	}
}

// Calling a member a namespace lacks says which, and what the namespace
// has, in the message the program catches and in the failure message;
// reading one, testing for one and optional calls work as before.
func TestMissingMemberCall(t *testing.T) {
	e := testEngine(t)
	echo := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }
	many := map[string]Func{}
	var names []string
	for i := range 25 {
		n := fmt.Sprintf("tool%02d", 24-i)
		many[n] = echo
		names = append(names, n)
	}
	sort.Strings(names)
	bindings := []Binding{
		{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{"echo": echo, "search": echo}},
		{Global: "everything", Functions: map[string]Func{"get-sum": echo, "add": echo}},
		{Global: "many", Functions: many},
	}
	toolsHas := `; its functions are: echo, search`
	for _, tc := range []struct {
		name, program string
		value         string // the outcome's value, or
		message       string // its failure message
	}{
		{name: "uncaught", program: "const q = \"x\"\nawait tools.nosuch({ q })",
			message: "TypeError: tools.nosuch is not a function: tools has no function \"nosuch\"" + toolsHas + "\n    at <program> (program.ts:2:13)"},
		{name: "caught", program: "try { await tools.serach(\"q\") } catch (e: any) { return [e.name, e.message, e instanceof TypeError] }",
			value: `["TypeError", "tools.serach is not a function: tools has no function \"serach\"` + toolsHas + `", true]`},
		{name: "in a nested function", program: "function f(): any {\n  return tools.nosuch(1)\n}\ntry { f() } catch (e: any) { return [e.message, e.stack] }",
			value: `["tools.nosuch is not a function: tools has no function \"nosuch\"` + toolsHas + `", "    at f (program.ts:2:16)\n    at <program> (program.ts:4:7)\n"]`},
		{name: "a name that needs quotes", program: "await everything[\"get-summ\"]({ a: 1 })",
			message: "TypeError: everything[\"get-summ\"] is not a function: everything has no function \"get-summ\"; its functions are: add, \"get-sum\"\n    at <program> (program.ts:1:7)"},
		{name: "computed access", program: "const name: string = \"nosuch\"\ntry { await (tools as any)[name](1) } catch (e: any) { return e.message }",
			value: `"tools.nosuch is not a function: tools has no function \"nosuch\"` + toolsHas + `"`},
		{name: "the list is sorted and capped", program: "try { await many.nosuch() } catch (e: any) { return e.message }",
			value: `"many.nosuch is not a function: many has no function \"nosuch\"; it has 25 functions; the first 20 by name: ` + strings.Join(names[:20], ", ") + `"`},
		{name: "tests and optional calls", program: "return [\"nosuch\" in tools, \"echo\" in tools, tools.nosuch?.() === undefined, typeof tools.nosuch, Object.keys(tools).sort(), Object.getPrototypeOf(tools) === null, Object.isFrozen(tools)]",
			value: `[false, true, true, "undefined", ["echo", "search"], true, true]`},
		// The read of a missing member is matched to the next call that
		// fails in the same function; a read of a member that exists, or
		// a call in another function, drops it.
		{name: "a later failure after a member that exists", program: "const o: any = {}\nif (!tools.nosuch) tools.echo\no.f()",
			message: "TypeError: not a function\n    at <program> (program.ts:3:3)"},
		{name: "a failure in another function", program: "const o: any = {}\nfunction g() { o.f() }\ntools.nosuch?.()\ng()",
			message: "TypeError: not a function\n    at g (program.ts:2:18)\n    at <program> (program.ts:4:1)"},
		{name: "other non-functions keep the engine's message", program: "const o: any = { f: 1 }\no.f()",
			message: "TypeError: not a function\n    at <program> (program.ts:2:3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireOutcome(t, e, tc.program, bindings, tc.message, tc.value)
		})
	}
}

// BenchmarkNewError measures making an error in a function three calls
// deep, its stack included.
func BenchmarkNewError(b *testing.B) {
	e := testEngine(b)
	const n = 10000
	program := fmt.Sprintf(`function a() { return b() } function b() { return c() } function c() { return new Error("x") }
let s = 0
for (let i = 0; i < %d; i++) s += a().stack.length
return s`, n)
	b.ResetTimer()
	for range b.N {
		o, err := e.run(context.Background(), program, nil)
		if err != nil || o.Kind != "" {
			b.Fatal(err, o.Message)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/error")
}
