package transpile

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

// The reading of a "/" after "}", "of", "yield" or "await".
const (
	readsRegex   = "regex"
	readsDivide  = "divide"
	readsRefused = "refused" // the checker cannot tell and refuses the program
	readsError   = "error"   // esbuild refuses the program
)

// slashCases hold one "/mk/g" each, right after the token in question; want is how esbuild reads
// it (checked by TestSlashReadLikeEsbuild), or readsRefused where the checker cannot tell.
var slashCases = []struct {
	src, want string
}{
	// After a block or a declaration's body: a statement starts.
	{"if (x) {}\n/mk/g.test(s)", readsRegex},
	{"if (x) {} /mk/g.test(s)", readsRegex},
	{"{}\n/mk/g", readsRegex},
	{"{}/mk/g", readsRegex},
	{"{length: 3000}/mk/g", readsRegex}, // a block holding a label
	{"function fn() {}/mk/g", readsRegex},
	{"async function fn() {} /mk/g", readsRegex},
	{"function* fn() {} /mk/g", readsRegex},
	{"class C {}/mk/g", readsRegex},
	{"class C extends Object { m() {} }/mk/g", readsRegex},
	{"class C { static {} }/mk/g", readsRegex},
	{"switch (x) { case 1: {} /mk/g }", readsRegex},
	{"switch (x) { case a ? b : c: {} /mk/g }", readsRegex},
	{"switch (x) { default: {} /mk/g }", readsRegex},
	{"switch (x) {} /mk/g", readsRegex},
	{"lbl: {} /mk/g", readsRegex},
	{"lbl: for (;;) {} /mk/g", readsRegex},
	{"try {} finally {} /mk/g", readsRegex},
	{"try {} catch (e) {} /mk/g", readsRegex},
	{"for (;;) {} /mk/g", readsRegex},
	{"while (x) {} /mk/g", readsRegex},
	{"if (x) {} else {} /mk/g", readsRegex},
	{"if (x) {} else if (y) {} /mk/g", readsRegex},
	{"const f = () => {}\n/mk/g", readsRegex},
	{"const f = async (a) => { await /mk/g }", readsRegex},
	{"x = function () { if (a) {} /mk/g }", readsRegex},
	{"class A { m() { if (a) {} /mk/g } }", readsRegex},
	{"x = a\nfunction f() {} /mk/g", readsRegex},
	{"x = a\n{} /mk/g", readsRegex},
	{"x = {}\n{} /mk/g", readsRegex},
	{"return\n{}\n/mk/g", readsRegex},
	{"for (const k in {}) {} /mk/g", readsRegex},
	// After an object literal or a function or class expression: the expression goes on.
	{"const f = function () {} /mk/g", readsDivide},
	{"x = function () {}\n/mk/g", readsDivide},
	{"x = function* () {} /mk/g", readsDivide},
	{"x = async function () {} /mk/g", readsDivide},
	{"x = {} /mk/g", readsDivide},
	{"x = {}\n/mk/g", readsDivide},
	{"x = {a: 1} /mk/g", readsDivide},
	{"x = { a: {} /mk/g }", readsDivide},
	{"x = { case: {} /mk/g }", readsDivide},
	{"x = { default: {} /mk/g }", readsDivide},
	{"x = [{} /mk/g]", readsDivide},
	{"f({a: 1} /mk/g)", readsDivide},
	{"f(function () {} /mk/g)", readsDivide},
	{"x = a ? {} /mk/g : 1", readsDivide},
	{"x = a ? b : {} /mk/g", readsDivide},
	{"x = class {} /mk/g", readsDivide},
	{"x = class { static {} } /mk/g", readsDivide},
	{"x = class extends (function () {}) {} /mk/g", readsDivide},
	{"x = class extends function () {} {} /mk/g", readsDivide},
	{"x = new class {} /mk/g", readsDivide},
	{"x = !function () {} /mk/g", readsDivide},
	{"x = typeof function () {} /mk/g", readsDivide},
	{"return {} /mk/g", readsDivide},
	{"x = {m() {}} /mk/g", readsDivide},
	{"x = { async *m() {} } /mk/g", readsDivide},
	{"x = { get a() { return 1 } } /mk/g", readsDivide},
	{"x = `${ {} /mk/g }`", readsDivide},
	{"for (;; {} /mk/g) break", readsDivide},
	{"if ({valueOf: function() {return 1}} /mk/g !== 1) {}", readsDivide},
	{"x = ({\n  [Symbol.toPrimitive]: function() {\n    return 2n;\n  }\n} /mk/g)", readsDivide},
	// TypeScript.
	{"function f(): {a: 1} { return {a: 1} } /mk/g", readsRegex},
	{"function f<T>(a: T): T { return a } /mk/g", readsRegex},
	{"x = function (): {a: 1} { return {a: 1} } /mk/g", readsDivide},
	{"const f = (a: number): number => { return a }\n/mk/g", readsRegex},
	{"abstract class A {} /mk/g", readsRegex},
	{"interface I { a: 1 }\n/mk/g", readsRegex},
	{"let x: {a: number} = {a: 1} /mk/g", readsDivide},
	{"x = y as {} /mk/g", readsDivide},
	{"x = y satisfies {} /mk/g", readsDivide},
	{"x = y as {}\n/mk/g", readsDivide},
	{"type T = {a: 1}\n/mk/g", readsRefused},
	{"let t: {a: 1}\n/mk/g", readsRefused},
	{"x = y as () => {} /mk/g", readsRefused},
	{"const f = (a: number): number => a /mk/g", readsDivide},
	{"x = { m(): T { return 1 }, a: b /mk/g }", readsDivide},
	{"class A { m(): T { return 1 } x = a /mk/g }", readsDivide},
	{"x = y as number /mk/g", readsDivide},
	{"let t: number = a /mk/g", readsDivide},
	{"let f: <T = A>() => T\n/mk/g", readsRefused},
	{"let t: a\n/mk/g", readsRefused},
	{"type T = a\n/mk/g", readsRefused},
	{"x = y as await /mk/g", readsRefused},
	{"x = y as void /mk/g", readsRefused},
	{"x = y as Map<A, B> /mk/g", readsRefused},
	{"x = y as T ? /mk/g : 1", readsRegex},
	{"x = A<B> /mk/g", readsRefused},
	{"x = a > /mk/g.source.length", readsRegex},
	// of, await, yield.
	{"for (const x of /mk/g.exec(s)) {}", readsRegex},
	{"for (const [a] of /mk/g.exec(s)) {}", readsRegex},
	{"for (x.y of /mk/g.exec(s)) {}", readsRegex},
	{"for (let of of /mk/g.exec(s)) {}", readsRegex},
	{"let of = 4, mk = 2, g = 1; x = of /mk/g", readsDivide},
	{"for (of /mk/g;;) {}", readsDivide},
	{"for (x of [of /mk/g]) {}", readsDivide},
	{"x = await /mk/g", readsRegex},
	{"if (a) { x = await /mk/g }", readsRegex},
	{"async function f() { return await /mk/g }", readsRegex},
	{"x = async () => { return await /mk/g }", readsRegex},
	{"function f() { var await = 6; return await /mk/g }", readsDivide},
	{"function* g() { yield /mk/g }", readsRegex},
	{"x = async () => await /mk/g", readsRefused},
	{"class A { m() { return await /mk/g } }", readsRefused},
}

// esbuildReads returns how esbuild reads the "/" of "/mk/g" in src.
func esbuildReads(t *testing.T, src string) string {
	res := api.Transform(inputHeader+src+inputFooter, api.TransformOptions{
		Loader: api.LoaderTS, Target: api.ESNext, LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return readsError
	}
	out := string(res.Code)
	switch {
	case strings.Contains(out, "/mk/g"):
		return readsRegex
	case strings.Contains(out, "/ mk / g"):
		return readsDivide
	}
	t.Fatalf("esbuild printed neither reading: %s", out)
	return ""
}

// checkerReads returns how the checker reads the "/" of "/mk/g" in src.
func checkerReads(t *testing.T, src string) string {
	at := strings.Index(src, "/mk/g")
	require.GreaterOrEqual(t, at, 0)
	if _, err := Compile(src); err != nil && strings.Contains(err.Error(), "is ambiguous (division or regular expression)") {
		return readsRefused
	}
	sc := tokenize(src)
	for i, tok := range sc.toks {
		if tok.start == at {
			if tok.kind == tkRegex {
				return readsRegex
			}
			require.True(t, sc.is(i, tkPunct, "/"), src)
			return readsDivide
		}
	}
	t.Fatalf("no token at %d", at)
	return ""
}

// TestSlashReadLikeEsbuild: the checker reads every "/" as esbuild does, or refuses the program
// where it cannot tell.
func TestSlashReadLikeEsbuild(t *testing.T) {
	for _, c := range slashCases {
		t.Run(c.src, func(t *testing.T) {
			got := checkerReads(t, c.src)
			require.Equal(t, c.want, got, "the checker's reading")
			esb := esbuildReads(t, c.src)
			if c.want != readsRefused {
				require.Equal(t, c.want, esb, "esbuild's reading")
			}
		})
	}
}

// hostileSlash returns a program in which the token before "/" is the one of src before "/mk/g"
// and where a wrong reading of that "/" would hide n nested "(" from the checker: after a
// division, "(" inside what would be a regular expression; after a regular expression, "(" after
// a quote or a backtick that would start a string or template.
func hostileSlash(src, want string, n, variant int) string {
	at := strings.Index(src, "/mk/g")
	deep := strings.Repeat("(", n) + "1" + strings.Repeat(")", n)
	switch {
	case want == readsDivide:
		return src[:at] + "/ " + deep + " /1"
	case variant == 0:
		return src[:at] + "/'/; x = " + deep + "\n"
	default:
		return src[:at] + "/`/; x = 1\n x = " + deep + "\n`"
	}
}

// TestSlashHostile: for every reading above, a program that hides 100,000 nested "(" from a
// checker that reads the "/" the other way is refused before esbuild sees it: by the nesting
// limit, or as ambiguous where the checker cannot tell. A wrong reading would let esbuild
// overflow its stack, so this runs in a child process.
func TestSlashHostile(t *testing.T) {
	if !inChild(t, "TestSlashHostile") {
		return
	}
	debug.SetMaxStack(64 << 20) // a wrong reading crashes the child
	for _, c := range slashCases {
		for variant := range 2 {
			src := hostileSlash(c.src, c.want, 100000, variant)
			t.Run(fmt.Sprint(variant, " ", c.src), func(t *testing.T) {
				var err error
				alloc := allocated(func() { _, err = Compile(src) })
				var e *Error
				require.ErrorAs(t, err, &e)
				want := fmt.Sprintf("nested more than %d levels deep", MaxNesting)
				if c.want == readsRefused {
					want = "is ambiguous (division or regular expression)"
				}
				require.Contains(t, e.Message, want)
				require.Less(t, alloc, uint64(4<<20), "refused before esbuild ran")
			})
		}
	}
}

// slashContexts and slashOperands build the programs of TestSlashDifferential: contexts nest
// around an operand that a "/" follows.
var (
	slashContexts = [][2]string{
		{"", ""}, {"x = ", ""}, {"if (a) ", ""}, {"if (a) {", "}"}, {"return ", ""}, {"lbl: ", ""},
		{"switch (x) { case 1: ", "}"}, {"switch (x) { default: ", "}"}, {"x = a ? ", " : 1"},
		{"x = a ? b : ", ""}, {"(", ")"}, {"[", "]"}, {"f(", ")"}, {"x = {a: ", "}"}, {"x = `${", "}`"},
		{"for (;;", ") ;"}, {"if (a) ; else ", ""}, {"do ", "; while (a)"}, {"x = () => ", ""},
		{"x = async () => ", ""}, {"x = () => {", "}"}, {"x = async () => {", "}"}, {"function g() {", "}"},
		{"async function g() {", "}"}, {"function* g() {", "}"}, {"x = function () {", "}"},
		{"class Q { m() {", "} }"}, {"class Q { x = ", " }"}, {"class Q { static {", "} }"},
		{"x = { m() {", "} }"}, {"x = { async m() {", "} }"}, {"x = y as ", ""}, {"let t: ", ""},
		{"type T = ", ""}, {"new ", ""}, {"!", ""}, {"x = class extends ", " {}"}, {"x = a\n", ""},
		{"for (const q of ", ") ;"}, {"for (const q in ", ") ;"}, {"let q = ", ""}, {"throw ", ""},
		{"await ", ""}, {"typeof ", ""}, {"a, ", ""}, {"x = a || ", ""}, {"try {", "} finally {}"},
		{"x = (a): T => ", ""}, {"const f = (a: number): number => {", "}"}, {"x = <T>", ""},
		{"f<T>(", ")"}, {"x = y satisfies ", ""}, {"function h(): T {", "}"}, {"x = function (): T {", "}"},
		{"for (", " of z) ;"}, {"for await (const q of ", ") ;"}, {"function* g() { yield ", "}"},
		{"x = {\n", "}"}, {"{", "}"}, {"x = [a,\n", "]"}, {"if (a) {} else {", "}"},
		{"x = function* () { x = yield ", "}"}, {"label: for (;;) {", "}"},
		{"x = y as Map<A, ", ">"}, {"let f: <T = A>() => ", ""}, {"x = y as T ? ", " : 1"},
		{"class Q { m(): T {", "} }"}, {"x = { m(): T { return 1 }, a: ", "}"},
		{"const f = (a: number): T => ", ""}, {"let t: A | ", ""}, {"x = (y as ", ")"},
	}
	slashOperands = []string{
		"{}", "{a: 1}", "function () {}", "function f() {}", "function* () {}", "async function () {}",
		"class {}", "class A {}", "class A extends B {}", "() => {}", "async () => {}", "x => {}",
		"{ if (a) {} }", "function (): {a: 1} {}", "a", "of", "await", "yield", "({})", "[]", "x.of",
		"function () {}.call()", "new class {}", "class { static {} }", "{length: 3000}", "y as {}",
		"(): T => {}", "a satisfies {}", "{} as {}", "async x => {}", "function f(): {} {}",
		"class A<T> {}", "class A implements I {}", "interface I {}", "let {a} = b", "const [c] = d",
		"x => ({})", "lbl: {}", "`${a}`", "{ m() {} }", "{ get x() { return 1 } }", "new.target",
		"function f<T extends {}>() {}", "if (a) {} else {}", "x\n{}", "async",
		"void", "A<B>", "number", "this", "null", "T[]", "typeof a", "keyof T", "(a) => b", "'s'", "1",
	}
)

// TestSlashDifferential compares the checker's reading of the "/" after an operand with
// esbuild's, in every context above (and random nestings of two or three of them): wherever
// esbuild parses the program and the checker does not refuse it, the two read alike.
func TestSlashDifferential(t *testing.T) {
	var progs []string
	for _, c := range slashContexts {
		for _, o := range slashOperands {
			for _, ws := range []string{" ", "\n", ""} {
				progs = append(progs, c[0]+o+ws+"/mk/g"+c[1])
			}
		}
	}
	seed := uint64(1)
	rnd := func(n int) int { // xorshift: deterministic
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	for range 3000 {
		o := slashOperands[rnd(len(slashOperands))] + []string{" ", "\n", ""}[rnd(3)] + "/mk/g"
		for range 2 + rnd(2) {
			c := slashContexts[rnd(len(slashContexts))]
			o = c[0] + o + c[1]
		}
		progs = append(progs, o)
	}
	var agree, refused, invalid int
	for _, src := range progs {
		esb := esbuildReading(src)
		if esb == readsError || esb == "" {
			invalid++
			continue
		}
		switch got := checkerReads(t, src); got {
		case esb:
			agree++
		case readsRefused:
			refused++
		default:
			t.Errorf("the checker reads %s, esbuild %s: %q", got, esb, src)
		}
	}
	t.Logf("%d programs: %d read alike, %d refused, %d invalid", len(progs), agree, refused, invalid)
	require.Greater(t, agree, len(progs)/4)
}

// esbuildReading is esbuildReads without the test: "" when esbuild printed neither reading.
func esbuildReading(src string) string {
	res := api.Transform(inputHeader+src+inputFooter, api.TransformOptions{
		Loader: api.LoaderTS, Target: api.ESNext, LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return readsError
	}
	switch out := string(res.Code); {
	case strings.Contains(out, "/mk/g"):
		return readsRegex
	case strings.Contains(out, "/ mk / g"):
		return readsDivide
	}
	return ""
}
