package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The prelude's own functions are unreachable from the program, and
// nothing the program changes after it starts (Object.prototype, the
// Promise species, Error.prepareStackTrace) alters how the prelude settles
// calls and the run.
func TestPreludeIntegrity(t *testing.T) {
	e := testEngine(t)
	bindings := echoFailTools()
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
			o, err := e.run(context.Background(), tc.program, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, tc.want, string(o.Value))
		})
	}
}
