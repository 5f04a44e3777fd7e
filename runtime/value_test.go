package runtime

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// completionValues are expressions of values a program returns: plain
// ones the host reads in place, and others the guest's printer takes.
var completionValues = []string{
	`0`, `-5`, `2 ** 53`, `0.1`, `1e21`, `1e-7`, `123456.75`, `-1.5e-300`,
	`true`, `null`, `""`, `"a\"b\\c\n\t\u0001\u007f"`, `"é ü ÿ"`,
	`"😀 wide"`, `"\u2028"`,
	`{}`, `[]`, `{a: 1, b: "x", c: [1, 2, 3], d: {e: true, f: null}}`,
	`Object.assign(Object.create(null), {k: 1})`,
	`{"1": 1, b: 2, "-0": 3}`, // integer-like keys: the guest prints them
	`{"\u00e9": 1, "quote\"key": 2}`,
	`Array.from({length: 300}, (_, i) => ({id: i, name: "n" + i, ok: i % 2 === 0}))`,
	`Array.from({length: 5000}, (_, i) => i)`,
	`Array.from({length: 30000}, (_, i) => "item " + i)`, // past maxValueInPlace
	`JSON.parse("[".repeat(40) + "]".repeat(40))`,        // past the in-place depth
	`(() => { const o = {b: 1, a: 2}; delete o.b; o.b = 3; return o })()`,
	`{get g() { return 7 }, v: 1}`,
}

// The program's value is read in place by the host when it is small and
// plain, and printed by the guest otherwise; both print it as
// JSON.stringify does, which the program logs beside it.
func TestCompletionValuePrintsAsJSONStringify(t *testing.T) {
	e := testEngine(t)
	for _, expr := range completionValues {
		t.Run(expr, func(t *testing.T) {
			o := mustRun(t, e, "const v = ("+expr+")\nconsole.log(JSON.stringify(v))\nreturn v")
			require.Empty(t, o.Kind, o.Message)
			require.Len(t, o.Logs, 1)
			require.Equal(t, o.Logs[0], string(o.Value))
		})
	}
}

// A small plain value is read by the host without running the guest's
// printer, which spends fuel on every node: the same value with one wide
// string, which only the guest prints, costs several times the fuel.
func TestCompletionValueReadInPlace(t *testing.T) {
	e := testEngine(t)
	fuel := func(last string) uint64 {
		o := mustRun(t, e, `const v = Array.from({length: 300}, (_, i) => ({id: i, name: "n" + i}))
v[299].name = `+last+`
return v`)
		require.Empty(t, o.Kind, o.Message)
		return o.FuelUsed
	}
	inPlace, printed := fuel(`"last"`), fuel(`"😀"`)
	require.Less(t, 4*inPlace, printed, "fuel in place %d, printed by the guest %d", inPlace, printed)
}

// Up to maxValueInPlace bytes of text, the host reads the value in place
// and the guest spends no fuel printing it; one byte past it the guest's
// printer does the work, and spends fuel on every character.
func TestCompletionValueInPlaceBound(t *testing.T) {
	e := testEngine(t)
	fuel := func(n int) uint64 {
		o := mustRun(t, e, fmt.Sprintf(`return "x".repeat(%d)`, n))
		require.Empty(t, o.Kind, o.Message)
		require.Len(t, o.Value, n+2)
		return o.FuelUsed
	}
	// Building the string costs about a unit per character either way.
	under, over := fuel(maxValueInPlace-2), fuel(maxValueInPlace-1)
	require.Greater(t, over, under+maxValueInPlace/2, "fuel at the bound %d, one byte past it %d", under, over)
}
