package transpile

import (
	"fmt"
	"math/rand/v2"
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
	{"let a\n/mk/g", readsRegex},
	{"let {a}\n/mk/g", readsRegex},
	{"let [a]\n/mk/g", readsRegex},
	{"let a = 1, b\n/mk/g", readsRegex},
	{"x = y as A<B>\nfunction f() {} /mk/g", readsRegex},
	{"let t: A<B>\n{} /mk/g", readsRegex},
	{"type T = void\n\nclass A {} /mk/g", readsRegex},
	{"class A { m(): () => void { lbl: {} /mk/g } }", readsRegex},
	{"declare function d(): void\n {a: 1} /mk/g", readsRegex},
	{"declare function d(): Map<() => {a: 1}, T>\n{} /mk/g", readsRegex},
	{"let t: void = class { m() {} }\nof, a satisfies {}/mk/g", readsDivide},
	{"x = new class extends /r/! {} < x\n{} /mk/g", readsRegex},
	{"x = { a: async (x): T => 1, b: c /mk/g }", readsDivide},
	{"x = f(1) > g(2)\nclass A {} /mk/g", readsRegex},
	{"x = function ()\n{} /mk/g", readsDivide},
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
	r := esbuildReading(src)
	require.NotEmpty(t, r, "esbuild's reading of %q", src)
	return r
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
// esbuild's, in every context above and in random programs (slashProgram): wherever esbuild
// reads the "/" (also in programs it refuses after parsing them) and the checker does not refuse
// the program, the two read alike.
func TestSlashDifferential(t *testing.T) {
	var progs []string
	for _, c := range slashContexts {
		for _, o := range slashOperands {
			for _, ws := range []string{" ", "\n"} {
				progs = append(progs, c[0]+o+ws+"/mk/g"+c[1])
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2)) // deterministic
	total := 12000
	if raceEnabled || testing.Short() {
		total = len(progs) + 1000
	}
	for len(progs) < total {
		if src, ok := slashProgram(r); ok {
			progs = append(progs, src)
		}
	}
	var agree, refused, unknown int
	for _, src := range progs {
		esb := esbuildReading(src)
		if esb == "" {
			unknown++
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
	t.Logf("%d programs: %d read alike, %d refused, %d not read by esbuild", len(progs), agree, refused, unknown)
	require.Greater(t, agree, len(progs)/3)
}

// esbuildReading returns how esbuild reads the "/" of "/mk/g" in src, or "" if it cannot be
// told. For a program esbuild compiles, its output shows the reading; for one it refuses, its
// lexer's errors do: "/'/g" in its place leaves a string unterminated after a division, and
// "/mk" and a line break a regular expression unterminated.
func esbuildReading(src string) string {
	res := esbuildTransform(src)
	if len(res.Errors) == 0 {
		switch out := string(res.Code); {
		case strings.Contains(out, "/mk/g"):
			return readsRegex
		case strings.Contains(out, "/ mk / g"):
			return readsDivide
		}
		return ""
	}
	at := strings.Index(src, "/mk/g")
	rest, _, _ := strings.Cut(src[at+len("/mk/g"):], "\n")
	if strings.ContainsAny(rest, "'`") {
		return ""
	}
	line := strings.Count(src[:at], "\n") + 2 // the wrapper's header is line 1
	div := lexError(src[:at]+"/'/g"+src[at+len("/mk/g"):], "Unterminated string literal", line)
	re := lexError(src[:at]+"/mk\n"+src[at+len("/mk/g"):], "Unterminated regular expression", line)
	switch {
	case div && !re:
		return readsDivide
	case re && !div:
		return readsRegex
	}
	return ""
}

func esbuildTransform(src string) api.TransformResult {
	return api.Transform(inputHeader+src+inputFooter, api.TransformOptions{
		Loader: api.LoaderTS, Target: api.ESNext, LogLevel: api.LogLevelSilent,
	})
}

// lexError reports whether esbuild refuses src with an error containing msg on the given line
// of the wrapped program.
func lexError(src, msg string, line int) bool {
	for _, e := range esbuildTransform(src).Errors {
		if strings.Contains(e.Text, msg) && e.Location != nil && e.Location.Line == line {
			return true
		}
	}
	return false
}

// slashProgram returns a random program holding "/mk/g" once, right after an operand; ok is
// false when the generator placed it nowhere or more than once.
func slashProgram(r *rand.Rand) (src string, ok bool) {
	g := &slashGen{r: r}
	src = g.stmts(4)
	return src, g.marked && strings.Count(src, "/mk/g") == 1
}

// slashGen generates statements, expressions and types mixing JavaScript and TypeScript
// constructs around "{", "}", "<", ">", "of", "await" and "yield".
type slashGen struct {
	r      *rand.Rand
	marked bool
}

func (g *slashGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *slashGen) ws() string { return g.pick(" ", " ", "\n", "") }

func (g *slashGen) typ(d int) string {
	if d > 0 {
		switch g.r.IntN(8) {
		case 0:
			return "{a: " + g.typ(d-1) + "}"
		case 1:
			return "() => " + g.typ(d-1)
		case 2:
			return g.typ(d-1) + " | " + g.typ(d-1)
		case 3:
			return "Map<" + g.typ(d-1) + ", " + g.typ(d-1) + ">"
		case 4:
			return "keyof " + g.typ(d-1)
		case 5:
			return g.typ(d-1) + "[]"
		}
	}
	return g.pick("number", "T", "void", "A<B>", "string[]")
}

func (g *slashGen) expr(d int) string {
	if !g.marked && g.r.IntN(6) == 0 {
		g.marked = true
		return g.pick(slashOperands...) + g.ws() + "/mk/g"
	}
	if d <= 0 {
		return g.pick("a", "1", "'s'", "x.of", "of", "this", "/r/")
	}
	e := func() string { return g.expr(d - 1) }
	switch g.r.IntN(34) {
	case 26:
		return e() + "!"
	case 27:
		return "a?.b(" + e() + ")"
	case 28:
		return "<T>" + e()
	case 29:
		return "{ async *m() {" + g.stmts(d-1) + "}, get g() {" + g.stmts(d-1) + "} }"
	case 30:
		return "new class extends " + e() + " {}"
	case 31:
		return "function* () { yield " + e() + " }"
	case 32:
		return "async " + g.pick("x", "(x)") + " => " + e()
	case 33:
		return "x => " + e()
	case 0:
		return "{a: " + e() + "}"
	case 1:
		return "[" + e() + "]"
	case 2:
		return "(" + e() + ")"
	case 3:
		return "function () {" + g.stmts(d-1) + "}"
	case 4:
		return "class { m() {" + g.stmts(d-1) + "} }"
	case 5:
		return "() => " + e()
	case 6:
		return "async () => {" + g.stmts(d-1) + "}"
	case 7:
		return "x => {" + g.stmts(d-1) + "}"
	case 8:
		return e() + " + " + e()
	case 9:
		return e() + " ? " + e() + " : " + e()
	case 10:
		return e() + " as " + g.typ(d-1)
	case 11:
		return "f<" + g.typ(d-1) + ">(" + e() + ")"
	case 12:
		return "new X(" + e() + ")"
	case 13:
		return "await " + e()
	case 14:
		return "typeof " + e()
	case 15:
		return "!" + e()
	case 16:
		return "`a${" + e() + "}b`"
	case 17:
		return e() + " satisfies " + g.typ(d-1)
	case 18:
		return e() + " < " + e()
	case 19:
		return e() + " > " + e()
	case 20:
		return "(a: " + g.typ(d-1) + "): " + g.typ(d-1) + " => " + e()
	case 21:
		return "async function* () {" + g.stmts(d-1) + "}"
	case 22:
		return "{ m(): " + g.typ(d-1) + " {" + g.stmts(d-1) + "}, b: " + e() + " }"
	case 23:
		return e() + ", " + e()
	case 24:
		return "class extends " + e() + " {}"
	}
	return e() + g.ws() + g.expr(0)
}

func (g *slashGen) stmts(d int) string {
	var b strings.Builder
	for range g.r.IntN(3) {
		b.WriteString(g.stmt(d))
		b.WriteString(g.pick(";", "\n", "\n", " "))
	}
	return b.String()
}

func (g *slashGen) stmt(d int) string {
	if d <= 0 {
		return g.expr(0)
	}
	e := func() string { return g.expr(d - 1) }
	switch g.r.IntN(30) {
	case 22:
		return "do " + g.stmt(d-1) + "; while (" + e() + ")"
	case 23:
		return "for (let [q] of " + e() + ") {" + g.stmts(d-1) + "}"
	case 24:
		return "switch (x) { default: {" + g.stmts(d-1) + "} }"
	case 25:
		return "class A extends " + e() + " { static {" + g.stmts(d-1) + "} get g() {" + g.stmts(d-1) + "} }"
	case 26:
		return "abstract class C<T> implements I {" + " m(): " + g.typ(d-1) + " {" + g.stmts(d-1) + "} }"
	case 27:
		return "declare function d(): " + g.typ(d-1) + "\n"
	case 28:
		return "function* g() {" + g.stmts(d-1) + " yield\n" + e() + "}"
	case 29:
		return "for (" + g.pick("x", "const [q]", "q.of") + " of " + e() + ") " + g.stmt(d-1)
	case 0:
		return "if (" + e() + ") " + g.stmt(d-1)
	case 1:
		return "if (" + e() + ") {" + g.stmts(d-1) + "} else {" + g.stmts(d-1) + "}"
	case 2:
		return "{" + g.stmts(d-1) + "}"
	case 3:
		return "lbl: " + g.stmt(d-1)
	case 4:
		return "function f() {" + g.stmts(d-1) + "}"
	case 5:
		return "class A { m() {" + g.stmts(d-1) + "} x = " + e() + " }"
	case 6:
		return g.pick("let", "var", "const") + " t: " + g.typ(d-1) + " = " + e()
	case 7:
		return g.pick("let t: ", "let t, u: ", "var t = 1, {u}: ") + g.typ(d-1) + "\n"
	case 8:
		return "type T = " + g.typ(d-1) + "\n"
	case 9:
		return "for (const q of " + e() + ") " + g.stmt(d-1)
	case 10:
		return "switch (" + e() + ") { case " + e() + ": " + g.stmts(d-1) + " }"
	case 11:
		return "return " + e()
	case 12:
		return "try {" + g.stmts(d-1) + "} catch (e) {" + g.stmts(d-1) + "}"
	case 13:
		return "async function g() {" + g.stmts(d-1) + "}"
	case 14:
		return "function* g() { yield " + e() + "}"
	case 15:
		return "interface I { a: " + g.typ(d-1) + " }"
	case 16:
		return "function h(a: " + g.typ(d-1) + "): " + g.typ(d-1) + " {" + g.stmts(d-1) + "}"
	case 17:
		return "x = " + e()
	case 18:
		return g.pick("let ", "var ") + g.pick("t", "[t]", "{t}", "t = 1, u")
	}
	return g.expr(d)
}
