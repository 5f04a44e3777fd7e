package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Functions keep the names the user wrote, in .name, in err.stack read
// inside the program, in the failure message and in the engine's messages,
// although esbuild renames bindings that shadow others (runtime/internal/transpile,
// names.go).
func TestNamesAsWritten(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name, program string
		value         string // the program's value, as JSON
		message       string // or the failure message
	}{
		{name: "const arrow in a block: .name and frame",
			program: "const load = () => 1\n{\n  const load = (): string => new Error(\"x\").stack!\n  return [load.name, load()]\n}",
			value:   `["load", "    at load (program.ts:3:34)\n    at <program> (program.ts:4:22)\n"]`},
		{name: "nested function declaration: failure message",
			program: "function parse(s: string) { return s }\nfunction run() {\n  function parse(s: string): never { throw new Error(\"bad \" + s) }\n  return parse(\"x\")\n}\nrun()",
			message: "Error: bad x\n    at parse (program.ts:3:63)\n    at run (program.ts:4:10)\n    at <program> (program.ts:6:1)"},
		{name: "class in a block: constructor frame and .name",
			program: "class Item {}\n{\n  class Item { constructor() { throw new Error(\"no\") } }\n  try { new Item() } catch (e: any) { return [Item.name, e.stack] }\n}",
			value:   `["Item", "    at Item (program.ts:3:42)\n    at <program> (program.ts:4:13)\n"]`},
		{name: "method calling a shadowing helper",
			program: "const fetchAll = 1\nclass Repo {\n  all() {\n    const fetchAll = () => { throw new TypeError(\"down\") }\n    return fetchAll()\n  }\n}\nnew Repo().all()",
			message: "TypeError: down\n    at fetchAll (program.ts:4:40)\n    at all (program.ts:5:12)\n    at <program> (program.ts:8:12)"},
		{name: "callback parameter named like an outer function",
			program: "function cb() {}\nfunction each(xs: number[], cb = (x: number) => { if (x > 1) throw new Error(\"two\") }) { xs.forEach(cb) }\neach([1, 2])",
			message: "Error: two\n    at cb (program.ts:2:72)\n    at forEach (native)\n    at each (program.ts:2:101)\n    at <program> (program.ts:3:1)"},
		{name: "the engine's message names the binding",
			program: "const total = 1\n{\n  total\n  const total = 2\n}",
			message: "ReferenceError: total is not initialized\n    at <program> (program.ts:3:3)"},
		{name: "a function named like coderun's own",
			program: "function f() {\n  const __dsh_main__ = (): string => new Error(\"m\").stack!\n  return [__dsh_main__.name, __dsh_main__()]\n}\nreturn f()",
			value:   `["__dsh_main__", "    at __dsh_main__ (program.ts:2:42)\n    at f (program.ts:3:30)\n    at <program> (program.ts:5:8)\n"]`},
		{name: "esbuild's helper names, Object.defineProperty replaced",
			program: "Object.defineProperty = () => { throw new Error(\"no\") }\nconst __name = 1, __defProp = 2\n{\n" +
				"  const __name = () => 0, __defProp = function () {}\n  return [__name.name, __defProp.name]\n}",
			value: `["__name", "__defProp"]`},
		{name: "names JavaScript infers stay as it infers them",
			program: "const g = 1\n{\n  const f = function g() {}\n  const o = { m() {}, get p() { return 1 }, [Symbol.iterator]() {} }\n" +
				"  return [f.name, o.m.name, Object.getOwnPropertyDescriptor(o, \"p\")!.get!.name, o[Symbol.iterator].name, (() => {}).name]\n}",
			value: `["g", "m", "get p", "[Symbol.iterator]", ""]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.run(context.Background(), tc.program, nil)
			require.NoError(t, err)
			if tc.message != "" {
				require.Equal(t, KindException, o.Kind)
				require.Equal(t, tc.message, o.Message)
				return
			}
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, tc.value, string(o.Value))
		})
	}
}
