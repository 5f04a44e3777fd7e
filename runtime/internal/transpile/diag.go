package transpile

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds the pass that keeps esbuild's diagnostics cheap. esbuild keeps parsing after
// most errors, and reports every one of them. Each report costs memory (a few kilobytes), and a
// report with a note about another place of the program (where a name was first declared, the
// "use strict" directive that makes code strict, the earlier duplicate of a key or case) makes
// esbuild's line and column tracker walk every byte between the two places. The tracker walks
// from where it last stopped, so a program with many such reports, each far from its note, takes
// time quadratic in its size: a megabyte of "let a;" would take minutes. Notes are computed even
// for warnings that coderun silences (see logOverrides).
//
// Before esbuild sees a program, checkDiagnostics walks the tokens once and adds up, for every
// construct that may make esbuild report something, an upper bound of what the report costs:
// twice the distance to the place its note may point to, plus a constant for the report itself.
// A program whose total exceeds maxDiagnosticWork is rejected, naming the construct that costs
// most. The constructs are recognized from tokens, generously (a construct that esbuild may
// accept counts too), so that everything esbuild reports many times is counted:
//   - code that strict mode forbids (legacy octal literals and escapes, "with", "delete" of a
//     name, reserved words used as names, "eval" and "arguments" declared or assigned, function
//     declarations as the body of an if or a label, initializers in for-in heads), whose note is
//     the wrapper's "use strict" directive at the start of the program;
//   - a name declared twice in the same scope (or a var declaration hoisted past a let, const or
//     class of the same name, or a parameter redeclared in the function's body), a parameter
//     bound twice in one list, an assignment to a name that is declared const somewhere, whose
//     note is the first declaration;
//   - a key repeated in an object literal or class body, a case value repeated in a switch, a
//     label repeated inside itself, whose note is the earlier occurrence;
//   - a "??", whose note may be its left operand (counted from the start of its statement);
//   - errors without a note that a few bytes can produce many times: invalid assignment
//     targets, repeated regular expression flags, "break" or "continue" with a label, "super".

const (
	// maxDiagnosticWork bounds what esbuild's diagnostics may cost a program, in bytes walked by
	// its line and column tracker (a few nanoseconds each).
	maxDiagnosticWork = 64 << 20
	// errorWork is the cost counted for an error esbuild reports: its memory and handling.
	errorWork = 4 << 10
	// warningWork is the cost counted for a silenced warning.
	warningWork = 256
)

// diagKind is a construct esbuild may report.
type diagKind uint8

const (
	dkOctal diagKind = iota
	dkOctalEscape
	dkDelete
	dkWith
	dkReserved
	dkEvalArguments
	dkFunctionStatement
	dkForInInit
	dkRedeclared
	dkDuplicateParam
	dkConstAssign
	dkDuplicateKey
	dkDuplicateCase
	dkNullish
	dkDuplicateLabel
	dkAssignTarget
	dkRegexFlags
	dkLabelRef
	dkSuper
	dkPrivate
	dkSingleStatement
	numDiagKinds
)

// describe returns how a construct of kind k is named in the message about too many of them;
// name is the identifier or text it concerns.
func (k diagKind) describe(name string) string {
	switch k {
	case dkOctal:
		return "a legacy octal literal (not allowed in strict mode: write 0o10 rather than 010)"
	case dkOctalEscape:
		return `a legacy octal escape sequence (not allowed in strict mode: write "\x08" rather than "\10")`
	case dkDelete:
		return `"delete" of a plain name (not allowed in strict mode)`
	case dkWith:
		return `a "with" statement (not allowed in strict mode)`
	case dkReserved:
		return fmt.Sprintf("%q used as a name (a reserved word in strict mode)", name)
	case dkEvalArguments:
		return fmt.Sprintf("%q declared or assigned (not allowed in strict mode)", name)
	case dkFunctionStatement:
		return "a function declaration as the body of an if statement or a label (not allowed in strict mode)"
	case dkForInInit:
		return `an initializer in a "for (var ... in ...)" head (not allowed in strict mode)`
	case dkRedeclared:
		return fmt.Sprintf("%q declared again in the same scope", name)
	case dkDuplicateParam:
		return fmt.Sprintf("%q bound more than once in the same parameter list", name)
	case dkConstAssign:
		return fmt.Sprintf("an assignment to %q, a name declared const", name)
	case dkDuplicateKey:
		return fmt.Sprintf("the key %q repeated in the same object literal or class body", name)
	case dkDuplicateCase:
		return "a case value repeated in the same switch statement"
	case dkNullish:
		return `"??" operators in a long expression`
	case dkDuplicateLabel:
		return fmt.Sprintf("the label %q repeated inside a statement it labels", name)
	case dkAssignTarget:
		return "an invalid assignment target"
	case dkRegexFlags:
		return "a regular expression with a repeated or unknown flag"
	case dkLabelRef:
		return `"break" or "continue" with a label`
	case dkSingleStatement:
		return fmt.Sprintf("a %q declaration as the body of an if, else or loop (wrap it in a block)", name)
	case dkPrivate:
		return fmt.Sprintf("the private name %q used outside the class body that declares it", name)
	}
	return `"super"`
}

// frameKind is what an open bracket holds, as far as checkDiagnostics needs to know.
type frameKind uint8

const (
	fkOther     frameKind = iota // a call's arguments, a control statement's head, an index, a type...
	fkFunction                   // a function body (or the program): a scope for var declarations
	fkBlock                      // a block or a for head: a scope for let, const and class
	fkSwitch                     // a switch statement's body
	fkClass                      // a class body
	fkInterface                  // an interface body
	fkObject                     // an object literal or type
	fkParams                     // a parameter list, or a parenthesized expression that may be one
)

// bindKind is how a name is declared.
type bindKind uint8

const (
	bindNone    bindKind = iota
	bindLexical          // let, class, or a function in a block
	bindConst            // const or using
	bindVar              // var, or a function in a function body
	bindParam            // a parameter or catch binding
)

// declared is the first declaration of a name in a scope.
type declared struct {
	offset int
	kind   bindKind
	// lexical: the scope also declares the name with let, const or class (counted in
	// checker.lexical).
	lexical bool
}

// dframe is an open bracket (or the program) in checkDiagnostics.
type dframe struct {
	kind   frameKind
	opener byte
	start  int // byte offset of the opening bracket
	// fn is the index of the innermost function frame at or around this one (0 for the
	// program): where a var declared in it is hoisted to. push sets it, so that no declaration
	// walks down the stack to find it.
	fn int
	// pattern: the bracket may be a destructuring pattern in a declaration (declaration) or a
	// parameter list; target is the index of the frame that receives the names it binds, bind
	// how.
	pattern, declaration bool
	target               int
	bind                 bindKind
	// names are the names declared in a scope frame, or bound in a parameter list.
	names map[string]declared
	// keys are the first offsets of the keys of an object literal or class body, or the case
	// values of a switch.
	keys map[string]int
	// lexical lists the names this frame declared with let, const or class, to pop from
	// checker.lexical when it closes; labels likewise for checker.labels.
	lexical, labels []string
	// cands is the length of checker.cands when the frame opened.
	cands int
	// stmt is the byte offset where the current statement or operand sequence started.
	stmt int
	// decl is the kind of the declaration statement in progress, expect whether a binding
	// comes next, declAngle the "<" open in its type annotation.
	decl      bindKind
	expect    bool
	declAngle int
	// sawAssign: a for head declaring with var has had an "=".
	sawAssign bool
	// value: in an object literal, after ":" and before ",".
	value bool
	// generator: a generator function's body (or a frame inside it, not inside an arrow);
	// arrow: inside an arrow function's expression body.
	generator, arrow bool
	// optional: the current operand has a "?." chain, which cannot be assigned to.
	optional bool
	// annotation: after the ":" of a type annotation (of a parameter, declared name or class
	// field), up to its "=" or ",".
	annotation bool
	// initializing: a declaration statement in progress has reached its current declarator's
	// initializer.
	initializing bool
	// generatorParams: a generator function's parameter list.
	generatorParams bool
	// pending flags set by tokens in this frame and consumed by the next bracket opened in it.
	pendingClass, pendingInterface, pendingParams, pendingGenerator, pendingSwitch, pendingFor bool
	classAngle                                                                                 int
}

// candidate is an element of an array or object literal that becomes an assignment target if
// the literal is followed by "=": a name (ok) or something that is not a valid target.
type candidate struct {
	offset int
	name   string
	ok     bool
}

// diagCost is what one kind of construct adds up to.
type diagCost struct {
	work   int64
	count  int
	offset int // of the first
	name   string
}

// diagChecker is the state of checkDiagnostics.
type diagChecker struct {
	s     *scanner
	stack []dframe
	total int64
	// walk is the part of total that counts distances to notes.
	walk   int64
	costs  [numDiagKinds]diagCost
	header int // bytes before the program in esbuild's input
	// lexical maps a name to the stack indexes of the open scopes that declare it with let,
	// const or class; labels maps a label to the offsets of the open labels of that name.
	lexical map[string][]int
	labels  map[string][]int
	// cands are the possible assignment targets of the open array and object literals.
	cands []candidate
	// assigned are the names assigned to, and their offsets; consts the offsets of the const
	// declarations of each name.
	assigned []candidate
	consts   map[string][2]int
	// params and paramsGenerator describe the last parameter list closed, for the body that
	// may follow; paramsEnd is the index of its closing token.
	params          map[string]declared
	paramsGenerator bool
	paramsEnd       int
	// bodyPending: a function body "{" may come (after a parameter list and a return type).
	bodyPending bool
}

// diagnosticsError is a program rejected by checkDiagnostics.
type diagnosticsError struct {
	offset  int
	message string
}

// checkDiagnostics returns nil, or the reason to reject a program whose diagnostics esbuild
// could not report cheaply. header is the number of bytes esbuild's input holds before the
// program.
func (s *scanner) checkDiagnostics(header int) *diagnosticsError {
	c := newDiagChecker(s, header)
	if !c.run() {
		return c.reject()
	}
	return nil
}

func newDiagChecker(s *scanner, header int) *diagChecker {
	return &diagChecker{
		s:       s,
		header:  header,
		lexical: map[string][]int{},
		labels:  map[string][]int{},
		consts:  map[string][2]int{},
		stack:   []dframe{{kind: fkFunction}},
	}
}

// run adds up the costs of the program's constructs, and reports whether they stay within
// maxDiagnosticWork. It stops when they exceed it, or (reporting true) when c.s.poll says the
// compilation must stop.
func (c *diagChecker) run() bool {
	for i := range c.s.toks {
		if c.s.poll.stop() {
			return true
		}
		c.step(i)
		if c.total > maxDiagnosticWork {
			return false
		}
	}
	c.assignments()
	return c.total <= maxDiagnosticWork
}

// reject describes the kind of construct that costs most.
func (c *diagChecker) reject() *diagnosticsError {
	worst := diagKind(0)
	for k := range c.costs {
		if c.costs[k].work > c.costs[worst].work {
			worst = diagKind(k)
		}
	}
	d := c.costs[worst]
	return &diagnosticsError{d.offset, fmt.Sprintf("SyntaxError: %s, here and %d more times: the compiler "+
		"reports each of these, and the reports would cost too much in a program this long (at most %d MiB "+
		"of work, counting the distance from each to what it refers back to): fix them, or split the program",
		worst.describe(d.name), d.count-1, maxDiagnosticWork>>20)}
}

// add counts a construct of kind k at offset whose report may note a place distance bytes away.
func (c *diagChecker) add(k diagKind, offset int, name string, distance int, base int64) {
	w := base + 2*int64(max(distance, 0))
	c.total += w
	c.walk += w - base
	d := &c.costs[k]
	if d.count == 0 {
		d.offset, d.name = offset, name
	}
	d.count++
	d.work += w
}

// strict counts code that strict mode forbids: its note is the "use strict" directive.
func (c *diagChecker) strict(k diagKind, offset int, name string) {
	c.add(k, offset, name, offset+c.header, errorWork)
}

func (c *diagChecker) top() *dframe { return &c.stack[len(c.stack)-1] }

func (c *diagChecker) text(i int) string { return c.s.text(i) }

// punct reports whether token i is the punctuator p.
func (c *diagChecker) punct(i int, p string) bool { return c.s.is(i, tkPunct, p) }

// word returns the text of token i if it is an identifier that is not a property name, or "".
func (c *diagChecker) word(i int) string {
	if i < 0 || i >= len(c.s.toks) || c.s.toks[i].kind != tkIdent || c.s.afterDot(i) {
		return ""
	}
	return c.text(i)
}

// prevText returns the text of token i-1, or "".
func (c *diagChecker) prevText(i int) string {
	if i <= 0 {
		return ""
	}
	return c.text(i - 1)
}

// nextText returns the text of token i+1, or "".
func (c *diagChecker) nextText(i int) string {
	if i+1 >= len(c.s.toks) {
		return ""
	}
	return c.text(i + 1)
}

// step handles token i.
func (c *diagChecker) step(i int) {
	s := c.s
	t := s.toks[i]
	f := c.top()
	if t.nl && i > 0 && s.endsStatement(i-1) && s.startsStatement(i) {
		c.endStatement(f, t.start)
	}
	if c.prevText(i) == "case" && f.kind == fkSwitch {
		c.caseValue(i)
	}
	if t.kind == tkPunct && t.end-t.start == 1 && strings.IndexByte(")]}", c.text(i)[0]) >= 0 ||
		t.kind == tkTemplate && c.text(i)[0] == '}' {
		// a closing bracket: not an element
	} else {
		c.element(f, i)
	}
	switch t.kind {
	case tkPunct:
		p := c.text(i)
		switch p {
		case "(", "[", "{":
			c.open(i, p[0])
			return
		case ")", "]", "}":
			c.close(i)
			return
		}
		c.punctuator(f, i, p)
	case tkTemplate:
		if c.text(i)[0] == '}' && len(c.stack) > 1 {
			c.pop()
		}
		if hasOctalEscape(c.text(i)) {
			c.strict(dkOctalEscape, t.start, "")
		}
		if t.tmplOpen {
			c.push(dframe{kind: fkOther, opener: '`', start: t.end - 2})
		}
	case tkString:
		if hasOctalEscape(c.text(i)) {
			c.strict(dkOctalEscape, t.start, "")
		}
		c.key(f, i)
	case tkNumber:
		if txt := c.text(i); len(txt) > 1 && txt[0] == '0' && isDigit(txt[1]) {
			c.strict(dkOctal, t.start, "")
		}
		c.key(f, i)
	case tkRegex:
		if badRegexFlags(c.text(i)) {
			c.add(dkRegexFlags, t.start, "", t.end-t.start, errorWork)
		}
	case tkPrivate:
		if !c.key(f, i) {
			// A use: an error unless a class body around declares it. Counted lightly, as
			// classes use their private names often.
			c.add(dkPrivate, t.start, c.text(i), 0, errorWork/4)
		}
	case tkIdent:
		c.identifier(f, i)
	}
}

// endStatement resets the statement state of frame f at offset.
func (c *diagChecker) endStatement(f *dframe, offset int) {
	f.stmt = offset
	f.decl, f.expect, f.declAngle, f.sawAssign = bindNone, false, 0, false
	f.arrow, f.value, f.optional, f.annotation, f.initializing = false, false, false, false, false
	f.pendingClass, f.pendingInterface, f.pendingParams, f.pendingGenerator = false, false, false, false
	f.pendingSwitch, f.pendingFor = false, false
	c.bodyPending = false
}

// push opens a frame.
func (c *diagChecker) push(f dframe) {
	parent := c.top()
	f.cands = len(c.cands)
	f.stmt = f.start + 1
	f.fn = parent.fn
	if f.kind != fkFunction {
		f.generator = parent.generator
		f.arrow = parent.arrow
	} else {
		f.fn = len(c.stack)
	}
	c.stack = append(c.stack, f)
}

// pop closes the innermost frame.
func (c *diagChecker) pop() dframe {
	f := c.stack[len(c.stack)-1]
	for _, name := range f.lexical {
		st := c.lexical[name]
		c.lexical[name] = st[:len(st)-1]
	}
	for _, name := range f.labels {
		st := c.labels[name]
		c.labels[name] = st[:len(st)-1]
	}
	c.stack = c.stack[:len(c.stack)-1]
	return f
}

// open handles an opening bracket at token i.
func (c *diagChecker) open(i int, ch byte) {
	s := c.s
	f := c.top()
	parent := len(c.stack) - 1
	prev := c.prevText(i)
	nf := dframe{kind: fkOther, opener: ch, start: s.toks[i].start}
	elementStart := prev == "," || prev == "..." || prev == string(f.opener) && f.opener != '`' ||
		prev == ":" && f.opener == '{'
	if ch != '(' {
		switch {
		case f.expect:
			nf.pattern, nf.declaration, nf.target, nf.bind = true, true, parent, f.decl
			f.expect = false
		case f.pattern && elementStart:
			nf.pattern, nf.declaration, nf.target, nf.bind = true, f.declaration, f.target, f.bind
		case f.kind == fkParams && (prev == "(" || prev == "," || prev == "..."):
			nf.pattern, nf.target, nf.bind = true, parent, bindParam
		}
	}
	switch {
	case nf.pattern:
		if ch == '{' {
			nf.kind = fkObject
		}
	case ch == '(':
		nf.kind = c.parenKind(f, i)
		if nf.kind == fkParams {
			nf.generatorParams = f.pendingGenerator
		}
		if f.pendingFor {
			nf.kind = fkBlock
		}
		if f.pendingSwitch {
			nf.keys = map[string]int{} // marks the head of a switch
		}
		f.pendingParams, f.pendingGenerator, f.pendingFor, f.pendingSwitch = false, false, false, false
	case ch == '{':
		nf.kind = c.braceKind(f, i)
	}
	c.push(nf)
	child := c.top()
	if nf.kind == fkFunction {
		child.generator = c.paramsGenerator && c.paramsEnd >= 0
		child.arrow = false
		if c.params != nil {
			child.names = c.params
		}
		c.params, c.paramsGenerator, c.paramsEnd = nil, false, -1
	}
	c.bodyPending = false
}

// parenKind returns the kind of a "(" at token i in frame f.
func (c *diagChecker) parenKind(f *dframe, i int) frameKind {
	s := c.s
	switch {
	case f.pendingParams, c.word(i-1) == "catch":
		return fkParams
	case f.kind == fkClass:
		return fkParams // a method; or a call in a field's initializer, counted alike
	case f.kind == fkObject && !f.value:
		return fkParams
	case s.controlWordBefore(i):
		return fkOther
	case i == 0 || s.regexAfterToken(i-1) && s.prevPunct(i) != "?.":
		return fkParams // a parenthesized expression, or an arrow function's parameters
	}
	return fkOther
}

// braceKind returns the kind of a "{" at token i in frame f.
func (c *diagChecker) braceKind(f *dframe, i int) frameKind {
	s := c.s
	prev := c.prevText(i)
	switch {
	case f.pendingClass && f.classAngle <= 0 && prev != "extends" && prev != "implements":
		f.pendingClass = false
		return fkClass
	case f.pendingInterface && f.classAngle <= 0:
		f.pendingInterface = false
		return fkInterface
	case f.pendingSwitch:
		f.pendingSwitch = false
		return fkSwitch
	case prev == "=>" || c.bodyPending && bodyAfter(s, i-1):
		return fkFunction
	case f.kind == fkClass || f.kind == fkInterface:
		return fkObject // a type
	case s.braceIsBlockAfter(i - 1):
		return fkBlock
	}
	return fkObject
}

// bodyAfter reports whether a "{" after token i may be a function body following a parameter
// list and maybe a return type, rather than a type.
func bodyAfter(s *scanner, i int) bool {
	switch s.toks[i].kind {
	case tkPunct:
		switch s.text(i) {
		case ")", "]", "}", ">":
			return true
		}
		return false
	case tkIdent:
		return !isRegexKeyword(s.text(i)) && s.text(i) != "keyof"
	}
	return true
}

// close handles a closing bracket at token i.
func (c *diagChecker) close(i int) {
	if len(c.stack) <= 1 {
		return
	}
	f := c.pop()
	parent := c.top()
	next := c.nextText(i)
	switch f.opener {
	case '(':
		if f.kind == fkParams {
			c.params, c.paramsGenerator, c.paramsEnd = f.names, f.generatorParams, i
			c.bodyPending = true
		}
		if f.keys != nil {
			parent.pendingSwitch = true
		}
	case '[', '{':
		c.targets(f, next)
	}
}

// targets handles the possible assignment targets recorded in an array or object literal f that
// closes at token i: they are assigned if next is "=" (or "of" or "in"), and kept for the
// enclosing literal if it is one.
func (c *diagChecker) targets(f dframe, next string) {
	if f.declaration || len(c.cands) == f.cands {
		c.cands = c.cands[:f.cands]
		return
	}
	if next == "=" || next == "of" || next == "in" {
		for _, cd := range c.cands[f.cands:] {
			if cd.ok {
				c.assign(cd)
			} else {
				c.add(dkAssignTarget, cd.offset, "", 0, errorWork)
			}
		}
		c.cands = c.cands[:f.cands]
		return
	}
	if p := c.top(); p.opener == '[' || p.opener == '(' || p.opener == '{' && p.kind == fkObject {
		return // the enclosing literal may be a target
	}
	c.cands = c.cands[:f.cands]
}

// element records token i, if it starts an element of the array or object literal f, as a
// possible assignment target: a name, or something that is not a valid target. A nested literal
// records its own elements; a member expression (a.b, a[0]) is a valid target that is no name.
func (c *diagChecker) element(f *dframe, i int) {
	if f.kind != fkOther && f.kind != fkObject || f.opener != '[' && f.opener != '{' {
		return
	}
	s := c.s
	prev, txt, next := c.prevText(i), c.text(i), c.nextText(i)
	switch {
	case prev == "," || prev == "...":
	case f.opener == '[' && prev == "[":
	case f.opener == '{' && prev == ":":
	case f.opener == '{' && prev == "{":
	default:
		return
	}
	kind := s.toks[i].kind
	if f.opener == '{' && prev != ":" && prev != "..." && (kind != tkIdent || next == ":" || next == "(") {
		return // a key
	}
	if txt == "[" || txt == "{" || txt == "..." {
		return
	}
	if kind == tkIdent && !isKeyword(txt) {
		switch next {
		case ",", "]", "}", "=":
			c.cands = append(c.cands, candidate{offset: s.toks[i].start, name: identName(txt), ok: true})
			return
		case ".", "?.", "[", "!":
			return
		}
	}
	c.cands = append(c.cands, candidate{offset: s.toks[i].start})
}

// identifier handles an identifier or keyword at token i in frame f.
func (c *diagChecker) identifier(f *dframe, i int) {
	s := c.s
	t := s.toks[i]
	if s.afterDot(i) {
		return
	}
	w := c.text(i)
	name := identName(w)
	next := c.nextText(i)
	if f.expect {
		f.expect = false
		c.declare(i, name, len(c.stack)-1, f.decl)
		return
	}
	if f.pattern && c.bindingPosition(f, i) {
		c.key(f, i) // a shorthand property: {a} is {a: a}
		c.declare(i, name, f.target, f.bind)
		return
	}
	if f.kind == fkParams && (c.prevText(i) == "(" || c.prevText(i) == "," || c.prevText(i) == "...") {
		switch next {
		case ",", ")", "=", ":", "?", "=>":
			c.declare(i, name, len(c.stack)-1, bindParam)
		}
	}
	if c.key(f, i) && !(f.kind == fkObject && (next == "," || next == "}" || next == "=")) {
		return // a key, not a shorthand property
	}
	switch w {
	case "let", "const", "var", "using":
		if next == "{" || next == "[" || i+1 < len(s.toks) && s.toks[i+1].kind == tkIdent && !isRegexKeyword(next) {
			if p := c.prevText(i); w != "var" && (p == "else" || p == "do" || p == ")" && s.toks[i-1].regexAfter) {
				c.add(dkSingleStatement, t.start, w, 0, errorWork)
			}
			f.decl = map[string]bindKind{"let": bindLexical, "const": bindConst, "var": bindVar, "using": bindConst}[w]
			f.expect = true
			f.declAngle = 0
			return
		}
		if w == "let" {
			c.reserved(f, i, w)
		}
	case "function":
		f.pendingParams = true
		if next == "*" {
			f.pendingGenerator = true
		}
		if c.statementPosition(f, i) {
			j := i + 1
			if next == "*" {
				j++
			}
			if name := identName(c.word(j)); name != "" {
				kind := bindLexical
				if f.kind == fkFunction {
					kind = bindVar
				}
				c.declare(j, name, len(c.stack)-1, kind)
			}
			if p := c.prevText(i); p == "else" || p == ":" || p == ")" && s.toks[i-1].regexAfter {
				c.strict(dkFunctionStatement, t.start, "")
			}
		}
	case "class":
		f.pendingClass, f.classAngle = true, 0
		if name := identName(c.word(i + 1)); name != "" && name != "extends" && name != "implements" && c.statementPosition(f, i) {
			c.declare(i+1, name, len(c.stack)-1, bindLexical)
		}
	case "interface":
		if i+1 < len(s.toks) && s.toks[i+1].kind == tkIdent {
			f.pendingInterface, f.classAngle = true, 0
			return
		}
		c.reserved(f, i, w)
	case "switch":
		f.pendingSwitch = true
	case "for":
		f.pendingFor = true
	case "delete":
		if n := s.toks; i+1 < len(n) && (n[i+1].kind == tkIdent && !isPostfixOperand(c.nextText(i+1)) || next == "(") {
			c.strict(dkDelete, t.start, "")
		}
	case "with":
		if next != ":" {
			c.strict(dkWith, t.start, "")
		}
	case "implements":
		if i+1 >= len(s.toks) || s.toks[i+1].kind != tkIdent {
			c.reserved(f, i, w)
		}
	case "package", "private", "protected", "public", "static":
		c.reserved(f, i, w)
	case "yield":
		if !f.generator || f.arrow {
			c.reserved(f, i, w)
		}
	case "break", "continue":
		if i+1 < len(s.toks) && s.toks[i+1].kind == tkIdent && !s.toks[i+1].nl {
			c.add(dkLabelRef, t.start, "", 0, errorWork)
		}
	case "super":
		c.add(dkSuper, t.start, "", 0, errorWork)
	case "in":
		if f.kind == fkBlock && f.opener == '(' && f.decl != bindNone && f.sawAssign {
			c.strict(dkForInInit, t.start, "")
		}
		fallthrough
	case "of":
		if f.kind == fkBlock && f.opener == '(' { // a for head
			f.decl, f.expect = bindNone, false
			if s.toks[i-1].kind == tkIdent && c.prevText(i-1) == "(" {
				c.assign(candidate{offset: s.toks[i-1].start, name: identName(c.text(i - 1))})
			}
		}
	default:
		if next == ":" && c.statementPosition(f, i) && (f.kind == fkFunction || f.kind == fkBlock || f.kind == fkSwitch) && !isKeyword(w) {
			c.label(f, i, name)
			return
		}
	}
	c.reference(i, name)
}

// strictReserved reports whether name is reserved in strict mode, and cannot be declared there.
func strictReserved(name string) bool {
	switch name {
	case "implements", "interface", "let", "package", "private", "protected", "public", "static", "yield":
		return true
	}
	return false
}

// isPostfixOperand reports whether p, after a name, makes the name part of a longer operand.
func isPostfixOperand(p string) bool {
	switch p {
	case ".", "?.", "[", "(", "!", "`":
		return true
	}
	return strings.HasPrefix(p, "`")
}

// isKeyword reports whether w cannot be a label.
func isKeyword(w string) bool {
	switch w {
	case "case", "default", "true", "false", "null", "this", "super", "new", "typeof", "void", "delete":
		return true
	}
	return isRegexKeyword(w)
}

// statementPosition reports whether token i may start a declaration statement in frame f.
func (c *diagChecker) statementPosition(f *dframe, i int) bool {
	if f.kind == fkObject || f.kind == fkClass || f.kind == fkInterface || f.pattern {
		return false
	}
	if c.s.stmtStart(i) {
		return true
	}
	switch p := c.prevText(i); p {
	case "else", ":", "async", "declare", "default", "export", "do":
		return true
	case ")":
		return c.s.toks[i-1].regexAfter
	}
	return false
}

// bindingPosition reports whether the identifier at token i binds a name in pattern frame f.
func (c *diagChecker) bindingPosition(f *dframe, i int) bool {
	prev, next := c.prevText(i), c.nextText(i)
	switch prev {
	case ",", "...", string(f.opener):
	case ":":
		if f.opener != '{' {
			return false
		}
	default:
		return false
	}
	switch next {
	case ",", "=", "}", "]":
		return true
	}
	return false
}

// reserved counts a word that strict mode reserves, used at token i in frame f, unless it is
// a modifier or key there.
func (c *diagChecker) reserved(f *dframe, i int, w string) {
	if f.kind == fkClass || f.kind == fkInterface || f.kind == fkObject && !f.value {
		return
	}
	switch next := c.nextText(i); {
	case next == ":" && (c.prevText(i) == "{" || c.prevText(i) == "," || c.prevText(i) == ";"):
		return // a key of an object type or literal
	}
	c.strict(dkReserved, c.s.toks[i].start, w)
}

// key records token i as a key of the object literal or class body f, if it is one, and
// counts it if it repeats an earlier key.
func (c *diagChecker) key(f *dframe, i int) bool {
	if f.kind != fkObject && f.kind != fkClass {
		return false
	}
	s := c.s
	prev, next := c.prevText(i), c.nextText(i)
	if f.kind == fkObject {
		if f.value {
			return false
		}
		switch prev {
		case "{", ",", "*", "get", "set", "async":
		default:
			return false
		}
		switch next {
		case ":", "(", ",", "}", "<", "=":
		default:
			return false
		}
	} else {
		if !(s.toks[i].nl || memberPrefix(prev)) {
			return false
		}
		switch next {
		case "(", "=", ";", ":", "?", "!", "<", "}":
		default:
			if i+1 < len(s.toks) && !s.toks[i+1].nl {
				return false
			}
		}
	}
	k := propertyKey(s, i)
	if f.keys == nil {
		f.keys = map[string]int{}
	}
	// esbuild's note is the previous occurrence of the key, or the first "__proto__".
	off := s.toks[i].start
	if prev, ok := f.keys[k]; ok {
		c.add(dkDuplicateKey, off, c.text(i), off-prev, warningWork)
		if k == "__proto__" {
			return true
		}
	}
	f.keys[k] = off
	return true
}

// memberPrefix reports whether a class member's key may follow p.
func memberPrefix(p string) bool {
	switch p {
	case "{", ";", "}", "*", "static", "get", "set", "async", "readonly", "public", "private", "protected",
		"override", "accessor", "declare", "abstract":
		return true
	}
	return false
}

// propertyKey returns the key that token i (an identifier, string, number or private name)
// stands for: strings and numbers are normalized as far as their text allows, and a string with
// an escape sequence stands for every such string.
func propertyKey(s *scanner, i int) string {
	txt := s.text(i)
	switch s.toks[i].kind {
	case tkString:
		body := txt[1:]
		if len(txt) >= 2 && txt[len(txt)-1] == txt[0] {
			body = txt[1 : len(txt)-1]
		}
		if strings.IndexByte(body, '\\') >= 0 {
			return "\x00escaped"
		}
		return body
	case tkNumber:
		n := strings.ReplaceAll(txt, "_", "")
		if v, err := strconv.ParseInt(n, 0, 64); err == nil {
			return strconv.FormatInt(v, 10)
		}
		if v, err := strconv.ParseFloat(n, 64); err == nil {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return "\x00number"
	}
	return identName(txt)
}

// identName returns the name an identifier's text stands for, decoding escape sequences
// ("\u0061" and "\u{61}" are "a"); text that is not a valid escape is kept as is.
func identName(txt string) string {
	if strings.IndexByte(txt, '\\') < 0 {
		return txt
	}
	var b strings.Builder
	for i := 0; i < len(txt); i++ {
		if txt[i] != '\\' || i+1 >= len(txt) || txt[i+1] != 'u' {
			b.WriteByte(txt[i])
			continue
		}
		hex, next := "", i+2
		if next < len(txt) && txt[next] == '{' {
			if end := strings.IndexByte(txt[next:], '}'); end > 0 {
				hex, next = strings.TrimLeft(txt[next+1:next+end], "0"), next+end+1
			}
		} else if next+4 <= len(txt) {
			hex, next = txt[next:next+4], next+4
		}
		r, err := strconv.ParseUint(hex, 16, 32)
		if hex == "" && next > i+2 {
			r, err = 0, nil
		}
		if err != nil || len(hex) > 6 {
			b.WriteByte(txt[i])
			continue
		}
		b.WriteRune(rune(r))
		i = next - 1
	}
	return b.String()
}

// label handles a label at token i.
func (c *diagChecker) label(f *dframe, i int, name string) {
	off := c.s.toks[i].start
	if strictReserved(name) {
		c.strict(dkReserved, off, name)
	}
	if st := c.labels[name]; len(st) > 0 {
		c.add(dkDuplicateLabel, off, name, off-st[0], errorWork)
	}
	c.labels[name] = append(c.labels[name], off)
	f.labels = append(f.labels, name)
}

// reference handles a name used at token i: an assignment to it, maybe.
func (c *diagChecker) reference(i int, w string) {
	s := c.s
	off := s.toks[i].start
	next := c.nextText(i)
	if f := c.top(); f.annotation || f.decl != bindNone && !f.initializing && next == "=" {
		return // a type, or a declared name
	}
	if isAssignOp(next) || (next == "++" || next == "--") && !s.toks[i+1].regexAfter && !s.toks[i+1].nl ||
		(c.prevText(i) == "++" || c.prevText(i) == "--") && s.toks[i-1].regexAfter {
		c.assign(candidate{offset: off, name: w})
	}
}

// caseValue counts a case value at token i that repeats an earlier one in its switch.
func (c *diagChecker) caseValue(i int) {
	f := c.top()
	s := c.s
	k := "\x00expression"
	if c.nextText(i) == ":" {
		k = propertyKey(s, i)
	}
	if f.keys == nil {
		f.keys = map[string]int{}
	}
	off := s.toks[i].start
	if first, ok := f.keys[k]; ok {
		c.add(dkDuplicateCase, off, "", off-first, warningWork)
	} else {
		f.keys[k] = off
	}
}

// isAssignOp reports whether p is an assignment operator.
func isAssignOp(p string) bool {
	switch p {
	case "=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??=":
		return true
	}
	return false
}

// declare records the declaration of name at token i in the scope at stack index at.
func (c *diagChecker) declare(i int, name string, at int, kind bindKind) {
	off := c.s.toks[i].start
	if name == "eval" || name == "arguments" {
		c.strict(dkEvalArguments, off, name)
	}
	if strictReserved(name) {
		c.strict(dkReserved, off, name)
	}
	if kind == bindConst {
		r, ok := c.consts[name]
		if !ok {
			r = [2]int{off, off}
		}
		c.consts[name] = [2]int{min(r[0], off), max(r[1], off)}
	}
	f := &c.stack[at]
	if f.names == nil {
		f.names = map[string]declared{}
	}
	first, ok := f.names[name]
	if ok {
		k := dkRedeclared
		if f.kind == fkParams && kind == bindParam {
			k = dkDuplicateParam
		}
		if k == dkDuplicateParam || first.kind != bindVar && first.kind != bindParam || kind != bindVar && kind != bindParam {
			c.add(k, off, name, off-first.offset, errorWork)
		}
	} else {
		first = declared{offset: off, kind: kind}
	}
	if (kind == bindLexical || kind == bindConst) && !first.lexical {
		first.lexical = true
		c.lexical[name] = append(c.lexical[name], at)
		f.lexical = append(f.lexical, name)
	}
	f.names[name] = first
	if kind != bindVar {
		return
	}
	// A var is hoisted to the function's scope, through every block, and conflicts with a
	// let, const or class of the same name declared in any of them.
	fn := c.stack[at].fn
	if st := c.lexical[name]; len(st) > 0 && st[len(st)-1] >= fn && st[len(st)-1] != at {
		d := c.stack[st[len(st)-1]].names[name]
		c.add(dkRedeclared, off, name, off-d.offset, errorWork)
	}
	if fn != at {
		g := &c.stack[fn]
		if g.names == nil {
			g.names = map[string]declared{}
		}
		if first, ok := g.names[name]; ok && first.kind != bindVar && first.kind != bindParam {
			c.add(dkRedeclared, off, name, off-first.offset, errorWork)
		} else if !ok {
			g.names[name] = declared{offset: off, kind: bindVar}
		}
	}
}

// punctuator handles a punctuator other than a bracket at token i in frame f.
func (c *diagChecker) punctuator(f *dframe, i int, p string) {
	s := c.s
	t := s.toks[i]
	if f.optional && p != "." && p != "?." && p != "!" && p != "++" && p != "--" && !isAssignOp(p) {
		f.optional = false // an operator: the next operand starts
	}
	switch p {
	case ";":
		c.endStatement(f, t.end)
		f.value = false
		return
	case ",":
		f.stmt = t.end
		f.arrow, f.optional, f.annotation, f.initializing = false, false, false, false
		if f.decl != bindNone && f.declAngle <= 0 {
			f.expect = true
		}
		if f.kind == fkObject {
			f.value = false
		}
		return
	case ":":
		f.stmt = t.end
		f.optional = false
		if f.kind == fkParams || f.kind == fkClass || f.decl != bindNone && !f.initializing {
			f.annotation = true
		}
		if f.kind == fkObject {
			f.value = true
		}
		return
	case "?":
		f.stmt, f.optional = t.end, false
		return
	case "=>":
		f.stmt = t.end
		if c.nextText(i) != "{" {
			f.arrow = true
		}
		if i > 0 && s.toks[i-1].kind == tkIdent {
			c.params = map[string]declared{identName(c.text(i - 1)): {offset: s.toks[i-1].start, kind: bindParam}}
			c.paramsGenerator, c.paramsEnd = false, i
		}
		c.bodyPending = true
		return
	case "??":
		c.add(dkNullish, t.start, "", t.start-f.stmt, warningWork)
		return
	case "?.":
		f.optional = true
		return
	case "*":
		if w := c.prevText(i); w == "function" || w == "async" || w == "static" || w == "{" || w == "," ||
			w == ";" || w == "}" || t.nl {
			f.pendingGenerator = true
		}
		return
	case "<", "<<":
		if f.decl != bindNone {
			f.declAngle += len(p)
		}
		if f.pendingClass || f.pendingInterface {
			f.classAngle += len(p)
		}
		return
	case ">", ">>", ">>>":
		if f.decl != bindNone {
			f.declAngle -= len(p)
		}
		if f.pendingClass || f.pendingInterface {
			f.classAngle -= len(p)
		}
		return
	case "++", "--":
		if t.regexAfter && !t.nl || c.s.regexAfterToken(i-1) { // prefix
			if i+1 < len(s.toks) && invalidTarget(s, i+1) {
				c.add(dkAssignTarget, t.start, "", 0, errorWork)
			}
			return
		}
		if i > 0 && invalidTarget(s, i-1) || f.optional {
			c.add(dkAssignTarget, t.start, "", 0, errorWork)
		}
		return
	}
	if isAssignOp(p) {
		f.stmt = t.end
		if f.annotation || f.decl != bindNone && !f.initializing {
			// the initializer of a declared name, parameter or field
			f.annotation, f.optional = false, false
			f.initializing = f.decl != bindNone
			if f.kind == fkBlock && f.opener == '(' {
				f.sawAssign = true
			}
			return
		}
		if f.decl == bindVar && f.kind == fkBlock && f.opener == '(' {
			f.sawAssign = true
		}
		if i > 0 && invalidTarget(s, i-1) || f.optional {
			c.add(dkAssignTarget, t.start, "", 0, errorWork)
		}
		f.optional = false
	}
}

// invalidTarget reports whether token i cannot end an assignment target (or may not: a ")").
func invalidTarget(s *scanner, i int) bool {
	switch s.toks[i].kind {
	case tkNumber, tkString, tkRegex:
		return true
	case tkTemplate:
		return !s.toks[i].tmplOpen
	case tkIdent:
		switch s.text(i) {
		case "this", "null", "true", "false", "super", "new":
			return !s.afterDot(i)
		case "target", "meta": // new.target, import.meta
			return i >= 2 && s.afterDot(i) && (s.text(i-2) == "new" || s.text(i-2) == "import")
		}
		return false
	}
	return s.text(i) == ")" && !s.toks[i].regexAfter
}

// assign handles an assignment to a name: if the name is declared const (so far), it is counted
// at once, else when the program ends (see assignments): its warning notes a declaration.
func (c *diagChecker) assign(a candidate) {
	if a.name == "eval" || a.name == "arguments" {
		c.strict(dkEvalArguments, a.offset, a.name)
	}
	if r, ok := c.consts[a.name]; ok {
		c.add(dkConstAssign, a.offset, a.name, max(a.offset-r[0], r[1]-a.offset), warningWork)
		return
	}
	c.assigned = append(c.assigned, a)
}

// assignments counts the assignments to names declared const after them.
func (c *diagChecker) assignments() {
	for _, a := range c.assigned {
		if r, ok := c.consts[a.name]; ok {
			c.add(dkConstAssign, a.offset, a.name, max(r[1]-a.offset, a.offset-r[0]), warningWork)
		}
	}
}

// hasOctalEscape reports whether a string or template token holds a legacy octal escape
// ("\1" to "\9", or "\0" followed by a digit).
func hasOctalEscape(txt string) bool {
	for i := 0; i+1 < len(txt); i++ {
		if txt[i] != '\\' {
			continue
		}
		d := txt[i+1]
		if d >= '1' && d <= '9' || d == '0' && i+2 < len(txt) && isDigit(txt[i+2]) {
			return true
		}
		i++
	}
	return false
}

// badRegexFlags reports whether a regular expression token has a repeated or unknown flag.
func badRegexFlags(txt string) bool {
	end := strings.LastIndexByte(txt, '/')
	if end <= 0 {
		return false
	}
	seen := 0
	for _, r := range txt[end+1:] {
		if r < 'a' || r > 'z' || !strings.ContainsRune("dgimsuvy", r) || seen&(1<<(r-'a')) != 0 {
			return true
		}
		seen |= 1 << (r - 'a')
	}
	return false
}
