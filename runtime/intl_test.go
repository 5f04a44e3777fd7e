package runtime

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntlCases runs Intl's corpus in the engine: each case must return
// what Node returned.
func TestIntlCases(t *testing.T) {
	e := testEngine(t)
	for _, c := range loadCorpus(t, "intl_cases.json") {
		t.Run(c.Name, func(t *testing.T) {
			o := mustRun(t, e, c.Src)
			require.Empty(t, o.Kind, o.Message)
			var got string
			require.NoError(t, json.Unmarshal(o.Value, &got))
			requireSameLines(t, c.Want, got)
		})
	}
}

// requireSameLines compares a case's lines one by one, reporting the first
// few that differ rather than the whole text.
func requireSameLines(t *testing.T, want, got string) {
	t.Helper()
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	require.Len(t, g, len(w), got)
	bad := 0
	for i := range w {
		if w[i] != g[i] && bad < 4 {
			bad++
			at := 0
			for at < len(w[i]) && at < len(g[i]) && w[i][at] == g[i][at] {
				at++
			}
			from := max(0, at-80)
			t.Errorf("line %d, from byte %d:\nwant %s\ngot  %s", i+1, from, w[i][from:min(len(w[i]), at+80)], g[i][from:min(len(g[i]), at+80)])
		}
	}
}

// TestIntlCasesMatchNode checks that the corpus's wants are what the
// installed Node returns, in the time zone runs have (UTC), so that the
// corpus keeps comparing with Node.
func TestIntlCasesMatchNode(t *testing.T) {
	requireCorpusMatchesNode(t, loadCorpus(t, "intl_cases.json"), "TZ=UTC")
}

// The messages coderun words itself: what Node, with every locale, cannot
// share.
func TestIntlErrors(t *testing.T) {
	e := testEngine(t)
	for _, c := range []struct{ name, program, want string }{
		{"locale", `try { new Intl.NumberFormat("de-DE") } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Intl.NumberFormat: coderun's Intl supports only the locales \"en\", \"en-US\" and \"en-GB\" (the default is \"en-US\"), without Unicode extensions; got \"de-DE\""]`},
		{"extension", `try { (1).toLocaleString("en-US-u-nu-arab") } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Intl.NumberFormat: coderun's Intl supports only the locales \"en\", \"en-US\" and \"en-GB\" (the default is \"en-US\"), without Unicode extensions; got \"en-US-u-nu-arab\""]`},
		{"numbering system", `try { new Intl.NumberFormat("en", { numberingSystem: "arab" }) } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Intl.NumberFormat: coderun's Intl supports only numberingSystem \"latn\"; got \"arab\""]`},
		{"compound unit", `try { new Intl.NumberFormat("en", { style: "unit", unit: "byte-per-second" }) } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Intl.NumberFormat: coderun's Intl formats the simple units of ECMA-402 and kilometer-per-hour, mile-per-hour, meter-per-second, liter-per-kilometer and mile-per-gallon; got 'byte-per-second'"]`},
		{"option value", `try { new Intl.NumberFormat("en", { style: "money" }) } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Value money out of range for Intl.NumberFormat options property style (it takes \"decimal\", \"percent\", \"currency\", \"unit\")"]`},
		{"long values are cut in messages", `try { new Intl.DateTimeFormat("en", { timeZone: "x".repeat(1e6) }) } catch (e) { return [e.name, e.message.length < 300] }`,
			`["RangeError", true]`},
		{"supported values", `const v = (k) => Intl.supportedValuesOf(k); const tz = v("timeZone");
			return [v("calendar"), v("collation"), v("numberingSystem"), v("currency").length, v("currency").includes("EUR"), v("unit").length,
				tz.length > 400, tz.includes("America/New_York"), tz.includes("Asia/Calcutta"), tz.includes("UTC")]`,
			`[["gregory"], [], ["latn"], 162, true, 45, true, true, true, false]`},
		{"supported locales", `return Intl.NumberFormat.supportedLocalesOf(["fr", "en-gb", "EN", "de"])`, `["en-GB", "en"]`},
		{"first locale decides", `try { new Intl.ListFormat(["fr", "en"]) } catch (e) { return e.name }`, `"RangeError"`},
		{"time zone", `try { new Intl.DateTimeFormat("en", { timeZone: "Mars/Olympus" }) } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Invalid time zone specified: Mars/Olympus (Intl.DateTimeFormat takes \"UTC\" and the IANA time zones' names, such as \"America/New_York\")"]`},
		{"dayPeriod", `try { new Date(0).toLocaleTimeString("en", { dayPeriod: "long" }) } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Date.prototype.toLocaleString: coderun's Intl does not support the option dayPeriod; a 12-hour clock shows AM and PM"]`},
		{"calendar", `try { new Intl.DateTimeFormat("en", { calendar: "japanese" }) } catch (e) { return [e.name, e.message] }`,
			`["RangeError", "Intl.DateTimeFormat: coderun's Intl supports only calendar \"gregory\"; got \"japanese\""]`},
		{"long strings compare in little memory", `const s = "a".repeat(2 ** 22); return [s.localeCompare(s + "b"), (s + "b").localeCompare(s + "B"), s.slice(0, 2 ** 16).localeCompare("A" + s.slice(1, 2 ** 16), "en", { sensitivity: "base" })]`,
			`[-1, -1, 0]`},
		{"runs are in UTC", `return [new Date(0).toLocaleString(), Intl.DateTimeFormat().resolvedOptions().timeZone]`, `["1/1/1970, 12:00:00 AM", "UTC"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := mustRun(t, e, c.program)
			require.Empty(t, o.Kind, o.Message)
			require.JSONEq(t, c.want, string(o.Value))
		})
	}
}

// A run that does not use Intl compiles none of its groups, even when it
// calls the built-ins Intl backs with other arguments; toLocaleString on a
// number compiles the Intl group only; every run of a program spends the
// same fuel.
func TestIntlLazy(t *testing.T) {
	e := testEngine(t)
	o := mustRun(t, e, `return [typeof Object.getOwnPropertyDescriptor(globalThis, "Intl").get, "abc".toUpperCase(), String(1.5)]`)
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, `["function", "ABC", "1.5"]`, string(o.Value))
	for g := range webGroups {
		require.Nil(t, e.web.code[g], "group %d", g)
	}
	o = mustRun(t, e, `return (1234.5).toLocaleString()`)
	require.JSONEq(t, `"1,234.5"`, string(o.Value))
	intl, more := webGroupOf(t, "web/intl.js"), webGroupOf(t, "web/intl_more.js")
	require.NotNil(t, e.web.code[intl])
	require.Nil(t, e.web.code[more], "toLocaleString compiled ListFormat's group")
	const program = `return (1234.5).toLocaleString() + " " + new Intl.ListFormat().format(["a", "b"]) + " " +
		new Date(0).toLocaleString("en", { timeZone: "Asia/Tokyo" }) + " " + "a".localeCompare("B")`
	first := mustRun(t, e, program)
	require.Empty(t, first.Kind, first.Message)
	require.JSONEq(t, `"1,234.5 a and b 1/1/1970, 9:00:00 AM -1"`, string(first.Value))
	require.NotNil(t, e.web.code[more])
	require.NotNil(t, e.web.code[webGroupOf(t, "web/intl_date.js")])
	second := mustRun(t, e, program)
	require.Equal(t, first.FuelUsed, second.FuelUsed)
}

// The host checks OpTimeZone's operands: a name that is not a zone's, or a
// time that is not a Date's, gets undefined; a zone's offset follows its
// rules at the instant asked for.
func TestZoneOffsetOperands(t *testing.T) {
	e := testEngine(t)
	o := mustRun(t, e, `const h = (...a) => { try { return new Intl.DateTimeFormat("en", { timeZone: a[0] }).format(a[1]) } catch (e) { return e.name } };
		return [h("America/New_York", Date.UTC(2024, 0, 1, 12)), h("America/New_York", Date.UTC(2024, 6, 1, 12)), h("Mars/Olympus", 0), h("../etc/passwd", 0)]`)
	require.Empty(t, o.Kind, o.Message)
	require.JSONEq(t, `["1/1/2024", "7/1/2024", "RangeError", "RangeError"]`, string(o.Value))
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"America/New_York", true}, {"Etc/GMT+5", true}, {"America/Port-au-Prince", true}, {"", false}, {"/etc/passwd", false},
		{"../x", false}, {"a..b", false}, {"Europe/London\x00", false}, {"Zone name with spaces", false}, {strings.Repeat("A", maxZoneName+1), false},
	} {
		require.Equal(t, c.ok, validZoneName([]byte(c.name)), c.name)
	}
	var z zoneCache
	require.NotNil(t, z.location("Asia/Tokyo"))
	require.Nil(t, z.location("Not/AZone"))
	for i := range maxZonesCached + 10 {
		z.location(fmt.Sprintf("Etc/GMT+%d", i%13))
		z.location(fmt.Sprintf("No/Zone%d", i))
	}
	require.LessOrEqual(t, len(z.zones), maxZonesCached, "the cache is bounded")
}

// webGroupOf returns the index of a group's file in webGroups.
func webGroupOf(t *testing.T, file string) int {
	t.Helper()
	for g, f := range webGroups {
		if f == file {
			return g
		}
	}
	t.Fatalf("%s is not in webGroups", file)
	return -1
}

// The prelude finds Intl's other groups after its own: webGroups must list
// them so (TestIntlLazy checks that "Intl" loads web/intl.js).
func TestIntlGroupsInOrder(t *testing.T) {
	intl := webGroupOf(t, "web/intl.js")
	require.Equal(t, intl+1, webGroupOf(t, "web/intl_more.js"))
	require.Equal(t, intl+2, webGroupOf(t, "web/intl_date.js"))
}
