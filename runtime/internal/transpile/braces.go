package transpile

// This file follows, for the tokenizer (see slash.go), the function and class heads from their
// keyword to their body, and classifies every "(" and "{" it opens: what a parenthesis belongs
// to, what a brace opens, and so what a "/" after the closing bracket is.

// headKind is the kind of a pending function or class head.
type headKind uint8

const (
	hkFunction headKind = iota
	hkClass
)

// headState is how far a function head has been read.
type headState uint8

const (
	hsName        headState = iota // before the parameters: "*", name, type parameters
	hsParams                       // inside the parameters
	hsAfterParams                  // right after the parameters' ")"
	hsReturnType                   // reading a TypeScript return type
)

// head is a function or class keyword whose body has not started yet.
type head struct {
	depth    int // the number of open brackets at the keyword
	kind     headKind
	state    headState
	after    slashAfter // what a "/" after the body's "}" is
	fn       fnFlags
	closeTok int // the index of the parameters' ")"
	// ambient: a declared function ("declare function f(): T"), which has no body.
	ambient bool
}

// topHead returns the innermost pending head if it belongs to the current frame.
func (s *tokenizer) topHead() *head {
	if n := len(s.heads); n > 0 && s.heads[n-1].depth == len(s.stack) {
		return &s.heads[n-1]
	}
	return nil
}

func (s *tokenizer) popHead() { s.heads = s.heads[:len(s.heads)-1] }

// trimHeads drops the heads of frames that were closed.
func (s *tokenizer) trimHeads() {
	for n := len(s.heads); n > 0 && s.heads[n-1].depth > len(s.stack); n-- {
		s.heads = s.heads[:n-1]
	}
}

// stepHead advances the pending head of the current frame past token i.
func (s *tokenizer) stepHead(i int) {
	h := s.topHead()
	if h == nil || i == h.closeTok {
		return
	}
	semi := s.is(i, tkPunct, ";")
	switch {
	case h.kind == hkClass || h.state == hsName || h.state == hsReturnType:
		if semi {
			s.popHead()
		} else if h.state == hsName && s.is(i, tkPunct, "*") && s.is(i-1, tkIdent, "function") {
			h.fn |= fnGenerator
		}
	case h.state == hsAfterParams:
		switch {
		case s.is(i, tkPunct, ":"):
			h.state = hsReturnType
		case !s.is(i, tkPunct, "{"):
			s.popHead() // no body: an overload, or an error
		}
	}
}

// startHead starts the head of a function or class at token i (the keyword w) in frame f.
func (s *tokenizer) startHead(f *frame, i int, w string) {
	t := s.toks[i]
	j := i // the first token of the declaration
	var fl fnFlags
	if i > 0 && !t.nl && s.toks[i-1].kind == tkIdent && !s.afterDot(i-1) {
		switch p := s.text(i - 1); {
		case w == "function" && p == "async":
			j, fl = i-1, fnAsync
		case w == "class" && (p == "abstract" || p == "declare"):
			j = i - 1
		}
	}
	if s.memberName(f, j) {
		return // a method or property named "function" or "class"
	}
	h := head{depth: len(s.stack), state: hsName, fn: fl | fnKnown, closeTok: -1}
	h.ambient = w == "function" && s.is(j-1, tkIdent, "declare") && !s.afterDot(j-1)
	if w == "class" {
		h.kind = hkClass
	}
	switch {
	case f.ch == '{' && (f.kind == bkUnknown || f.kind == bkType), s.toks[j].stmtUnsure:
		h.after = slashUnknown
	case s.toks[j].stmtStart:
		h.after = slashRegex // a declaration
	default:
		h.after = slashDivide // an expression
	}
	s.heads = append(s.heads, h)
}

// memberName reports whether token j, in frame f, is where an object literal or class body
// names a member.
func (s *tokenizer) memberName(f *frame, j int) bool {
	if f.ch != '{' || f.kind != bkObject && f.kind != bkClass || j == 0 {
		return false
	}
	if f.kind == bkClass && s.toks[j].nl && s.endsStatement(j-1) {
		return true
	}
	switch p := s.text(j - 1); s.toks[j-1].kind {
	case tkPunct:
		return p == "{" || p == "," || p == ";" || p == "}" || p == "*"
	case tkIdent:
		switch p {
		case "static", "get", "set", "async", "public", "private", "protected", "readonly", "override",
			"declare", "abstract", "accessor":
			return true
		}
	}
	return false
}

// initParen sets up the frame of a "(" at token i.
func (s *tokenizer) initParen(fr *frame, i int) {
	fr.tok = i
	switch h := s.topHead(); {
	case h != nil && h.kind == hkFunction && h.state == hsName:
		fr.role = prParams
		h.state = hsParams
	case fr.regexAfter:
		fr.role = prControl
		fr.forHead = s.is(i-1, tkIdent, "for") || s.is(i-1, tkIdent, "await")
	case i > 0 && !s.afterDot(i-1) && (s.is(i-1, tkIdent, "switch") || s.is(i-1, tkIdent, "catch")):
		fr.role = prBlockHead
	case s.methodParams(i):
		fr.role = prMethod
	}
	fr.asyncParen = i > 0 && !s.toks[i].nl && s.is(i-1, tkIdent, "async") && !s.afterDot(i-1)
}

// methodParams reports whether a "(" at token i starts a method's parameters: in an object
// literal or class body, right after a member's name (or its type parameters).
func (s *tokenizer) methodParams(i int) bool {
	f := s.cur()
	if i == 0 || f.ch != '{' || f.kind != bkObject && f.kind != bkClass {
		return false
	}
	switch p := s.toks[i-1]; p.kind {
	case tkIdent, tkString, tkNumber, tkPrivate:
		return s.memberName(f, i-1) // not "a: f(x)"
	case tkPunct:
		return s.text(i-1) == "]" || s.text(i-1) == ">"
	}
	return false
}

// initBrace sets up the frame of a "{" at token i.
func (s *tokenizer) initBrace(fr *frame, i int) {
	fr.tok = i
	var arrow bool
	fr.kind, fr.after, fr.fn, arrow = s.classifyBrace(s.cur(), i)
	if s.pattern {
		s.pattern = false
		fr.kind, fr.after, fr.fn, arrow = bkObject, slashRegex, 0, false
	}
	switch fr.after {
	case slashRegex:
		fr.regexAfter = true
		fr.endsStmt = !arrow
	case slashDivide:
		fr.regexAfter = false
	}
}

// closeFrame records on token i, which closes frame fr, what the tokenizer knows of it.
func (s *tokenizer) closeFrame(fr *frame, i int) {
	t := &s.toks[i]
	s.trimHeads()
	switch fr.ch {
	case '(':
		t.role, t.asyncParen = fr.role, fr.asyncParen
		if h := s.topHead(); fr.role == prParams && h != nil && h.state == hsParams {
			h.state, h.closeTok = hsAfterParams, i
		}
	case '[':
		t.bindingEnd = fr.binding
	case '{':
		t.slashUnknown = fr.after == slashUnknown
		if f := s.cur(); fr.endsStmt && f.kind == bkStmts {
			f.st = stmtState{} // a statement ended
		}
	}
}

// classifyBrace returns what a "{" at token i in frame f opens, what a "/" after its "}" is and,
// for a function's body, the function's flags; arrow reports an arrow function's body.
func (s *tokenizer) classifyBrace(f *frame, i int) (kind braceKind, after slashAfter, fn fnFlags, arrow bool) {
	if kind, after, fn, ok := s.braceAfterHead(f, i); ok {
		return kind, after, fn, false
	}
	if i == 0 || s.toks[i].stmtStart && !s.toks[i].stmtUnsure {
		return bkStmts, slashRegex, 0, false // a block
	}
	if f.st.poison || s.toks[i].stmtUnsure {
		return bkUnknown, slashUnknown, 0, false
	}
	p := i - 1
	pt := s.toks[p]
	ptext := s.text(p)
	if pt.kind == tkIdent && !s.afterDot(p) && (ptext == "as" || ptext == "satisfies") && f.st.asType {
		return bkType, slashDivide, 0, false // the expression goes on after the type
	}
	if f.st.typeish() {
		if f.st.annotMethod && f.st.angle == 0 && s.endsType(p) {
			// A method's body after its return type.
			f.st.annot, f.st.annotMethod = false, false
			return bkStmts, slashRegex, fnBoundary, false
		}
		if pt.kind == tkPunct && ptext == "=>" && !f.st.asType {
			// An arrow function's body after its return type, or a function type's object type
			// in an annotation: a statement or the "/" fails after either.
			return bkStmts, slashRegex, fnBoundary, true
		}
		return bkType, slashUnknown, 0, false
	}
	switch pt.kind {
	case tkPunct:
		return s.braceAfterPunct(f, p)
	case tkIdent:
		if s.afterDot(p) {
			return bkStmts, slashRegex, 0, false
		}
		switch ptext {
		case "else", "try", "finally", "do", "static":
			return bkStmts, slashRegex, 0, false
		case "return", "yield":
			if s.toks[i].nl {
				return bkStmts, slashRegex, 0, false // a restricted production: the statement ended
			}
			return bkObject, slashDivide, 0, false
		case "await", "of":
			if s.toks[i].nl {
				return bkUnknown, slashUnknown, 0, false // a keyword, or an identifier before a block
			}
			return bkObject, slashDivide, 0, false
		case "let", "const", "var", "using":
			return bkObject, slashDivide, 0, false
		}
		if isRegexKeyword(ptext) {
			return bkObject, slashDivide, 0, false
		}
	case tkTemplate:
		if pt.tmplOpen {
			return bkObject, slashDivide, 0, false
		}
	}
	// After an operand: a block after a line break, a TypeScript declaration's body, or an error.
	return bkStmts, slashRegex, 0, false
}

// braceAfterHead classifies a "{" at token i in frame f that a pending function or class head
// of f explains (ok), dropping the heads it ends.
func (s *tokenizer) braceAfterHead(f *frame, i int) (kind braceKind, after slashAfter, fn fnFlags, ok bool) {
	if h := s.topHead(); h != nil && h.ambient && (h.state == hsAfterParams ||
		h.state == hsReturnType && f.st.angle == 0 && s.endsType(i-1)) {
		s.popHead() // a declared function has no body: a "{" after it starts a block, or fails
		f.st.annot, f.st.annotArrow = false, false
	}
	h := s.topHead()
	if h == nil {
		return 0, 0, 0, false
	}
	switch {
	case h.kind == hkFunction && (h.state == hsAfterParams || h.state == hsReturnType && f.st.angle == 0 && s.endsType(i-1)):
		s.popHead()
		if h.state == hsReturnType {
			f.st.annot, f.st.annotArrow = false, false // the return type ended
		}
		return bkStmts, h.after, h.fn | fnBoundary, true
	case h.kind == hkFunction && h.state == hsReturnType:
		return bkType, slashUnknown, 0, true // a type in the return type
	case h.kind == hkClass && s.classBodyAfter(i-1):
		s.popHead()
		return bkClass, h.after, 0, true
	case h.kind == hkClass && !s.is(i-1, tkIdent, "extends"):
		// Neither the body nor an object literal right after "extends": the head is lost.
		s.popHead()
		return bkUnknown, slashUnknown, 0, true
	}
	return 0, 0, 0, false
}

// braceAfterPunct classifies a "{" after the punctuator at token p in frame f.
func (s *tokenizer) braceAfterPunct(f *frame, p int) (braceKind, slashAfter, fnFlags, bool) {
	pt := s.toks[p]
	switch s.text(p) {
	case ";":
		if f.ch == '(' {
			return bkObject, slashDivide, 0, false // in a for head
		}
		return bkStmts, slashRegex, 0, false
	case "{", "}", "]":
		return bkStmts, slashRegex, 0, false
	case ")":
		switch {
		case pt.role == prControl || pt.role == prBlockHead:
			return bkStmts, slashRegex, 0, false
		case pt.role == prParams:
			return bkStmts, slashUnknown, fnBoundary, false
		case f.ch == '{' && f.kind == bkStmts:
			return bkStmts, slashRegex, 0, false // a block after a line break, or an error
		}
		return bkStmts, slashRegex, fnBoundary, false // a method's body, or an error
	case "=>":
		return bkStmts, slashRegex, s.arrowFlags(p), true
	case ":":
		switch {
		case pt.label:
			return bkStmts, slashRegex, 0, false
		case pt.cond, f.ch == '(' || f.ch == '[' || f.ch == '`', f.ch == '{' && f.kind == bkObject:
			return bkObject, slashDivide, 0, false
		}
		return bkUnknown, slashUnknown, 0, false
	case "++", "--", "!":
		if pt.regexAfter {
			return bkObject, slashDivide, 0, false // a prefix operator
		}
		return bkStmts, slashRegex, 0, false
	}
	return bkObject, slashDivide, 0, false
}

// arrowFlags returns the flags of the arrow function whose "=>" is token p.
func (s *tokenizer) arrowFlags(p int) fnFlags {
	q := p - 1
	if q < 0 {
		return fnBoundary
	}
	known := fnBoundary | fnKnown
	switch t := s.toks[q]; {
	case t.kind == tkPunct && s.text(q) == ")":
		if t.asyncParen {
			return known | fnAsync
		}
		return known
	case t.kind == tkIdent && !s.afterDot(q):
		if q > 0 && !t.nl && s.is(q-1, tkIdent, "async") && !s.afterDot(q-1) {
			return known | fnAsync
		}
		if q == 0 || s.is(q-1, tkPunct, "(") || s.is(q-1, tkPunct, ",") || s.is(q-1, tkPunct, "=") {
			return known
		}
	}
	return fnBoundary // a return type, or an unusual position
}

// endsType reports whether a "{" after token p, in a function's return type, is the body rather
// than an object type.
func (s *tokenizer) endsType(p int) bool {
	t := s.toks[p]
	switch t.kind {
	case tkIdent:
		if s.afterDot(p) {
			return true
		}
		switch s.text(p) {
		case "extends", "keyof", "is", "typeof", "readonly", "infer", "unique", "new", "asserts", "abstract":
			return false
		}
		return true
	case tkPunct:
		switch s.text(p) {
		case ")", "]", "}", ">":
			return true
		}
		return false
	case tkTemplate:
		return !t.tmplOpen
	}
	return true
}

// classBodyAfter reports whether a "{" after token p, in a class head, is the class body rather
// than part of the heritage (an object literal, a type).
func (s *tokenizer) classBodyAfter(p int) bool {
	t := s.toks[p]
	switch t.kind {
	case tkIdent:
		switch w := s.text(p); {
		case s.afterDot(p) || w == "class":
			return true
		case w == "of" || w == "await" || w == "yield":
			return !t.regexAfter // an identifier ends the heritage
		default:
			return !isRegexKeyword(w) && w != "implements"
		}
	case tkPunct:
		switch s.text(p) {
		case ")", "]", "}", ">":
			return true
		case "!":
			return !t.regexAfter // TypeScript's non-null assertion
		}
		return false
	case tkTemplate:
		return !t.tmplOpen
	}
	return true
}
