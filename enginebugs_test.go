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
// when recorded. It is empty: the pinned QuickJS-NG has every fix
// (docs/engine-bugs.md). An entry is for a bug found later that is not
// fixed or neutralized yet. TestEngineBugs then asserts that the
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
// give the fixed engine's correct result (an "// expect:" line): the engine
// is built from a QuickJS-NG with every fix, so nothing is neutralized any
// more. A program listed in knownEngineBugs must still misbehave.
func TestEngineBugs(t *testing.T) {
	if raceEnabled {
		t.Skip("programs one goroutine runs alone, calling no binding: -race finds nothing (scripts/test runs it without)")
	}
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
			require.Equal(t, "correct", verdict,
				"engine bug %s: want one of %s, got %s: %s", c.name, c.expect, verdict, got)
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

// TestEngineSurfacePresent checks that what the earlier build's prelude
// deleted to dodge its memory bugs (docs/engine-bugs.md) is back and
// behaves: transfer detaches, resize shrinks views, a growable
// SharedArrayBuffer grows within its reservation, FinalizationRegistry and
// Iterator.concat work.
func TestEngineSurfacePresent(t *testing.T) {
	rt := newRuntime(t, nil)
	const program = `
const ab = new ArrayBuffer(8); const u = new Uint8Array(ab); u[0] = 7;
const moved = ab.transfer(16);
const fixed = new ArrayBuffer(4, { maxByteLength: 8 }).transferToFixedLength();
const rab = new ArrayBuffer(8, { maxByteLength: 16 }); const view = new Uint8Array(rab);
rab.resize(16); const grown = view.length; rab.resize(2);
const sab = new SharedArrayBuffer(4, { maxByteLength: 64 }); const sv = new Uint8Array(sab); sab.grow(64); sv.fill(9);
const fr = new FinalizationRegistry(() => {}); fr.register({}, 1);
return { detached: [ab.detached, ab.byteLength, u.length], moved: [moved.byteLength, new Uint8Array(moved)[0]],
  fixed: fixed.resizable, rab: [grown, rab.byteLength, view.length], sab: [sab.byteLength, sv.length, sv[63]],
  fr: typeof fr.unregister, concat: [...Iterator.concat([1, 2], [3])] };
`
	res, err := rt.Run(context.Background(), coderun.Request{Program: program})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.JSONEq(t, `{"detached":[true,0,0],"moved":[16,7],"fixed":false,"rab":[16,2,2],"sab":[64,64,9],
		"fr":"function","concat":[1,2,3]}`, string(res.Value))
}

// TestProxyUnchanged checks, test262-style, that Proxy behaves as the
// engine defines it (the earlier build needed a wasm pass against an
// ownKeys size overflow; the pinned QuickJS-NG has the fix): its shape, traps called with the handler as this,
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

// TestCycleCollectorOn checks, as bounds, that QuickJS's cycle collector
// runs with the threshold runtime.CycleGC sets (docs/performance.md, "The
// cycle collector"): three million two-object cycles, two million
// self-referencing objects and 400,000 promises with a catch reaction (the
// loop awaits now and then, so that their jobs run; the earlier build held
// 246 MB of them, this engine frees them without the collector) each
// complete under 32 MiB, and each run's peak memory exceeds an empty
// program's by less than 1 MiB (0.81, 0.81 and 0.38 MiB measured with a
// 1 MiB threshold). Without the collector the first ends as a worker exit
// at 32 MiB; with a 4 MiB threshold its peak is 3.9 MiB over the empty
// program's.
func TestCycleCollectorOn(t *testing.T) {
	if raceEnabled {
		t.Skip("programs one goroutine runs alone, calling no binding: -race finds nothing (scripts/test runs it without)")
	}
	const limit, growth = 32 << 20, 1 << 20
	rt := newRuntime(t, map[string]any{"MemoryBytes": float64(limit)})
	empty, err := rt.Run(context.Background(), coderun.Request{Program: `return 0`})
	require.NoError(t, err)
	require.Nil(t, empty.Error)
	for _, p := range []struct{ program, want string }{
		{`let s = 0; for (let i = 0; i < 3e6; i++) { const a = {}; const b = { a }; a.b = b; s++ } return s`, "3000000"},
		{`let s = 0; for (let i = 0; i < 2000000; i++) { const o = { i }; o.self = o; s++ } return s`, "2000000"},
		{`let s = 0; for (let i = 0; i < 400000; i++) { const p = Promise.resolve(i); p.catch(() => {}); s++; if (i % 1000 == 0) await null } return s`, "400000"},
	} {
		res, err := rt.Run(context.Background(), coderun.Request{Program: p.program})
		require.NoError(t, err)
		require.Nil(t, res.Error, p.program)
		require.Equal(t, p.want, string(res.Value))
		require.Less(t, res.Usage.PeakMemoryBytes-empty.Usage.PeakMemoryBytes, int64(growth),
			"peak %d, the empty program's %d: %s", res.Usage.PeakMemoryBytes, empty.Usage.PeakMemoryBytes, p.program)
	}
}
