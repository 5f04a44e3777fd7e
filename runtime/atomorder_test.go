package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime/internal/transpile"
	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
	"github.com/stretchr/testify/require"
)

// engineOf returns an Engine running snapshot s (on wazero's interpreter,
// which spends the same fuel as the compiler), closed when t ends.
func engineOf(t *testing.T, s *snapshot) *Engine {
	t.Helper()
	ctx := context.Background()
	qe, err := quickjs.NewEngine(ctx, quickjs.Options{Wasm: s.module, Interpreter: true, ShareImage: true})
	require.NoError(t, err)
	e := &Engine{ownsQE: true, limits: testLimits(), qe: qe, programs: transpile.NewCache(compileCacheEntries, compileCacheBytes),
		snap: s.state, closing: make(chan struct{}), interruptCounter: findInterruptCounter(ctx, qe, s.state)}
	e.giveBack = newGiveBack(e.closing)
	t.Cleanup(func() { require.NoError(t, e.Close(ctx)) })
	return e
}

// unusedWebGlobals are programs that use none of the web globals, each with
// the fuel it spent at 1258cef (the last engine before URL, URLSearchParams
// and Intl, with the atom table in the prelude's order), for reference:
// the test compares with an engine built now without the web globals.
var unusedWebGlobals = []struct {
	program string
	at1258  uint64
}{
	{"return 1", 914},
	{"const x=2; return x", 952},
	{"const y=2; return y", 1285},
	{"let a=1,b=2,c=3; return a+b+c", 1068},
	{"let a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8; return a+b+c+d+e+f+g+h", 1739},
	{"let o={abc:1}; return o.abc", 1007},
	{"let sum=0; for (let i=0;i<10;i++) sum+=i; return sum", 1256},
	{"const items=[{id:1,name:'a'},{id:2,name:'b'}]; return items.filter(it=>it.id>1).map(it=>it.name)", 1755},
	{"console.log(JSON.stringify({a:[1,2]})); return 1", 1171},
	{"const s = 'abc'; return s.toUpperCase() + s.padStart(5)", 1162},
	{"return Math.max(1,2,3) + Math.floor(2.5)", 1936},
	{"return Object.keys({alpha:1,beta:2}).join(',')", 1393},
	{"const m = new Map(); m.set('k', 1); return m.get('k')", 1429},
	{"class Point { constructor(x, y) { this.x = x; this.y = y } norm() { return Math.hypot(this.x, this.y) } } return new Point(3,4).norm()", 2531},
	{"const p = await new Promise(r => setTimeout(() => r(5), 0)); return p", 1575},
	{"function fib(n) { return n < 2 ? n : fib(n-1) + fib(n-2) } return fib(10)", 1454},
	{"const arr = [3,1,2]; arr.sort((a, b) => a - b); return arr", 1362},
	{"try { null.x } catch (err) { return err.message }", 1604},
	{"const [first, second] = [1, 2]; return first + second", 1217},
	{"const users = [{ name: 'ann', age: 30 }, { name: 'bob', age: 25 }]; return users.sort((u, v) => u.age - v.age)[0].name", 1819},
	{"return typeof input", 947},
	{"const e = new Error('boom'); return e.message", 1255},
	{"const text = 'a,b,c'; return text.split(',').reverse().join('-')", 1470},
}

// A run that uses none of the web globals spends the fuel it would in an
// engine without them, built here from the prelude with an installer that
// installs nothing: the installer's names come after every other atom of
// the snapshot (runtime/webglobals.js, orderAtoms), so adding a web global
// moves none that such a program names, and compiling it costs the same.
// (When URL's names sat among the prelude's, `const x=2; return x` spent
// 299 units more than before them.) What is left is QuickJS's atom hash
// table: a name of theirs that shares a bucket with one the program looks
// up costs the lookup a step, a few units a program. The two snapshots
// offer a run the same free blocks (quickjs.Instance.SeedArenas), so its
// allocations take the same paths until it has used them up; 16 of the 20
// programs here spend exactly the same, the others at most 26 units (1.3%)
// more or less. The bound is 2%.
func TestWebGlobalsCostUnusedNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("building a snapshot is one goroutine's work: -race finds nothing there")
	}
	ctx := context.Background()
	hardened, err := wasm.Harden(upstream.Module(), fuelConfig)
	require.NoError(t, err)
	bare := preludeSourceWith(noWebGlobals)
	s, err := buildSnapshot(ctx, hardened, bare, bare)
	require.NoError(t, err)
	without, with := engineOf(t, s), testEngine(t)
	require.Equal(t, `"undefined"`, string(mustRun(t, without, "return typeof URL").Value))
	require.Equal(t, `"function"`, string(mustRun(t, with, "return typeof URL").Value))
	for _, tc := range unusedWebGlobals {
		w, wo := mustRun(t, with, tc.program), mustRun(t, without, tc.program)
		require.Empty(t, w.Kind, w.Message)
		require.Equal(t, wo.Value, w.Value)
		t.Logf("%5d with, %5d without the web globals, %5d at 1258cef: %s", w.FuelUsed, wo.FuelUsed, tc.at1258, tc.program)
		require.LessOrEqual(t, w.FuelUsed, wo.FuelUsed+wo.FuelUsed/50, tc.program)
	}
}

// preludeGlobals, which orderAtoms places first, are names the prelude
// gives programs: globals, or console's methods.
func TestPreludeGlobalsAreGlobals(t *testing.T) {
	e := testEngine(t)
	names, err := json.Marshal(preludeGlobals)
	require.NoError(t, err)
	o := mustRun(t, e, "return "+string(names)+".filter((n) => !Object.hasOwn(globalThis, n) && typeof console[n] !== 'function')")
	require.Empty(t, o.Kind, o.Message)
	require.Equal(t, "[]", string(o.Value))
}
