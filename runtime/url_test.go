package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// urlCorpus is testdata/url_cases.json, which testdata/url_gen.mjs
// generates from Node's URL: parses (an input and an optional base), setters
// (a component set on a parsed URL) and URLSearchParams programs. Each want
// holds every component of the result, or the failure's "name: message".
type urlCorpus struct {
	Parse []struct {
		Class string          `json:"class"`
		Input string          `json:"input"`
		Base  *string         `json:"base"`
		Want  json.RawMessage `json:"want"`
	} `json:"parse"`
	Setters []struct {
		Href   string          `json:"href"`
		Setter string          `json:"setter"`
		Value  string          `json:"value"`
		Want   json.RawMessage `json:"want"`
	} `json:"setters"`
	Params []webCase `json:"params"`
}

// urlCase is one comparison: the program that computes it, by the key that
// names it in urlDeviations.
type urlCase struct {
	key  string
	args any // [input, base|null] or [href, setter, value]
	want json.RawMessage
}

// urlDeviations are the corpus's cases where coderun follows the URL
// Standard and Node 20 (its URL parser, ada) does not; each gives the href
// the standard gives.
var urlDeviations = map[string]struct{ reason, href string }{
	// A ".." segment that ends a path appends an empty segment, in every
	// scheme (basic URL parser, path state, step 1.1); Node drops it when
	// it is the path's first segment in a non-special URL.
	`parse "sc://h:/%2e%2E?a=b##"`:                    {"path state: a final .. appends an empty segment", "sc://h/?a=b##"},
	`parse "blob:/%2e%2E?#"`:                          {"path state: a final .. appends an empty segment", "blob:/?#"},
	`parse "sc://[::1]/%2e%2E?###"`:                   {"path state: a final .. appends an empty segment", "sc://[::1]/?###"},
	`parse "sc://xn--n3h/%2e%2E?a=b#<>` + "`" + `\""`: {"path state: a final .. appends an empty segment", "sc://xn--n3h/?a=b#%3C%3E%60%22"},
	`parse "../../.." "sc://h/a/b"`:                   {"path state: a final .. appends an empty segment", "sc://h/"},
	// The port state with a state override returns at the first non-digit,
	// leaving the port as it was; Node clears it when a digit follows.
	`set "http://u:p@h:8080/a/b?q#f" port "x8"`: {"port state: a setter's value that starts with a non-digit changes nothing", "http://u:p@h:8080/a/b?q#f"},
	`set "http://u:p@h:8080/a/b?q#f" port "+9"`: {"port state: a setter's value that starts with a non-digit changes nothing", "http://u:p@h:8080/a/b?q#f"},
	// The host state fails on an empty host before ":", and sets the port
	// after one; the empty string is a valid opaque host.
	`set "sc://h/p" host ":8"`:    {"host state: an empty host before : is failure", "sc://h/p"},
	`set "sc:/p" host "x.com:81"`: {"host state: a port after the host is set", "sc://x.com:81/p"},
	`set "sc:/p" host "[::1]:9"`:  {"host state: a port after the host is set", "sc://[::1]:9/p"},
	`set "sc:/p" host ""`:         {"host state: the empty host of a non-special URL is the empty string", "sc:///p"},
	`set "sc:/p" hostname ""`:     {"host state: the empty host of a non-special URL is the empty string", "sc:///p"},
}

func loadURLCorpus(t *testing.T) ([]urlCase, []urlCase, []webCase) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "url_cases.json"))
	require.NoError(t, err)
	var c urlCorpus
	require.NoError(t, json.Unmarshal(b, &c))
	require.Greater(t, len(c.Parse), 300)
	require.Greater(t, len(c.Setters), 300)
	parses := make([]urlCase, len(c.Parse))
	for i, p := range c.Parse {
		key := fmt.Sprintf("parse %q", p.Input)
		if p.Base != nil {
			key += fmt.Sprintf(" %q", *p.Base)
		}
		parses[i] = urlCase{key, []any{p.Input, p.Base}, p.Want}
	}
	setters := make([]urlCase, len(c.Setters))
	for i, s := range c.Setters {
		setters[i] = urlCase{fmt.Sprintf("set %q %s %q", s.Href, s.Setter, s.Value), []any{s.Href, s.Setter, s.Value}, s.Want}
	}
	return parses, setters, c.Params
}

// urlProgram is the body of an async function that returns, for each of
// args, the components of the URL it parses (setter false) or that a setter
// leaves (setter true), or the failure.
func urlProgram(t *testing.T, cases []urlCase, setter bool) string {
	t.Helper()
	args := make([]any, len(cases))
	for i, c := range cases {
		args[i] = c.args
	}
	b, err := json.Marshal(args)
	require.NoError(t, err)
	build := `b === null ? new URL(a) : new URL(a, b)`
	if setter {
		build = `(u = new URL(a), u[b] = c, u)`
	}
	return `const keys = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
return ` + string(b) + `.map(([a, b, c]) => {
  let u;
  try { u = ` + build + `; } catch (e) { return { failure: e.name + ": " + e.message }; }
  const o = {};
  for (const k of keys) o[k] = u[k];
  return o;
});`
}

// urlChunks splits cases into runs of at most 100.
func urlChunks(cases []urlCase) [][]urlCase {
	var out [][]urlCase
	for len(cases) > 100 {
		out = append(out, cases[:100])
		cases = cases[100:]
	}
	return append(out, cases)
}

// TestURLCases runs the corpus in the engine: each parse and setter must
// give every component Node gives, but for urlDeviations, and each
// URLSearchParams program must return what Node returned.
func TestURLCases(t *testing.T) {
	e := testEngine(t)
	parses, setters, params := loadURLCorpus(t)
	seen := 0
	for _, set := range []struct {
		cases  []urlCase
		setter bool
	}{{parses, false}, {setters, true}} {
		for _, chunk := range urlChunks(set.cases) {
			o := mustRun(t, e, urlProgram(t, chunk, set.setter))
			require.Empty(t, o.Kind, o.Message)
			var got []json.RawMessage
			require.NoError(t, json.Unmarshal(o.Value, &got))
			require.Len(t, got, len(chunk))
			for i, c := range chunk {
				if d, ok := urlDeviations[c.key]; ok {
					seen++
					var g struct{ Href string }
					require.NoError(t, json.Unmarshal(got[i], &g), c.key)
					require.Equal(t, d.href, g.Href, "%s (%s)", c.key, d.reason)
					require.NotEqual(t, string(compactJSON(t, c.want)), string(compactJSON(t, got[i])), "%s now matches Node: drop it from urlDeviations", c.key)
					continue
				}
				require.JSONEq(t, string(c.want), string(got[i]), c.key)
			}
		}
	}
	require.Equal(t, len(urlDeviations), seen, "a deviation names a case the corpus no longer has")
	for _, c := range params {
		t.Run(c.Name, func(t *testing.T) {
			o := mustRun(t, e, c.Src)
			require.Empty(t, o.Kind, o.Message)
			var got string
			require.NoError(t, json.Unmarshal(o.Value, &got))
			require.Equal(t, c.Want, got)
		})
	}
}

func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return out
}

// TestURLCasesMatchNode checks that the corpus's wants are what the
// installed Node gives, so that the corpus keeps comparing with Node.
func TestURLCasesMatchNode(t *testing.T) {
	parses, setters, params := loadURLCorpus(t)
	srcs := []string{urlProgram(t, parses, false), urlProgram(t, setters, true)}
	for _, c := range params {
		srcs = append(srcs, c.Src)
	}
	got := runInNode(t, srcs)
	for i, cases := range [][]urlCase{parses, setters} {
		var each []json.RawMessage
		require.NoError(t, json.Unmarshal(got[i], &each), string(got[i]))
		require.Len(t, each, len(cases))
		for j, c := range cases {
			require.JSONEq(t, string(c.want), string(each[j]), c.key)
		}
	}
	for i, c := range params {
		var want string
		require.NoError(t, json.Unmarshal(got[2+i], &want), c.Name)
		require.Equal(t, c.Want, want, c.Name)
	}
}

// Inputs a model could send that Node's corpus does not cover: large ones
// stay linear, and malformed ones fail as TypeErrors, never as the engine's.
func TestURLHostile(t *testing.T) {
	e := testEngine(t)
	for _, c := range []struct{ name, program, want string }{
		{"long path", `return new URL("http://h/" + "a/".repeat(50000) + "?" + "q".repeat(50000)).href.length`, `150010`},
		{"long query in URLSearchParams", `return new URLSearchParams("a=%zz&".repeat(20000)).size`, `20000`},
		{"long non-ASCII label", `return new URL("http://" + "ä".repeat(20000) + "/").hostname.length`, `20006`}, // as Node
		{"punycode overflow", `return URL.parse("http://xn--" + "9".repeat(200) + "/")`, `null`},
		{"IPv6 too long", `return URL.parse("http://[" + "1:".repeat(1000) + "1]/")`, `null`},
		{"IPv4 number past 2^53", `return URL.parse("http://" + "9".repeat(400) + "/")`, `null`},
		{"symbol", `try { new URL(Symbol("s")) } catch (e) { return [e.name, e.message] }`, `["TypeError", "Cannot convert a Symbol value to a string"]`},
		{"not a URL", `try { new URL("nope") } catch (e) { return [e.name, e.message, e.code, e.input] }`, `["TypeError", "Invalid URL", "ERR_INVALID_URL", "nope"]`},
		{"tampered prototypes", `String.prototype.replace = () => { throw new Error("tampered") };
			try { return new URL("http://h/a b").href } catch (e) { return e.message }`, `"tampered"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := mustRun(t, e, c.program)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, c.want, string(o.Value))
		})
	}
}
