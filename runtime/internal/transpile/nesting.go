package transpile

import (
	"fmt"
	"strings"
)

// This file holds the pass that keeps esbuild's work on a program bounded. esbuild's parser,
// visitor and printer are recursive: every level of nesting in a program costs a few kilobytes of
// Go stack, and a program nested deeply enough overflows the goroutine's stack, which kills the
// whole process (a Go stack overflow cannot be recovered). Some TypeScript constructs also make
// esbuild parse the same text again on backtracking, which costs time quadratic or exponential in
// their nesting. Before esbuild sees a program, the nesting pass reads each token as soon as the
// tokenizer makes it, and rejects a program whose nesting could exceed MaxNesting levels: the
// tokenizer stops there (see tokenizeBounded).
//
// The pass over-approximates the recursion depth of esbuild at every token: the number of
// brackets open, plus, for each open bracket (and the top level), the tokens since the start of
// the current statement or list element that make esbuild recurse:
//   - prefix operators and keywords ("!", "-", "typeof", "await", "new", "keyof", "if", "while",
//     "class", ...), assignment and other right-associative operators ("=", "**", "?", ":",
//     "=>"), and "<" (a comparison, or type arguments that esbuild parses with backtracking);
//   - suffix chains of the current operand ("a.b.c", "f()()", "x[0][0]", tagged templates), which
//     esbuild's visitor and printer walk recursively; a left-associative binary operator ("+",
//     "&&", ...), which esbuild walks iteratively, starts a new operand.
//
// A statement or list element starts after ";" (unless "else" follows), after a "," that separates
// list elements and at a line break where automatic semicolon insertion ends the statement. A ","
// that may be the comma operator counts as a level: esbuild's printer walks comma chains
// recursively (and in quadratic time). Those are the only places where
// the counts restart, so a chain that esbuild parses recursively is counted whole.
//
// Two TypeScript constructs get dedicated bounds:
//   - After a "<" that may start type arguments, esbuild tries to skip a type argument list and
//     backtracks when that fails, so every "<" in a run of type-like tokens can make it read the
//     rest of the run again. Such a run (everything from the first unclosed "<" up to the ">" that
//     closes it, or a token that cannot be part of a type) may hold at most maxAngleTokens tokens.
//   - In "a ? (b) : c => d", esbuild parses the arrow function body twice to decide what the ":"
//     belongs to; nested, that doubles per level. At most maxArrowSpeculation such parenthesized
//     expressions may be nested.

const (
	// MaxNesting is the deepest nesting a program may have, counted as described above. Hand- or
	// model-written programs stay far below it; at this depth esbuild needs a few megabytes of
	// stack at most.
	MaxNesting = 500
	// maxAngleTokens bounds a run of tokens that esbuild may read again for each "<" in it.
	maxAngleTokens = 1000
	// maxFunctions bounds the number of functions (and classes) in a program, maxFunctionDepth
	// the sum of the depths at which they start: esbuild spends kilobytes and microseconds on
	// each function, and its renamer time proportional to the function's depth.
	maxFunctions     = 1 << 13
	maxFunctionDepth = 1 << 14
	// binaryWeight is how many left-associative binary operators count as one level.
	binaryWeight = 64
	// maxArrowSpeculation bounds the nesting of "? (...) :" that esbuild parses speculatively.
	maxArrowSpeculation = 3
)

// nestFrame is an open bracket (or the top level) in the nesting pass.
type nestFrame struct {
	opener byte // '(', '[', '{', '`' or 0 for the top level
	open   int  // byte offset of the opening bracket
	// base is the depth below this frame's own counts: the enclosing frames' counts plus one per
	// open bracket.
	base int
	// pending counts the recursing tokens since the start of the current statement or element,
	// chain the suffixes of the current operand.
	pending, chain int
	// binaries counts the left-associative binary operators since the start of the statement.
	binaries int
	// resetNext: a ";" was seen; the counts restart at the next token unless it is "else".
	resetNext bool
	// speculation counts "? (...) :" since the start of the statement; speculationBase is the
	// enclosing frames' count.
	speculation, speculationBase int
	// speculative: this '(' follows "?" or ":", where esbuild may parse what follows its ')' twice.
	speculative bool
	// commaOperator: a "," here may be the comma operator (a statement list, a parenthesized
	// expression, an index, a control statement's head, a template substitution) rather than
	// a list separator. esbuild's printer walks comma chains recursively, and in quadratic time.
	commaOperator bool
	// angle is the number of "<" not yet closed by ">" in the current run of type-like tokens,
	// angleFrom the index of the token that started the run (-1 when there is none) and
	// angleExtends whether the run holds "extends", after which "?" may be part of a type.
	angle, angleFrom int
	angleExtends     bool
	// outerAngle is the smallest angleFrom of the enclosing frames (-1 if none): a run in an
	// enclosing frame covers every token of this one.
	outerAngle int
}

func (f *nestFrame) reset() {
	f.pending, f.chain, f.speculation, f.binaries = 0, 0, 0, 0
	f.resetNext = false
	f.endAngle()
}

// binary handles a left-associative binary operator: it starts a new operand. esbuild walks
// binary chains iteratively, but some of its helpers recurse on them, more lightly: every
// binaryWeight operators in a statement count as one level.
func (f *nestFrame) binary() {
	f.chain = 0
	if f.binaries++; f.binaries%binaryWeight == 0 {
		f.pending++
	}
}

func (f *nestFrame) endAngle() {
	f.angle, f.angleFrom, f.angleExtends = 0, -1, false
}

// depth is the nesting counted at the current token of frame f.
func (f *nestFrame) depth() int { return f.base + f.pending + f.chain }

// angleStart returns the index of the token that started the outermost run of type-like tokens
// covering the current token, or -1.
func (f *nestFrame) angleStart() int {
	switch {
	case f.angleFrom < 0:
		return f.outerAngle
	case f.outerAngle < 0:
		return f.angleFrom
	}
	return min(f.angleFrom, f.outerAngle)
}

// nestingError is a program rejected by the nesting pass.
type nestingError struct {
	offset  int
	message string
}

// nester is the state of the nesting pass: the open brackets, and the accounts of work.go.
type nester struct {
	// l is the token list being read.
	l     *tokenList
	stack []nestFrame
	// lastSpeculativeClose is the index of the last ')' of a speculative frame, or -1.
	lastSpeculativeClose int
	// functions counts the functions seen so far, functionDepth adds up the depth at which each
	// starts.
	functions, functionDepth int
	// work and scopeWork are the compile work and the scope work counted so far, limits their
	// bounds, names the names seen (see work.go).
	work, scopeWork int64
	limits          workLimits
	names           map[string]struct{}
}

func newNester(l *tokenList, limits workLimits) *nester {
	return &nester{
		l:                    l,
		limits:               limits,
		stack:                []nestFrame{{angleFrom: -1, outerAngle: -1, commaOperator: true}},
		lastSpeculativeClose: -1,
	}
}

// bounds is what the nesting pass found: the first place where the program exceeds the limits
// (nil if none), and the compile work and scope work of the tokens it checked (see work.go).
type bounds struct {
	err             *nestingError
	work, scopeWork int64
}

// tokenizeBounded tokenizes src (stopped by p, see tokenizer.run) and checks every token against
// the nesting and work limits as soon as it is read: tokenizing stops at the first token over
// them, so that the tokens of a program over the limits are never all made (limits zero: the
// default ones).
func tokenizeBounded(src string, p *poller, limits workLimits) (*tokenList, bounds) {
	if limits.programBytes <= 0 {
		limits = defaultWorkLimits
	}
	t := newTokenizer(src, p)
	n := newNester(&t.tokenList, limits)
	var err *nestingError
	l := t.run(func(i int) bool {
		err = n.step(i)
		return err == nil
	})
	return l, bounds{err: err, work: n.work, scopeWork: n.scopeWork}
}

// step checks token i, the next one.
func (n *nester) step(i int) *nestingError {
	s := n.l
	t := &s.toks[i]
	f := &n.stack[len(n.stack)-1]
	if e := n.ambiguousSlash(i); e != nil {
		return e
	}
	if f.resetNext && !s.is(i, tkIdent, "else") {
		f.reset()
	}
	f.resetNext = false
	asi := t.nl && i > 0 && s.endsStatement(i-1) && s.startsStatement(i)
	if asi {
		f.reset()
	}
	fn := n.startsFunction(i)
	if e := n.account(i, f, asi, fn); e != nil {
		return e
	}
	if fn {
		n.functions++
		n.functionDepth += f.depth()
		if n.functions > maxFunctions || n.functionDepth > maxFunctionDepth {
			return &nestingError{t.start, fmt.Sprintf("SyntaxError: the program has too many functions, or "+
				"functions nested too deeply, to compile here (at most %d functions, their nesting depths "+
				"adding up to at most %d): split it into smaller programs", maxFunctions, maxFunctionDepth)}
		}
	}
	switch t.kind {
	case tkIdent:
		n.word(f, i)
	case tkPunct:
		switch c := s.src[t.start]; {
		case t.end-t.start == 1 && (c == '(' || c == '[' || c == '{'):
			return n.open(i, c)
		case t.end-t.start == 1 && (c == ')' || c == ']' || c == '}'):
			if len(n.stack) > 1 {
				if n.stack[len(n.stack)-1].speculative && c == ')' {
					n.lastSpeculativeClose = i
				}
				n.stack = n.stack[:len(n.stack)-1]
			}
			return nil
		default:
			if e := n.punct(f, i); e != nil {
				return e
			}
		}
	case tkTemplate:
		if s.src[t.start] == '}' && len(n.stack) > 1 {
			n.stack = n.stack[:len(n.stack)-1] // the end of a substitution
			f = &n.stack[len(n.stack)-1]
		} else {
			n.operandStart(f, i, true)
		}
		if t.tmplOpen {
			if e := pushFrame(&n.stack, '`', t.end-2); e != nil {
				return e
			}
			n.stack[len(n.stack)-1].commaOperator = true
			return nil
		}
	default:
		n.operandStart(f, i, false)
	}
	if start := f.angleStart(); start >= 0 && i-start > maxAngleTokens {
		return &nestingError{s.toks[start].start, fmt.Sprintf(`SyntaxError: the "<" here is followed by more `+
			`than %d tokens that could be type arguments, which the compiler would read again for every "<" `+
			`among them: close it with ">", or end the expression (e.g. with ";") sooner`, maxAngleTokens)}
	}
	if f.depth() > MaxNesting {
		return nestedTooDeep(t.start)
	}
	return nil
}

// startsFunction reports whether token i starts a function or class: "=>", "function", "class",
// or a "{" after a ")" that does not close a statement's head (a method's body).
func (n *nester) startsFunction(i int) bool {
	s := n.l
	t := s.toks[i]
	switch {
	case t.kind == tkIdent:
		return !s.afterDot(i) && (s.text(i) == "function" || s.text(i) == "class")
	case t.kind != tkPunct:
		return false
	case s.text(i) == "=>":
		return true
	case s.text(i) == "{" && i > 0 && s.is(i-1, tkPunct, ")"):
		return !s.toks[i-1].regexAfter
	}
	return false
}

// open handles an opening bracket at token i.
func (n *nester) open(i int, c byte) *nestingError {
	s := n.l
	f := &n.stack[len(n.stack)-1]
	suffix := i > 0 && (!s.regexAfterToken(i-1) || s.prevPunct(i) == "?.")
	if c != '{' {
		n.operandStart(f, i, true)
	}
	p := s.prevPunct(i)
	if e := pushFrame(&n.stack, c, s.toks[i].start); e != nil {
		return e
	}
	child := &n.stack[len(n.stack)-1]
	child.speculative = c == '(' && (p == "?" || p == ":")
	switch c {
	case '(':
		child.commaOperator = !suffix || s.controlWordBefore(i)
	case '[':
		child.commaOperator = suffix
	case '{':
		child.commaOperator = s.braceIsBlockAfter(i - 1)
	}
	return nil
}

// ambiguousSlash rejects a "/" that starts token i where the tokenizer cannot tell, as esbuild
// does from the grammar, whether it divides or starts a regular expression: after a "}" whose
// "{" it could not classify (a TypeScript type, an unusual context), after "of", "yield" or
// "await" where it cannot tell keyword from identifier, and after "yield" and a line break (see
// slash.go). Guessing wrong would hide code from the nesting pass.
func (n *nester) ambiguousSlash(i int) *nestingError {
	s := n.l
	t := s.toks[i]
	if i == 0 || s.src[t.start] != '/' || t.kind != tkRegex && t.kind != tkPunct {
		return nil
	}
	switch p := s.toks[i-1]; {
	case p.slashUnknown:
	case t.nl && p.kind == tkIdent && !s.afterDot(i-1) && s.text(i-1) == "yield":
	default:
		return nil
	}
	return &nestingError{t.start, fmt.Sprintf(`SyntaxError: a "/" right after %q is ambiguous (division or `+
		`regular expression) to the checker that runs before compilation: put parentheses around the regular `+
		`expression or the operand`, s.text(i-1))}
}

func nestedTooDeep(offset int) *nestingError {
	return &nestingError{offset, fmt.Sprintf("SyntaxError: the program is nested more than %d levels deep here "+
		"(brackets, blocks, operator chains, nested statements or types): split it into smaller functions "+
		"or statements", MaxNesting)}
}

// pushFrame opens a bracket.
func pushFrame(stack *[]nestFrame, opener byte, offset int) *nestingError {
	f := &(*stack)[len(*stack)-1]
	outer := f.angleStart()
	child := nestFrame{
		opener:          opener,
		open:            offset,
		base:            f.depth() + 1,
		speculationBase: f.speculationBase + f.speculation,
		angleFrom:       -1,
		outerAngle:      outer,
	}
	*stack = append(*stack, child)
	if child.base > MaxNesting {
		return nestedTooDeep(offset)
	}
	return nil
}

// operandStart handles a token that starts an operand, or (after an operand) continues its suffix
// chain: a call or index bracket, a tagged template.
func (n *nester) operandStart(f *nestFrame, i int, suffix bool) {
	s := n.l
	if suffix && i > 0 && (!s.regexAfterToken(i-1) || s.prevPunct(i) == "?.") {
		f.chain++
		return
	}
	if !s.afterDot(i) {
		f.chain = 0
	}
}

// nestWord handles an identifier or keyword.
func (n *nester) word(f *nestFrame, i int) {
	s := n.l
	if s.afterDot(i) {
		return // a property name: the "." counted
	}
	switch w := s.text(i); w {
	case "case", "default":
		f.reset() // a switch clause: nothing is pending in this block
	case "extends":
		f.angleExtends = f.angleFrom >= 0
		f.pending++
		f.chain = 0
	case "in", "instanceof", "as", "satisfies":
		f.chain = 0
		f.endAngle()
	default:
		if recursingWords[w] {
			f.pending++
		}
		f.chain = 0
	}
}

// recursingWords are keywords after which esbuild parses the rest recursively: prefix operators,
// statements with a nested statement, class and function expressions, and type operators.
var recursingWords = map[string]bool{
	"typeof": true, "void": true, "delete": true, "await": true, "yield": true, "new": true,
	"if": true, "for": true, "while": true, "do": true, "with": true, "switch": true, "try": true,
	"return": true, "throw": true, "class": true, "function": true, "async": true,
	"keyof": true, "readonly": true, "unique": true, "infer": true, "asserts": true, "is": true,
	"abstract": true, "implements": true, "import": true,
}

// nestPunct handles a punctuator other than a bracket.
func (n *nester) punct(f *nestFrame, i int) *nestingError {
	s := n.l
	p := s.text(i)
	prefix := i == 0 || s.regexAfterToken(i-1) // no operand precedes
	switch p {
	case ";":
		f.resetNext = true
	case ",":
		switch {
		case f.commaOperator:
			f.pending++
			f.chain = 0
		case f.angle == 0:
			f.reset()
		default:
			f.chain = 0
		}
	case ".", "?.":
		f.chain++
	case "!", "++", "--":
		if prefix {
			f.pending++
			f.chain = 0
		} else {
			f.chain++ // a postfix operator, or TypeScript's non-null assertion
		}
	case "+", "-":
		if prefix {
			f.pending++
			f.chain = 0
		} else {
			f.binary()
		}
		if p == "+" {
			f.endAngle()
		}
	case "<", "<<", "<=", "<<=":
		if f.angleFrom < 0 {
			f.angleFrom = i
		}
		f.angle += strings.Count(p, "<")
		f.pending++
		f.chain = 0
	case ">", ">>", ">>>", ">=", ">>=", ">>>=":
		f.chain = 0
		if f.angle -= strings.Count(p, ">"); f.angle <= 0 {
			f.endAngle()
		}
	case "?":
		if !f.angleExtends {
			f.endAngle()
		}
		f.pending++
		f.chain = 0
	case ":":
		if i-1 == n.lastSpeculativeClose {
			f.speculation++
			if f.speculationBase+f.speculation > maxArrowSpeculation {
				return &nestingError{s.toks[i].start, fmt.Sprintf(`SyntaxError: more than %d nested "? (...) :" `+
					`expressions, which the compiler parses speculatively: put the parenthesized expression or the `+
					`arrow function in a variable first`, maxArrowSpeculation)}
			}
		}
		f.pending++
		f.chain = 0
	case "*", "/", "%", "==", "!=", "===", "!==", "&&", "||", "??", "^":
		f.binary()
		f.endAngle()
	case "&", "|":
		f.binary()
	default:
		// "=", compound assignments, "=>", "**", "~", "...", and anything unexpected.
		if p != "=" && p != "=>" && p != "..." && p != "~" {
			f.endAngle()
		}
		f.pending++
		f.chain = 0
	}
	return nil
}
