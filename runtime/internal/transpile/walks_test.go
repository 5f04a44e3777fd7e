package transpile

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// refMatchBrace is matchBrace as it was before the pairs were computed once: a walk from j
// counting braces. It is the reference TestWalksMatchReference compares matchBrace with.
func refMatchBrace(s *erasableCheck, j int) (int, bool) {
	depth := 0
	for k := j; k < len(s.toks); k++ {
		if s.toks[k].kind != tkPunct {
			continue
		}
		switch s.text(k) {
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return k, true
			}
		}
	}
	return 0, false
}

// refParameterProperty is parameterProperty as it was before it stepped over brackets: a walk
// counting every bracket to the end of the parameter list (or of the program).
func refParameterProperty(s *erasableCheck, i int) *violation {
	toks := s.toks
	if !s.is(i+1, tkPunct, "(") {
		return nil
	}
	depth, nested, angle := 0, 0, 0
	inType, paramStart := false, false
	for k := i + 1; k < len(toks); k++ {
		t := toks[k]
		top := depth == 1 && nested == 0
		if t.kind == tkIdent && top && paramStart {
			paramStart = false
			if isParamModifier(s.text(k)) && k+1 < len(toks) &&
				(toks[k+1].kind == tkIdent || s.is(k+1, tkPunct, "{") || s.is(k+1, tkPunct, "[")) {
				return &violation{t.start, "TypeScript constructor parameter property \"" + s.text(k) + " " + s.text(k+1) +
					"\"" + notErasable + "declare the field in the class body and assign it in the constructor"}
			}
			continue
		}
		if t.kind != tkPunct {
			paramStart = false
			continue
		}
		switch p := s.text(k); p {
		case "(":
			depth++
			if depth == 1 {
				paramStart = true
				continue
			}
		case ")":
			depth--
			if depth == 0 {
				return nil
			}
		case "{", "[":
			nested++
		case "}", "]":
			nested--
		case ",":
			if top && angle == 0 {
				paramStart, inType = true, false
				continue
			}
		case ":":
			if top && angle == 0 {
				inType = true
			}
		case "=":
			if top && angle == 0 {
				inType = false
			}
		case "<":
			if inType {
				angle++
			}
		case ">", ">>", ">>>":
			if inType {
				angle = max(0, angle-len(p))
			}
		case "@":
			continue
		}
		paramStart = false
	}
	return nil
}

// balanced reports whether the tokenizer paired every bracket of the program it read whole.
func balanced(s *tokenList, b bounds) bool {
	return s.unmatched < 0 && len(s.open) == 0 && b.err == nil
}

// walkGen generates programs made of the tokens the two walks look at: brackets, template
// substitutions, constructors, parameter modifiers, type annotations with "<" and ">", and the
// heads of ambient blocks and type imports.
type walkGen struct{ r *rand.Rand }

var walkAtoms = []string{
	"constructor", "public", "private", "protected", "readonly", "override", "x", "a", "T", ":", ",",
	"=", "<", ">", ">>", ">>>", ">=", "=>", "@d", "1", "'s'", ";", "\n", "...", "?", ".",
	"declare global", "declare namespace N", "declare module 'm'", "import type X from 'm' with",
	"import type {A} from 'm'", "namespace", "type",
}

// balanced returns a program whose brackets balance, nested at most depth deep.
func (g walkGen) balanced(depth int) string {
	var b strings.Builder
	for range g.r.IntN(8) {
		b.WriteByte(" \n"[g.r.IntN(2)])
		if depth > 0 && g.r.IntN(3) == 0 {
			inner := g.balanced(depth - 1)
			switch g.r.IntN(5) {
			case 0:
				b.WriteString("(" + inner + ")")
			case 1:
				b.WriteString("[" + inner + "]")
			case 2:
				b.WriteString("{" + inner + "}")
			case 3:
				b.WriteString("`t${" + inner + "}u`")
			default:
				b.WriteString("constructor(" + inner + ")")
			}
			continue
		}
		b.WriteString(walkAtoms[g.r.IntN(len(walkAtoms))])
	}
	return b.String()
}

// unbalanced returns a balanced program with a few brackets dropped or added.
func (g walkGen) unbalanced(depth int) string {
	src := []byte(g.balanced(depth))
	for range 1 + g.r.IntN(3) {
		at := g.r.IntN(len(src) + 1)
		if g.r.IntN(2) == 0 && at < len(src) && strings.IndexByte("()[]{}", src[at]) >= 0 {
			src = append(src[:at], src[at+1:]...)
			continue
		}
		src = append(src[:at], append([]byte{"()[]{}"[g.r.IntN(6)]}, src[at:]...)...)
	}
	return string(src)
}

// walkCorpus returns the programs TestWalksMatchReference compares the walks on: the seed
// corpus of FuzzCompile, the realistic program, the slash cases, the shapes, and generated
// programs (the first half balanced).
func walkCorpus(t *testing.T) (programs []string, generated int) {
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzCompile", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, lit, ok := strings.Cut(string(data), "string(")
		require.True(t, ok, f)
		src, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
		require.NoError(t, err, f)
		programs = append(programs, src)
	}
	realistic, err := os.ReadFile(filepath.Join("testdata", "realistic.ts"))
	require.NoError(t, err)
	programs = append(programs, string(realistic))
	for _, c := range slashCases {
		programs = append(programs, c.src)
	}
	// Unbalanced programs where the old walk, counting brackets, came back to the list's level
	// after a closing bracket that closes nothing.
	programs = append(programs, "class C { constructor(a ] [ , public x) {} }", "class C { constructor(a } { , public x) {} }",
		"constructor(a: T] [, readonly [b]) {}")
	for _, s := range worstShapes {
		programs = append(programs, s.build(4<<10))
	}
	g := walkGen{rand.New(rand.NewPCG(13, 1))}
	const n = 4000
	for k := range n {
		if k < n/2 {
			programs = append(programs, g.balanced(4))
		} else {
			programs = append(programs, g.unbalanced(4))
		}
	}
	return programs, n
}

// TestWalksMatchReference: matchBrace answers exactly what the walk it replaced did, for every
// "{" of every program. parameterProperty finds exactly what its old walk did for every
// "constructor" of every program whose brackets balance; where they do not balance and the two
// differ, the program is refused anyway.
func TestWalksMatchReference(t *testing.T) {
	programs, generated := walkCorpus(t)
	var braces, constructors, balancedGenerated, violations, differing int
	for n, src := range programs {
		l, b := tokenizeBounded(src, nil, defaultWorkLimits)
		s := newErasableCheck(l, nil)
		if n >= len(programs)-generated && n < len(programs)-generated/2 {
			require.True(t, balanced(l, b), "a generated balanced program reads as unbalanced: %q", src)
			balancedGenerated++
		}
		for i := range s.toks {
			switch {
			case s.is(i, tkPunct, "{"):
				braces++
				wantK, wantOK := refMatchBrace(s, i)
				k, ok := s.matchBrace(i)
				require.Equal(t, wantOK, ok, "token %d of %q", i, src)
				require.Equal(t, wantK, k, "token %d of %q", i, src)
			case s.is(i, tkIdent, "constructor"):
				constructors++
				want, got := refParameterProperty(s, i), s.parameterProperty(i)
				if want != nil {
					violations++
				}
				if balanced(l, b) {
					require.Equal(t, want, got, "token %d of %q", i, src)
				} else if (want == nil) != (got == nil) || want != nil && *want != *got {
					differing++
					_, err := Compile(src)
					require.Error(t, err, "the walks differ on %q, which compiles", src)
				}
			}
		}
	}
	t.Logf("%d programs: %d braces, %d constructors (%d with a violation), %d differences in unbalanced programs",
		len(programs), braces, constructors, violations, differing)
	require.Equal(t, generated/2, balancedGenerated)
	require.GreaterOrEqual(t, differing, 3, "the corpus has unbalanced programs where the walks differ")
	require.Greater(t, braces, 10000)
	require.Greater(t, constructors, 1000)
	require.Greater(t, violations, 200, "the corpus finds parameter properties")
}

// TestAngleEffect: composing two effects gives what applying them in turn gives.
func TestAngleEffect(t *testing.T) {
	effects := []angleEffect{{}, {shift: 1}, {shift: -1}, {shift: -3}, {floor: 2, shift: -1}, {floor: 1, shift: 2}}
	for _, e := range effects {
		for _, g := range effects {
			for n := range 6 {
				require.Equal(t, g.apply(e.apply(n)), e.then(g).apply(n), "%v then %v at %d", e, g, n)
			}
		}
	}
}

func TestTokenSize(t *testing.T) {
	require.Equal(t, uintptr(32), unsafe.Sizeof(token{}))
}

// countingContext counts the calls of Err, each a look of the poller: one per pollEvery steps.
type countingContext struct {
	context.Context
	calls int
}

func (c *countingContext) Err() error {
	c.calls++
	return nil
}

// TestWalksLinear: on the shapes where many openers are left open (or nest) before a long
// program, the check pass takes a number of steps linear in the program's tokens; each opener
// used to cost a walk to the end of the program (or of its bracket): 240 or 490 times as many.
func TestWalksLinear(t *testing.T) {
	for _, name := range []string{"unclosed declare global", "unclosed import attrs", "unclosed constructors",
		"nested constructors"} {
		t.Run(name, func(t *testing.T) {
			var src string
			for _, s := range worstShapes {
				if s.name == name {
					src = s.build(1 << 20)
				}
			}
			require.NotEmpty(t, src)
			ctx := &countingContext{Context: context.Background()}
			looks := map[scanPass]int{}
			// Limits on compile work for a larger program size, which these shapes exceed at
			// 1 MiB: the passes under test run on every token.
			c := compilation{poll: newPoller(ctx), src: src, limits: workLimitsFor(1 << 30),
				opts: Options{onScanPass: func(p scanPass) { looks[p] = ctx.calls }}}
			_, _, err := c.scan()
			require.NoError(t, err)
			tokens := len(c.tokens.toks)
			require.Greater(t, tokens, 500_000)
			// Each pass looks once as it starts; the check pass looks once per pollEvery steps.
			// Its steps here: the loop over the tokens, and one walk over them (the parameter
			// list of the outermost constructor, which holds the rest of the program) or the
			// pass pairing the braces (matchBrace).
			checkLooks := looks[passDiagnostics] - looks[passCheck] - 1
			require.LessOrEqual(t, checkLooks, 3*tokens/pollEvery+1, "steps of the check pass for %d tokens", tokens)
			t.Logf("%d tokens, the check pass looked %d times (%d steps at most)", tokens, checkLooks, (checkLooks+1)*pollEvery)
		})
	}
}

// refFnContext is fnContext as it was before each frame kept the answer of the frames around it:
// a walk down the stack of open frames.
func refFnContext(s *tokenizer) fnFlags {
	for k := len(s.stack); k >= 0; k-- {
		f := &s.top
		if k > 0 {
			f = &s.stack[k-1]
		}
		if f.st.arrow {
			return 0
		}
		switch f.ch {
		case 0:
			return f.fn
		case '(':
			if f.role == prParams {
				return 0
			}
		case '{':
			if f.fn&fnBoundary != 0 {
				return f.fn
			}
			if f.kind != bkStmts && f.kind != bkObject {
				return 0
			}
		}
	}
	return 0
}

// TestStackWalksMatchReference: what the tokenizer knows of the function around a token
// (fnContext, asked at every "await", "yield" and opening bracket) and the function frame a var
// is hoisted to (diagChecker's dframe.fn) equal what walking down the stack of open frames
// finds, on every program of the corpus and programs where they matter.
func TestStackWalksMatchReference(t *testing.T) {
	programs, _ := walkCorpus(t)
	g := walkGen{rand.New(rand.NewPCG(13, 2))}
	words := []string{"await", "yield", "var v", "let l", "function", "function*", "async", "=>", "class",
		"x", "(", ")", "{", "}", "[", "]", ",", ";", "\n", "a:", "`${", "}`", "*", "=", "for", "if"}
	for range 3000 {
		var b strings.Builder
		for range g.r.IntN(40) {
			b.WriteString(words[g.r.IntN(len(words))] + " ")
		}
		programs = append(programs, b.String())
	}
	var asked, declared int
	for _, src := range programs {
		s := newTokenizer(src, nil)
		s.onFnContext = func(got fnFlags) {
			asked++
			if want := refFnContext(s); got != want {
				t.Fatalf("fnContext = %b, the walk finds %b, at byte %d of %q", got, want, s.pos, src)
			}
		}
		s.run(nil)
		s.onFnContext = nil
		// A frame's fn never changes once pushed: checking the innermost one after each token
		// checks each frame as it opens.
		c := newDiagChecker(&s.tokenList, nil, 0)
		for i := range s.toks {
			c.step(i)
			k := len(c.stack) - 1
			want := k
			for want > 0 && c.stack[want].kind != fkFunction {
				want--
			}
			if c.stack[k].fn != want {
				t.Fatalf("frame %d after token %d: fn %d, the walk finds %d, in %q", k, i, c.stack[k].fn, want, src)
			}
			declared++
		}
	}
	t.Logf("%d programs: fnContext asked %d times, %d frames checked", len(programs), asked, declared)
	require.Greater(t, declared, 100000)
	require.Greater(t, asked, 10000)
}
