package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The prelude's own functions are unreachable from the program, and
// nothing the program changes after it starts (Object.prototype, the
// Promise species, Error.prepareStackTrace) alters how the prelude settles
// calls and the run.
func TestPreludeIntegrity(t *testing.T) {
	e := testEngine(t)
	bindings := []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"echo": func(ctx context.Context, args []byte) ([]byte, error) { return args, nil },
		"fail": func(ctx context.Context, args []byte) ([]byte, error) { return nil, errors.New("it failed") },
	}}}
	for _, tc := range []struct {
		name, program, want string
	}{
		// The program sees call sites of its own frames only (2 + 1 + 0 + 1
		// here: the rejection is made by the prelude, on delivery).
		{"CallSite.getFunction is undefined for every frame the program sees",
			`const fns = [];
Error.prepareStackTrace = (e, sites) => { for (const s of sites) fns.push(typeof s.getFunction()); return "" };
function g() { return new Error("e").stack }
g(); await null; new Error("later").stack;
try { await tools.fail({}) } catch (e) {}
await new Promise(r => setTimeout(() => { new Error("timer").stack; r() }, 1));
return [fns.length === 4, fns.filter(f => f !== "undefined")]`,
			`[true,[]]`},
		{"a getter on Object.prototype does not break rejections",
			`Object.prototype.get = () => 1;
Object.prototype.set = () => 1;
try { await tools.fail({}) } catch (e) { return [e.name, e.message, e.tool] }`,
			`["ToolError","it failed","fail"]`},
		{"a throwing Promise[Symbol.species] getter does not change the result",
			`Object.defineProperty(Promise, Symbol.species, {get() { throw new Error("species read") }});
return 42`,
			`42`},
		{"a throwing Promise.prototype.constructor getter does not change the result",
			`Object.defineProperty(Promise.prototype, "constructor", {get() { throw new Error("constructor read") }});
return 42`,
			`42`},
		{"a throwing Error.prepareStackTrace does not stop a rejection",
			`Error.prepareStackTrace = () => { throw "prepared" };
try { await tools.fail({}) } catch (e) { return [e instanceof ToolError, e.message] }`,
			`[true,"it failed"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.Run(context.Background(), tc.program, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, tc.want, string(o.Value))
		})
	}
}

// Every function the prelude hands the program shows as the engine shows
// its own functions (Function.prototype.toString gives no prelude source),
// and still behaves as before: calls, this, construction, instanceof.
func TestPreludeFunctionsLookNative(t *testing.T) {
	e := testEngine(t)
	bindings := []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"fail": func(ctx context.Context, args []byte) ([]byte, error) { return nil, errors.New("it failed") },
	}}}
	const nativeText = "() {\n    [native code]\n}"
	for _, tc := range []struct {
		name, program, want string
	}{
		{"Error.prepareStackTrace's getter", `return String(Object.getOwnPropertyDescriptor(Error, "prepareStackTrace").get)`,
			"function get prepareStackTrace" + nativeText},
		{"Error.prepareStackTrace's setter", `return Function.prototype.toString.call(Object.getOwnPropertyDescriptor(Error, "prepareStackTrace").set)`,
			"function set prepareStackTrace" + nativeText},
		{"Error.prepareStackTrace still works", `Error.prepareStackTrace = () => "mine"; return String(Error.prepareStackTrace) + new Error().stack`,
			`() => "mine"mine`},
		{"console.log", `return String(console.log)`, "function log" + nativeText},
		{"console.error", `return console.error.name + String(console.error)`, "errorfunction error" + nativeText},
		{"setTimeout", `return String(setTimeout)`, "function setTimeout" + nativeText},
		{"clearTimeout", `return String(clearTimeout)`, "function clearTimeout" + nativeText},
		{"timers still work", `return await new Promise(r => { const id = setTimeout(() => r("no"), 1); clearTimeout(id); setTimeout(r, 2, "yes") })`,
			"yes"},
		{"a binding member", `return String(tools.fail)`, "function fail" + nativeText},
		{"an error class", `return String(ToolError)`, "function ToolError" + nativeText},
		{"an error class still constructs and matches", `class Mine extends ToolError {}
const m = new Mine("a"), t = new ToolError("b")
try { await tools.fail({}) } catch (e) {
  return [e instanceof ToolError, e.constructor === ToolError, t.constructor === ToolError, m instanceof ToolError, t.name, e.tool].join()
}`, "true,true,true,true,ToolError,fail"},
		{"call sites' methods", `let s
Error.prepareStackTrace = (e, sites) => { s = sites[0]; return "" }
new Error().stack
return String(s.getLineNumber) + s.getLineNumber()`, "function getLineNumber" + nativeText + "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := e.Run(context.Background(), tc.program, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			var got string
			require.NoError(t, json.Unmarshal(o.Value, &got))
			require.Equal(t, tc.want, got)
		})
	}
}
