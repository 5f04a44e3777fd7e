package runtime

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/internal/testenv"
)

// webCase is one entry of testdata/web_cases.json, which
// testdata/web_gen.mjs generates: Src is the body of an async function that
// returns a string; Want is what Node returned for it.
type webCase struct {
	Name string `json:"name"`
	Src  string `json:"src"`
	Want string `json:"want"`
}

// loadCorpus reads a corpus of testdata (web_cases.json, intl_cases.json),
// which a script of testdata generates with Node.
func loadCorpus(t *testing.T, name string) []webCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var cases []webCase
	require.NoError(t, json.Unmarshal(b, &cases))
	require.Greater(t, len(cases), 50)
	return cases
}

// runInNode runs each of srcs in the installed Node as the body of an
// async function, in the environment env adds to this process's, and
// returns what each returned as JSON ("node threw …" when it threw).
func runInNode(t *testing.T, srcs []string, env ...string) []json.RawMessage {
	t.Helper()
	node := testenv.Node(t)
	in, err := json.Marshal(srcs)
	require.NoError(t, err)
	script := `const AsyncFunction = (async () => {}).constructor;
let text = ""; process.stdin.on("data", (d) => text += d).on("end", async () => {
  const out = [];
  for (const src of JSON.parse(text)) {
    try { out.push(await new AsyncFunction(src)()); } catch (e) { out.push("node threw " + e); }
  }
  process.stdout.write(JSON.stringify(out));
});`
	cmd := exec.Command(node, "--no-warnings", "-e", script)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(string(in))
	b, err := cmd.Output()
	require.NoError(t, err)
	var got []json.RawMessage
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got, len(srcs))
	return got
}

// requireCorpusMatchesNode checks that the wants of cases are what the
// installed Node returns, so that the corpus keeps comparing with Node.
func requireCorpusMatchesNode(t *testing.T, cases []webCase, env ...string) {
	t.Helper()
	srcs := make([]string, len(cases))
	for i, c := range cases {
		srcs[i] = c.Src
	}
	for i, raw := range runInNode(t, srcs, env...) {
		var got string
		require.NoError(t, json.Unmarshal(raw, &got), cases[i].Name)
		require.Equal(t, cases[i].Want, got, cases[i].Name)
	}
}

// TestWebCases runs the corpus of the web globals in the engine: each case
// must return what Node returned.
func TestWebCases(t *testing.T) {
	e := testEngine(t)
	for _, c := range loadCorpus(t, "web_cases.json") {
		t.Run(c.Name, func(t *testing.T) {
			o := mustRun(t, e, c.Src)
			require.Empty(t, o.Kind, o.Message)
			var got string
			require.NoError(t, json.Unmarshal(o.Value, &got))
			require.Equal(t, c.Want, got)
		})
	}
}

// TestWebCasesMatchNode checks that the corpus's wants are what the
// installed Node returns, so that the corpus keeps comparing with Node.
func TestWebCasesMatchNode(t *testing.T) {
	requireCorpusMatchesNode(t, loadCorpus(t, "web_cases.json"))
}

// The errors coderun words itself, and the cases Node cannot share.
func TestWebErrors(t *testing.T) {
	e := testEngine(t)
	for _, c := range []struct{ name, program, want string }{
		{"function not cloned", `try { structuredClone({ f() {} }) } catch (e) { return [e.name, e.message, e.code, e instanceof DOMException] }`,
			`["DataCloneError", "function f() could not be cloned.", 25, true]`},
		{"symbol not cloned", `try { structuredClone(Symbol("s")) } catch (e) { return [e.name, e.message] }`,
			`["DataCloneError", "a symbol could not be cloned."]`},
		{"transfer of a view", `try { structuredClone(1, { transfer: [new Uint8Array(1)] }) } catch (e) { return [e.name, e.message] }`,
			`["DataCloneError", "structuredClone: coderun can transfer only ArrayBuffers; #<Uint8Array> is not one"]`},
		{"transfer of a detached buffer", `const b = new ArrayBuffer(1); structuredClone(b, { transfer: [b] });
			try { structuredClone(1, { transfer: [b] }) } catch (e) { return [e.name, e.message] }`,
			`["DataCloneError", "structuredClone: an ArrayBuffer in the transfer list is detached"]`},
		{"passive listener", `const t = new EventTarget(), e = new Event("x", { cancelable: true });
			t.addEventListener("x", (e) => e.preventDefault(), { passive: true });
			return [t.dispatchEvent(e), e.defaultPrevented]`, `[true, false]`},
		{"capture listeners are distinct", `const t = new EventTarget(); let n = 0; const f = () => n++;
			t.addEventListener("x", f); t.addEventListener("x", f, true); t.addEventListener("x", f, { capture: true });
			t.dispatchEvent(new Event("x")); t.removeEventListener("x", f, true); t.dispatchEvent(new Event("x"));
			return n`, `3`},
		{"nested dispatch", `const t = new EventTarget(); let r;
			t.addEventListener("x", (e) => { try { t.dispatchEvent(e) } catch (err) { r = [err.name, err instanceof DOMException] } });
			t.dispatchEvent(new Event("x")); return r`, `["InvalidStateError", true]`},
		{"timeout's argument", `try { AbortSignal.timeout(-1) } catch (e) { return e.name }`, `"TypeError"`},
		{"bad label", `try { new TextDecoder("utf-16le") } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "TextDecoder: the encoding \"utf-16le\" is not supported: coderun supports only \"utf-8\" (labels: unicode-1-1-utf-8, unicode11utf8, unicode20utf8, utf-8, utf8, x-unicode20utf8)"]`},
		{"fatal", `const d = new TextDecoder("utf-8", { fatal: true }); const out = [];
			try { d.decode(new Uint8Array([0x61, 0xff])) } catch (e) { out.push(e.name, e.message) }
			try { d.decode(new Uint8Array([0xe2, 0x82]), { stream: true }); d.decode() } catch (e) { out.push(e.name) }
			out.push(d.decode(new Uint8Array([0xe2, 0x82, 0xac])));
			return out`,
			`["TypeError", "TextDecoder.decode: the encoded data was not valid utf-8", "TypeError", "€"]`},
		{"digest of an unknown algorithm", `try { await crypto.subtle.digest("MD5", new Uint8Array(1)) } catch (e) { return [e.name, e.message] }`,
			`["NotSupportedError", "Unrecognized algorithm name: coderun supports \"SHA-1\", \"SHA-256\", \"SHA-384\" and \"SHA-512\""]`},
		{"abort reasons", `const c = new AbortController(); c.abort(); const t = AbortSignal.timeout(1);
			await new Promise((r) => t.onabort = r);
			return [c.signal.reason.name, c.signal.reason.message, t.reason.name, t.reason.message, AbortSignal.abort(undefined).reason.name, AbortSignal.abort(null).reason]`,
			`["AbortError", "This operation was aborted", "TimeoutError", "The operation was aborted due to timeout", "AbortError", null]`},
		{"interval cap", `const ids = []; try { for (;;) ids.push(setInterval(() => {}, 1e9)) } catch (e) { ids.forEach(clearInterval); return [ids.length, e.name, e.message] }`,
			`[10000, "RangeError", "setInterval: too many pending timers: a run may have at most 10000 timers pending at once; clear some with clearTimeout or let them fire before setting more"]`},
		{"interval rounds keep the cap", `for (let i = 0; i < 9999; i++) setTimeout(() => {}, 1e9);
			let n = 0; await new Promise((r) => { const id = setInterval(() => { if (++n === 5) { clearInterval(id); r() } }, 1) });
			return n`, `5`},
		{"listener exception ends the run", `const t = new EventTarget(); t.addEventListener("x", () => { throw new Error("boom") });
			t.dispatchEvent(new Event("x")); await new Promise((r) => setTimeout(r, 50)); return "not reached"`, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := mustRun(t, e, c.program)
			if c.want == "" {
				require.Equal(t, KindException, o.Kind)
				require.True(t, strings.HasPrefix(o.Message, "Error: boom"), o.Message)
				return
			}
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, c.want, string(o.Value))
		})
	}
}

// A run that does not touch the web globals finds them as accessors and
// makes the host compile none of their groups; touching one name compiles
// its group only, and turns its names into data properties as Web IDL
// defines globals.
func TestWebGlobalsLazy(t *testing.T) {
	e := testEngine(t)
	o := mustRun(t, e, `return ["TextEncoder", "structuredClone", "crypto", "AbortSignal", "URL", "URLSearchParams"].map((k) => {
		const d = Object.getOwnPropertyDescriptor(globalThis, k);
		return [typeof d.get, typeof d.set, d.enumerable, d.configurable, "value" in d];
	})`)
	require.Empty(t, o.Kind, o.Message)
	accessor := `["function","function",false,true,false]`
	require.JSONEq(t, "["+strings.Repeat(accessor+",", 5)+accessor+"]", string(o.Value))
	for g := range webGroups {
		require.Nil(t, e.web.code[g], "group %d compiled by a run that did not use it", g)
	}

	o = mustRun(t, e, `const v = TextEncoder; return ["TextEncoder", "TextDecoder", "crypto"].map((k) => {
		const d = Object.getOwnPropertyDescriptor(globalThis, k);
		return [typeof d.value, String(d.writable), d.enumerable, d.configurable];
	})`)
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, `[["function","true",false,true],["function","true",false,true],["undefined","undefined",false,true]]`, string(o.Value))
	require.NotNil(t, e.web.code[0])
	for g := 1; g < len(webGroups); g++ {
		require.Nil(t, e.web.code[g], "group %d", g)
	}

	// URLSearchParams loads URL's group, and defines URL with it.
	o = mustRun(t, e, `const p = new URLSearchParams("a=1"); return ["URL", "URLSearchParams", "crypto"].map((k) => {
		const d = Object.getOwnPropertyDescriptor(globalThis, k);
		return [typeof d.value, String(d.writable)];
	}).concat(p.get("a"))`)
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, `[["function","true"],["function","true"],["undefined","undefined"],"1"]`, string(o.Value))
	url := slices.Index(webGroups[:], "web/url.js")
	require.NotNil(t, e.web.code[url])
	for g := 1; g < len(webGroups); g++ {
		if g != url {
			require.Nil(t, e.web.code[g], "group %d", g)
		}
	}
}

// Every run of a program that uses a group spends the same fuel: the runs
// after the first, which evaluate the cached bytecode, are charged what
// compiling it cost the first.
func TestWebFuelSame(t *testing.T) {
	e := testEngine(t)
	const program = `return new TextEncoder().encode("abc").length + structuredClone(1) + (typeof crypto) + (typeof Event) +
		new URL("http://bücher.example/a/../b?q#f").href + new URLSearchParams({ a: "1 2" })`
	first := mustRun(t, e, program)
	require.Empty(t, first.Kind, first.Message)
	second := mustRun(t, e, program)
	require.Equal(t, first.FuelUsed, second.FuelUsed)
	require.Equal(t, string(first.Value), string(second.Value))
}

// The host checks opWeb's and opRandom's operands: a made-up group or size
// gets undefined.
func TestWebHostOperands(t *testing.T) {
	e := testEngine(t)
	r := &run{e: e}
	require.Equal(t, quickjs.Undefined, r.webGroup(-1))
	require.Equal(t, quickjs.Undefined, r.webGroup(len(webGroups)))
	require.Equal(t, quickjs.Undefined, r.randomHex(maxRandomBytes+1))
	require.Equal(t, quickjs.Undefined, r.randomHex(-1))
}
