package transpile

import (
	"fmt"
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

// diagCost is what one kind of construct adds up to.
type diagCost struct {
	work   int64
	count  int
	offset int // of the first
	name   string
}

// diagChecker is the state of checkDiagnostics.
type diagChecker struct {
	s *tokenList
	// poll stops the pass once the compilation must stop; nil when nothing stops it.
	poll  *poller
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
func checkDiagnostics(l *tokenList, p *poller, header int) *diagnosticsError {
	c := newDiagChecker(l, p, header)
	if !c.run() {
		return c.reject()
	}
	return nil
}

func newDiagChecker(l *tokenList, p *poller, header int) *diagChecker {
	return &diagChecker{
		s:       l,
		poll:    p,
		header:  header,
		lexical: map[string][]int{},
		labels:  map[string][]int{},
		consts:  map[string][2]int{},
		stack:   []dframe{{kind: fkFunction}},
	}
}

// run adds up the costs of the program's constructs, and reports whether they stay within
// maxDiagnosticWork. It stops when they exceed it, or (reporting true) when c.poll says the
// compilation must stop.
func (c *diagChecker) run() bool {
	for i := range c.s.toks {
		if c.poll.stop() {
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
func bodyAfter(s *tokenList, i int) bool {
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

// punctuator handles a punctuator other than a bracket at token i in frame f.
func (c *diagChecker) punctuator(f *dframe, i int, p string) {
	t := c.s.toks[i]
	if f.optional && p != "." && p != "?." && p != "!" && p != "++" && p != "--" && !isAssignOp(p) {
		f.optional = false // an operator: the next operand starts
	}
	if c.separator(f, i, p) {
		return
	}
	switch p {
	case "=>":
		c.arrow(f, i)
	case "??":
		c.add(dkNullish, t.start, "", t.start-f.stmt, warningWork)
	case "?.":
		f.optional = true
	case "*":
		if w := c.prevText(i); w == "function" || w == "async" || w == "static" || w == "{" || w == "," ||
			w == ";" || w == "}" || t.nl {
			f.pendingGenerator = true
		}
	case "<", "<<", ">", ">>", ">>>":
		n := len(p)
		if p[0] == '>' {
			n = -n
		}
		if f.decl != bindNone {
			f.declAngle += n
		}
		if f.pendingClass || f.pendingInterface {
			f.classAngle += n
		}
	case "++", "--":
		c.update(f, i)
	default:
		if isAssignOp(p) {
			c.assignment(f, i)
		}
	}
}

// separator handles ";", ",", ":" or "?" (p) at token i in frame f, and reports whether p is one.
func (c *diagChecker) separator(f *dframe, i int, p string) bool {
	t := c.s.toks[i]
	switch p {
	case ";":
		c.endStatement(f, t.end)
		f.value = false
	case ",":
		f.stmt = t.end
		f.arrow, f.optional, f.annotation, f.initializing = false, false, false, false
		if f.decl != bindNone && f.declAngle <= 0 {
			f.expect = true
		}
		if f.kind == fkObject {
			f.value = false
		}
	case ":":
		f.stmt = t.end
		f.optional = false
		if f.kind == fkParams || f.kind == fkClass || f.decl != bindNone && !f.initializing {
			f.annotation = true
		}
		if f.kind == fkObject {
			f.value = true
		}
	case "?":
		f.stmt, f.optional = t.end, false
	default:
		return false
	}
	return true
}

// arrow handles "=>" at token i in frame f.
func (c *diagChecker) arrow(f *dframe, i int) {
	s := c.s
	f.stmt = s.toks[i].end
	if c.nextText(i) != "{" {
		f.arrow = true
	}
	if i > 0 && s.toks[i-1].kind == tkIdent {
		c.params = map[string]declared{identName(c.text(i - 1)): {offset: s.toks[i-1].start, kind: bindParam}}
		c.paramsGenerator, c.paramsEnd = false, i
	}
	c.bodyPending = true
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
