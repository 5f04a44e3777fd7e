package coderun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// knownEngineBugs lists the testdata/enginebugs programs that still hit a
// memory-safety bug of the embedded QuickJS-NG build, with what they showed
// when recorded. It is empty: every reachable bug is neutralized
// (docs/engine-bugs.md, "how neutralized"). An entry is for a bug found
// later that cannot be neutralized yet. TestEngineBugs then asserts that the
// program still does not give its correct result, so that the test fails
// the day a fix lands and the entry must go. Any other outcome counts as
// "still reproduces": a trap, a wrong value, or an exception the correct
// engine does not throw (on a corrupted heap the symptom changes with the
// heap's layout, and a trap can turn into a spurious TypeError when
// unrelated code allocates differently).
var knownEngineBugs = map[string]string{}

// engineBugCase is one program of testdata/enginebugs: the body of an async
// function that triggers an upstream QuickJS-NG memory-safety bug, the
// values (compact JSON) a correct engine returns, and the values it may
// return in coderun because a neutralization removed what it uses (the
// program catches the TypeError of calling a removed method).
type engineBugCase struct {
	name        string
	program     string
	expect      []json.RawMessage
	neutralized []json.RawMessage
}

// loadEngineBugCases reads every testdata/enginebugs/*.js and its header:
// an "// upstream:" line naming the fix, one or more "// expect: JSON"
// lines and any "// neutralized: JSON" lines.
func loadEngineBugCases(t *testing.T) []engineBugCase {
	t.Helper()
	files, err := filepath.Glob("testdata/enginebugs/*.js")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var cases []engineBugCase
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		c := engineBugCase{name: strings.TrimSuffix(filepath.Base(file), ".js"), program: string(src)}
		var upstream bool
		for _, line := range strings.Split(c.program, "\n") {
			if strings.HasPrefix(line, "// upstream: ") {
				upstream = true
			}
			for prefix, dst := range map[string]*[]json.RawMessage{"// expect: ": &c.expect, "// neutralized: ": &c.neutralized} {
				if v, ok := strings.CutPrefix(line, prefix); ok {
					var buf bytes.Buffer
					require.NoError(t, json.Compact(&buf, []byte(v)), "%s: bad line %q", file, line)
					*dst = append(*dst, json.RawMessage(buf.Bytes()))
				}
			}
		}
		require.True(t, upstream, "%s: no // upstream: line", file)
		require.NotEmpty(t, c.expect, "%s: no // expect: line", file)
		cases = append(cases, c)
	}
	return cases
}

// engineBugVerdict classifies a run: "correct" (one of the expected
// values), "neutralized" (one of the neutralized values), "catchable" (an exception the program could have caught),
// "trap" (the engine faulted) or "wrong value"; anything else is returned
// as the failure kind.
func engineBugVerdict(res coderun.Result, expect, neutralized []json.RawMessage) string {
	if res.Error == nil {
		for _, want := range expect {
			if bytes.Equal(res.Value, want) {
				return "correct"
			}
		}
		for _, want := range neutralized {
			if bytes.Equal(res.Value, want) {
				return "neutralized"
			}
		}
		return "wrong value"
	}
	switch res.Error.Kind {
	case coderun.Exception:
		return "catchable"
	case coderun.WorkerExit:
		return "trap"
	}
	return string(res.Error.Kind)
}

// TestEngineBugs runs every program of testdata/enginebugs. A program must
// give its correct result or a catchable error, never a trap or a wrong
// value, unless it is listed in knownEngineBugs, in which case it must
// still misbehave.
func TestEngineBugs(t *testing.T) {
	rt := newRuntime(t, nil)
	cases := loadEngineBugCases(t)
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			res, err := rt.Run(context.Background(), coderun.Request{Program: c.program})
			require.NoError(t, err)
			verdict := engineBugVerdict(res, c.expect, c.neutralized)
			got := string(res.Value)
			if res.Error != nil {
				got = res.Error.Error()
			}
			if symptom, known := knownEngineBugs[c.name]; known {
				require.NotEqual(t, "correct", verdict,
					"known engine bug %s now gives its correct result (recorded: %s; got %s). "+
						"A fix or neutralization landed: remove it from knownEngineBugs and update docs/engine-bugs.md",
					c.name, symptom, got)
				t.Logf("still reproduces (%s): %s", verdict, got)
				return
			}
			require.Contains(t, []string{"correct", "neutralized", "catchable"}, verdict,
				"engine bug %s: want one of %s (or %s) or a catchable error, got %s: %s", c.name, c.expect, c.neutralized, verdict, got)
		})
	}
	var stale []string
	for name := range knownEngineBugs {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	require.Empty(t, stale, "knownEngineBugs entries without a testdata/enginebugs program")
}

// TestEngineSurfaceRemoved checks that what the prelude deletes
// (docs/engine-bugs.md) is gone before the program starts and cannot be
// found again: no function reachable from globalThis (walking every own
// property and accessor, and prototypes) is one of them, while what stays
// keeps working.
func TestEngineSurfaceRemoved(t *testing.T) {
	rt := newRuntime(t, nil)
	const program = `
const gone = [
  "transfer" in ArrayBuffer.prototype, "transferToFixedLength" in ArrayBuffer.prototype,
  "resize" in ArrayBuffer.prototype, "grow" in SharedArrayBuffer.prototype,
  "concat" in Iterator, "FinalizationRegistry" in globalThis, typeof FinalizationRegistry,
];
// Walk everything reachable from globalThis without calling getters.
const banned = new Set(["transfer", "transferToFixedLength", "resize", "grow", "FinalizationRegistry"]);
const allowedConcat = new Set([Array.prototype.concat, String.prototype.concat]);
const seen = new Set(), found = [], queue = [globalThis];
while (queue.length) {
  const o = queue.pop();
  if (o === null || (typeof o !== "object" && typeof o !== "function") || seen.has(o)) continue;
  seen.add(o);
  if (typeof o === "function") {
    const d = Object.getOwnPropertyDescriptor(o, "name");
    const name = d && typeof d.value === "string" ? d.value : "";
    if (banned.has(name) || (name === "concat" && !allowedConcat.has(o))) found.push(name);
  }
  queue.push(Object.getPrototypeOf(o));
  for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    queue.push(d.value, d.get, d.set);
  }
}
const rab = new ArrayBuffer(8, { maxByteLength: 16 });
let err;
try { rab.resize(16) } catch (e) { err = e.constructor.name }
const ref = new WeakRef(rab);
return { gone, found, visited: seen.size > 500, resizable: [rab.resizable, rab.maxByteLength, rab.byteLength], err,
  weakRef: ref.deref() === rab, concat: [1].concat([2]).length, sliced: rab.slice(2).byteLength };
`
	res, err := rt.Run(context.Background(), coderun.Request{Program: program})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.JSONEq(t, `{"gone":[false,false,false,false,false,false,"undefined"],"found":[],"visited":true,
		"resizable":[true,16,8],"err":"TypeError","weakRef":true,"concat":2,"sliced":6}`, string(res.Value))
}

// TestProxyUnchanged checks, test262-style, that neutralizing the ownKeys
// size overflow (a wasm pass, GuardProxyOwnKeysSize) leaves Proxy as the
// engine has it: its shape, traps called with the handler as this,
// revocable proxies, and ownKeys results below 2^29 keys, which the engine
// validates as before (a TypeError for a non-key element, the getter's own
// error, the invariants).
func TestProxyUnchanged(t *testing.T) {
	rt := newRuntime(t, nil)
	const program = `
const out = {};
out.shape = [typeof Proxy, Proxy.name, Proxy.length, Object.hasOwn(Proxy, "prototype"), typeof Proxy.revocable, Proxy.revocable.length];
try { Proxy({}, {}); out.callWithoutNew = "no error" } catch (e) { out.callWithoutNew = e.constructor.name }
let self;
const handler = { get(t, k, r) { self = this; return k === "x" ? 42 : Reflect.get(t, k, r) }, ownKeys(t) { return ["b", "a"] },
  getOwnPropertyDescriptor(t, k) { return { value: k, enumerable: true, configurable: true } } };
const p = new Proxy({}, handler);
out.get = [p.x, self === handler];
out.keys = Object.keys(p);
const { proxy, revoke } = Proxy.revocable({ y: 1 }, {});
out.revocable = [proxy.y];
revoke();
try { proxy.y; out.revocable.push("no error") } catch (e) { out.revocable.push(e.constructor.name) }
const errorOf = (list) => { try { Object.keys(new Proxy({}, { ownKeys: () => list })); return "no error" } catch (e) { return e.constructor.name + ": " + e.message } };
out.bad = [errorOf({ length: 1 }), errorOf({ length: 3, 0: "a", 1: 2 }), errorOf(["a", "a"]),
  errorOf({ get length() { throw new RangeError("no length") } })];
out.arrayLike = Object.getOwnPropertyNames(new Proxy({}, { ownKeys: () => ({ length: 2, 0: "p", 1: "q" }) }));
out.empty = errorOf([]);
const frozen = Object.preventExtensions({ z: 1 });
try { Object.keys(new Proxy(frozen, { ownKeys: () => [] })); out.invariant = "no error" } catch (e) { out.invariant = e.constructor.name }
return out;
`
	res, err := rt.Run(context.Background(), coderun.Request{Program: program})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.JSONEq(t, `{
		"shape": ["function", "Proxy", 2, false, "function", 2],
		"callWithoutNew": "TypeError",
		"get": [42, true],
		"keys": ["b", "a"],
		"revocable": [1, "TypeError"],
		"bad": ["TypeError: proxy: properties must be strings or symbols", "TypeError: proxy: properties must be strings or symbols",
			"TypeError: proxy: duplicate property", "RangeError: no length"],
		"arrayLike": ["p", "q"],
		"empty": "no error",
		"invariant": "TypeError"
	}`, string(res.Value))
}

// TestCycleCollectorOff checks what turning QuickJS's cycle collector off
// (runtime/snapshot.go, cycleGC) costs, as bounds: acyclic garbage is still
// freed at once, so two million short-lived objects fit in 8 MiB; cyclic
// garbage stays until the run ends, so a flood of it ends as the usual
// memory failure, naming the limit, never a trap of another kind.
func TestCycleCollectorOff(t *testing.T) {
	rt := newRuntime(t, map[string]any{"MemoryBytes": float64(8 << 20)})
	res, err := rt.Run(context.Background(), coderun.Request{Program: `
let s = 0;
for (let i = 0; i < 2000000; i++) { const o = { i, tags: ["a", "b"] }; s += o.tags.length }
return s`})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.Equal(t, "4000000", string(res.Value))

	res, err = rt.Run(context.Background(), coderun.Request{Program: `
let s = 0;
for (let i = 0; i < 2000000; i++) { const o = { i }; o.self = o; s++ }
return s`})
	require.NoError(t, err)
	require.NotNil(t, res.Error, "2,000,000 self-referencing objects do not fit in 8 MiB without the collector")
	require.Equal(t, coderun.WorkerExit, res.Error.Kind)
	require.Contains(t, res.Error.Message, "memory limit of 8 MiB exceeded")
}
