package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// Deep recursion of every shape ends in QuickJS's catchable RangeError,
// never in wazero's native stack-overflow trap nor in the memory limit:
// on the first run of a program (which compiles it) and on later ones
// (which read its bytecode), on instances made by the run (whose native
// stack is warmed shallow, or deep for a run with bindings) and on
// prewarmed ones (warmed deep), whatever MemoryBytes sets the depth to.
//
// The whole matrix (every shape, both budgets, every kind of instance, both
// runs) is the long run's (CODERUN_LONG=1): each 256 MiB recursion takes most
// of a second. The default run has every shape on a fresh instance at both budgets,
// and samples the other instances and the second run with the shapes that
// reach the native stack differently (plain, async, a C builtin's callback,
// the JSON parser's and the compiler's own recursion). It skips under -race:
// one goroutine recursing alone gives the race detector nothing to find,
// and scripts/test runs it without.
func TestDeepRecursionRaisesRangeError(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine recursing alone: -race finds nothing (scripts/test runs it without)")
	}
	shapes := []struct{ name, body string }{
		{"direct", `function f(){ d++; return f() } return f()`},
		{"with argument", `function f(n){ d++; return n ? f(n-1)+1 : 0 } return f(1e6)`},
		{"mutual", `function a(){ d++; return b() } function b(){ return a() } return a()`},
		{"async", `const f = async () => { d++; return await f() }; return await f()`},
		{"method", `class A { m(){ d++; return this.m() } }; return new A().m()`},
		{"getter", `const o = { get x(){ d++; return this.x } }; return o.x`},
		{"proxy trap", `const p = new Proxy({}, { get(t, k, r){ d++; return r[k] } }); return p.x`},
		{"map callback", `function f(){ d++; return [1].map(f) } return f()`},
		{"sort comparator", `function f(){ d++; return [3, 1, 2].sort(() => f()) } return f()`},
		{"toJSON", `function f(){ d++; return JSON.stringify({toJSON: f}) } return f()`},
		{"toString", `function f(){ d++; return String({toString: f}) } return f()`},
		{"call", `function f(){ d++; return f.call(null) } return f()`},
		{"eval", `function f(){ d++; return eval("f()") } return f()`},
		{"apply", `function f(){ d++; return f.apply(null, []) } return f()`},
		{"bound", `let g; function f(){ d++; return g() } g = f.bind(null); return f()`},
		{"Reflect.apply", `function f(){ d++; return Reflect.apply(f, null, []) } return f()`},
		{"generator", `function* f(){ d++; yield* f() } return [...f()]`},
		{"setter", `const o = { set x(v){ d++; this.x = v } }; o.x = 1`},
		{"valueOf", `function f(){ d++; return +{valueOf: f} } return f()`},
		{"reduce", `function f(){ d++; return [1, 2].reduce(() => f()) } return f()`},
		{"replace", `function f(){ d++; return "a".replace(/a/, () => f()) } return f()`},
		{"new", `function F(){ d++; new F() } new F()`},
		{"JSON reviver", `function f(){ d++; return JSON.parse("[1]", () => f()) } return f()`},
		{"JSON.parse nesting", `for (;;) { d += 2000; JSON.parse("[".repeat(d) + "]".repeat(d)) }`},
		{"eval nesting", `for (;;) { d += 2000; eval("(".repeat(d) + "1" + ")".repeat(d)) }`},
	}
	sampled := map[string]bool{"direct": true, "async": true, "sort comparator": true, "JSON.parse nesting": true, "eval nesting": true}
	for _, memoryBytes := range []int64{32 << 20, 256 << 20} {
		limits := budget.Limits{
			Fuel: 1 << 40, ComputeTime: time.Minute, WallTime: time.Minute,
			MemoryBytes: memoryBytes, MaxOutputBytes: 1 << 20, MaxConcurrentCalls: 4,
			MaxProgramBytes: 1 << 20, MaxArgumentBytes: 8 << 20, MaxInputBytes: 1 << 20,
		}.WithDefaults()
		for _, c := range []struct {
			prewarm  int
			bindings []Binding
		}{
			{0, nil}, {1, nil},
			{0, []Binding{{Global: "tools", Functions: map[string]Func{"nop": func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}}}},
		} {
			prewarm := c.prewarm
			e, err := New(context.Background(), Options{Limits: limits, CacheDir: testCacheDir(t), Prewarm: prewarm})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
			fresh := prewarm == 0 && c.bindings == nil
			for _, s := range shapes {
				if !longRun() && !fresh && !sampled[s.name] {
					continue
				}
				runs := 2
				if !longRun() && !sampled[s.name] {
					runs = 1
				}
				program := "let d = 0\ntry {\n" + s.body + "\n} catch (e) { return [d, String(e)] }"
				for run := range runs {
					o, err := e.run(context.Background(), program, c.bindings)
					require.NoError(t, err)
					require.Empty(t, o.Kind, "%s, %d MiB, prewarm %d, bindings %d, run %d: %s", s.name, memoryBytes>>20, prewarm, len(c.bindings), run, o.Message)
					require.Contains(t, string(o.Value), `"RangeError: Maximum call stack size exceeded"]`, "%s, %d MiB", s.name, memoryBytes>>20)
					require.LessOrEqual(t, o.PeakMemory, memoryBytes, "%s", s.name)
				}
			}
		}
	}
}
