package transpile

// This file decides what a "/" is where the previous token does not tell: after "}", after
// "of", "yield" and "await", after a TypeScript type, after ">" and after a declaration's binding.
// esbuild's parser decides it from the grammar: a regular expression where an operand is expected
// (a statement starts, or an operator precedes), a division where an operand precedes.
//
// The tokenizer cannot parse, but it must read every "/" the way esbuild does: if it took the
// start of a regular expression for a division (or the reverse), it would tokenize the rest of the
// line differently from esbuild, and a quote or backtick inside a regular expression read as code
// (or brackets inside one read as a regular expression) could hide code from the nesting pass. So:
//   - For every "{" the tokenizer records, from the tokens before it, what it opens: a statement
//     list after which a statement starts (a block, a switch body, the body of a function or class
//     declaration, or of an arrow function, after which esbuild either starts a statement or fails
//     at the "/"): a regular expression follows its "}"; an expression (an object literal or
//     pattern, the body of a function or class expression, a type after "as" or "satisfies"): a
//     division follows; or something it cannot tell (a TypeScript type in an annotation or alias,
//     a "{" whose context it lost).
//   - Function and class heads are followed from the keyword to the body, so that the body of a
//     function or class expression is told from a block.
//   - A frame remembers, for its current statement, the "?" not yet matched by ":", whether a
//     "case" clause is open, whether a TypeScript type is being read (an annotation ":", "type X
//     =", "as", "satisfies", a return type) and whether a declaration's binding comes next, and
//     ends the statement where esbuild inserts a semicolon.
//   - After a type annotation, a line break ends the statement and a "/" starts a regular
//     expression; after an as-type the expression goes on and a "/" divides; where the tokenizer
//     cannot tell whether the type ended before the "/", and the two readings differ, it refuses.
//     After a declaration's binding ("let a"), a "/" starts a regular expression (after a line
//     break; on the same line esbuild fails). After a ">" that may close type arguments ("f<T>"),
//     esbuild divides; a "/" there is refused unless no "<" is open in the statement.
//   - "of" is the keyword of a for-of head right after the head's left-hand side and an
//     identifier elsewhere; "await" is a keyword in the program's top level and in async
//     functions, an identifier in other functions; "yield" is a keyword in generators. Where the
//     enclosing function is not known (a method, an arrow function's expression body,
//     parameters), a "/" after them is refused.
//
// Every decision errs on the side of "cannot tell" where the reading is uncertain; such a program
// is refused (ambiguousSlash) only when a "/" actually follows. TestSlashDifferential checks the
// decisions against esbuild's own reading on thousands of generated programs.

// braceKind is what a "{" opens.
type braceKind uint8

const (
	bkUnknown braceKind = iota // not known
	bkStmts                    // a statement list: block, function or arrow body, switch body, static block
	bkObject                   // an object literal or destructuring pattern
	bkClass                    // a class body
	bkType                     // a TypeScript type or interface body
)

// slashAfter is what a "/" after a "}" is.
type slashAfter uint8

const (
	slashUnknown slashAfter = iota // the checker cannot tell
	slashRegex                     // a regular expression starts
	slashDivide                    // a division
)

// fnFlags describe the function whose body a "{" frame is.
type fnFlags uint8

const (
	fnBoundary  fnFlags = 1 << iota // the frame is a function's body
	fnKnown                         // fnAsync and fnGenerator are known
	fnAsync                         // an async function: "await" is a keyword
	fnGenerator                     // a generator: "yield" is a keyword
)

// parenRole is what a "(" belongs to.
type parenRole uint8

const (
	prOther     parenRole = iota
	prControl             // if, while, for, with: a statement follows the ")"
	prBlockHead           // switch, catch: a "{" follows that holds statements
	prParams              // a function head's parameters
	prMethod              // a method's parameters (in an object literal or class body)
)

// stmtState is what a frame remembers of its current statement (or list element).
type stmtState struct {
	questions int32 // "?" not yet matched by ":"
	caseOpen  bool  // a "case" clause's ":" is pending
	annot     bool  // a TypeScript type annotation or alias is being read
	alias     bool  // the statement is a type alias: its "=" does not end the type
	asType    bool  // a type after "as" or "satisfies" is being read
	arrow     bool  // an arrow function started in the statement (its body may be an expression)
	// annotArrow: the annotation is a return type (its ":" follows ")"), which "=>" or a method's
	// body ends; angle counts the type's "<" not yet closed by ">".
	annotArrow bool
	// annotMethod: the annotation is a method's return type, which the method's body ends.
	annotMethod bool
	angle       int32
	// lt counts the "<" not yet closed by ">" in the statement: a "<" may open TypeScript type
	// arguments ("f<T>" in an expression), after whose ">" esbuild reads "/" as a division.
	lt int32
	// decl: a let, const or var declaration; declBinding: its next binding comes next, after
	// which a line break ends the statement.
	decl, declBinding bool
	// poison: the tokenizer cannot tell whether a line break ended the statement; every "/" and
	// "{" that depends on it is refused until the statement ends.
	poison bool
}

func (st *stmtState) typeish() bool { return st.annot || st.asType }

// cur returns the innermost open frame, or the top level.
func (s *tokenizer) cur() *frame {
	if n := len(s.stack); n > 0 {
		return &s.stack[n-1]
	}
	return &s.top
}

// track updates the statement state of the current frame with token i, just made. For an
// opening bracket it runs before the bracket's frame is pushed, for a closing one after its frame
// was popped.
func (s *tokenizer) track(i int) {
	t := &s.toks[i]
	f := s.cur()
	asi, unsure := s.asiBefore(f, i)
	if asi {
		f.st = stmtState{}
		if h := s.topHead(); h != nil && h.state == hsReturnType && !s.is(i, tkPunct, "{") {
			s.popHead() // "function f(): T" without a body
		}
	}
	if unsure {
		f.st.poison = true
	}
	t.stmtStart, t.stmtUnsure = s.stmtStartAt(f, i, asi, unsure)
	s.stepHead(i)
	if f.st.declBinding {
		f.st.declBinding = false
		switch {
		case t.kind == tkIdent:
			t.bindingEnd = true // a "/" after it starts a regular expression (after a line break) or fails
		case s.is(i, tkPunct, "{") || s.is(i, tkPunct, "["):
			s.pattern = true // a destructuring pattern, after whose "}" or "]" the same holds
		}
	}
	switch t.kind {
	case tkIdent:
		if !s.afterDot(i) {
			s.trackWord(f, i)
		}
	case tkPunct:
		s.trackPunct(f, i)
	}
}

// asiBefore reports whether a line break before token i, in frame f, ends the statement: after
// an operand, a declaration's binding or a type annotation, before a token that cannot go on
// with them. unsure: that depends on whether "of" or "await" before the line break is a keyword,
// which the tokenizer could not tell.
func (s *tokenizer) asiBefore(f *frame, i int) (asi, unsure bool) {
	t := s.toks[i]
	if !t.nl || i == 0 || f.ch != 0 && f.ch != '{' {
		return false, false // no semicolon is inserted inside brackets
	}
	if h := s.topHead(); h != nil && !h.ambient && s.is(i, tkPunct, "{") {
		return false, false // a function's or class's body
	}
	p := s.toks[i-1]
	var ends bool
	switch w := s.text(i - 1); {
	case f.st.annot && !f.st.asType && f.st.angle == 0 && s.mayEndType(i-1), p.bindingEnd:
		// A type goes on after a line break only with "|", "&" or ".", a declaration with "=",
		// "," or ":".
		if t.kind == tkPunct {
			switch s.text(i) {
			case "|", "&", ".", "=", ",", "=>", "?", ":", ">", "!":
				return false, false
			}
		}
		return true, false
	case p.kind == tkIdent && !s.afterDot(i-1) && w == "yield":
		ends = true // a restricted production, or an identifier
	case p.kind == tkIdent && !s.afterDot(i-1) && (w == "of" || w == "await"):
		if p.slashUnknown {
			return false, s.beginsLine(i)
		}
		ends = !p.regexAfter // an identifier
	case f.st.asType && f.st.angle == 0 && s.mayEndType(i-1):
		ends = true
	default:
		ends = s.endsStatement(i - 1)
	}
	return ends && s.beginsLine(i), false
}

// beginsLine reports whether token i, after a line break, cannot go on with the expression before
// it, so that a semicolon is inserted before it.
func (s *tokenizer) beginsLine(i int) bool {
	switch t := s.toks[i]; t.kind {
	case tkIdent:
		w := s.text(i)
		return w != "in" && w != "instanceof"
	case tkNumber, tkString, tkPrivate:
		return true
	case tkPunct:
		switch s.text(i) {
		case "{", "!", "~", "++", "--":
			return true
		}
	}
	return false
}

// stmtStartAt reports whether token i starts a statement of frame f (asi: a line break before
// it ended the statement; unsure: the tokenizer cannot tell that).
func (s *tokenizer) stmtStartAt(f *frame, i int, asi, unsure bool) (start, notSure bool) {
	if f.ch != 0 && f.ch != '{' || f.kind != bkStmts {
		return false, false
	}
	if i == 0 || i-1 == f.tok || asi {
		return true, false
	}
	if unsure {
		return false, true
	}
	p := s.toks[i-1]
	switch p.kind {
	case tkPunct:
		switch s.text(i - 1) {
		case ";", "}":
			return true, false
		case ")":
			return p.role == prControl, false
		case ":":
			return p.label, false
		}
	case tkIdent:
		if !s.afterDot(i - 1) {
			switch s.text(i - 1) {
			case "else", "do":
				return true, false
			case "return", "break", "continue", "throw":
				return s.toks[i].nl, false
			}
		}
	}
	return false, false
}

// trackWord handles an identifier or keyword (not a property name) in frame f.
func (s *tokenizer) trackWord(f *frame, i int) {
	t := &s.toks[i]
	switch w := s.text(i); w {
	case "case":
		if t.stmtStart {
			f.st.caseOpen = true
		}
	case "as", "satisfies":
		if !t.nl && i > 0 && !s.regexAfterToken(i-1) {
			f.st.asType = true
		}
	case "type":
		if t.stmtStart {
			f.st.annot, f.st.alias = true, true
		}
	case "let", "const", "var":
		if t.stmtStart || f.forHead && i-1 == f.tok {
			f.st.decl, f.st.declBinding = true, true
		}
	case "function", "class":
		s.startHead(f, i, w)
	case "of":
		s.trackOf(f, i)
	case "yield":
		fl := s.fnContext()
		t.regexAfter = true
		t.slashUnknown = fl&fnKnown == 0 || fl&fnGenerator == 0
	case "await":
		switch fl := s.fnContext(); {
		case fl&fnKnown == 0:
			t.regexAfter, t.slashUnknown = true, true
		default:
			t.regexAfter = fl&fnAsync != 0 // a keyword, or an identifier
		}
	}
}

// trackPunct handles a punctuator in frame f.
func (s *tokenizer) trackPunct(f *frame, i int) {
	t := &s.toks[i]
	switch s.text(i) {
	case ";":
		f.st = stmtState{}
		f.semi = true
	case ",":
		if f.st.lt == 0 {
			f.st.arrow = false // not inside type arguments
		}
		if f.st.angle == 0 {
			f.st.asType = false
		}
		if f.st.decl && f.st.lt == 0 && f.st.angle == 0 {
			f.st.declBinding = true
		}
	case "=":
		if f.st.angle == 0 {
			f.st.asType = false
			if !f.st.alias {
				f.st.annot, f.st.annotArrow = false, false
			}
		}
	case "<", "<<":
		n := int32(t.end - t.start)
		f.st.lt += n
		if f.st.typeish() {
			f.st.angle += n
		}
	case ">", ">>", ">>>":
		n := int32(t.end - t.start)
		// After type arguments a "/" divides, after a comparison it starts a regular expression.
		t.slashUnknown = f.st.lt > 0
		f.st.lt = max(0, f.st.lt-n)
		if f.st.typeish() {
			f.st.angle = max(0, f.st.angle-n)
		}
	case "?":
		f.st.questions++
	case "=>":
		f.st.arrow = true
		if f.st.annotArrow && f.st.angle == 0 {
			f.st.annot, f.st.annotArrow = false, false // the arrow function's return type ended
		}
	case ":":
		switch {
		case f.st.caseOpen && f.st.questions == 0:
			t.label, f.st.caseOpen = true, false
		case f.st.questions > 0:
			f.st.questions--
			t.cond = true
		case i > 0 && s.toks[i-1].kind == tkIdent && s.toks[i-1].stmtStart && !s.toks[i-1].stmtUnsure:
			t.label = true
		case f.ch == '{' && f.kind == bkObject && !s.is(i-1, tkPunct, ")"):
			// a property's value follows
		default:
			f.st.annot = true // a TypeScript type annotation
			if s.is(i-1, tkPunct, ")") {
				// A method's, a function's or an arrow function's return type.
				f.st.annotMethod = s.toks[i-1].role == prMethod
				f.st.annotArrow = s.toks[i-1].role == prOther
			}
		}
	}
}

// trackOf decides whether "of" at token i is the keyword of a for-of head.
func (s *tokenizer) trackOf(f *frame, i int) {
	t := &s.toks[i]
	t.regexAfter = false // an identifier
	if f.ch != '(' || !f.forHead || f.sawOf || f.semi || i-1 == f.tok {
		return
	}
	if p := s.toks[i-1]; p.kind == tkIdent && !s.afterDot(i-1) {
		switch s.text(i - 1) {
		case "let", "const", "var", "using", "async":
			t.regexAfter, t.slashUnknown = true, true // "for (let of ...": a name or the keyword
			return
		}
	}
	if s.endsOperand(i - 1) {
		t.regexAfter, f.sawOf = true, true
	}
}

// endsOperand reports whether token i can end an operand (the left-hand side of a for-of head).
func (s *tokenizer) endsOperand(i int) bool {
	t := s.toks[i]
	switch t.kind {
	case tkIdent:
		w := s.text(i)
		return s.afterDot(i) || w == "of" || !isRegexKeyword(w)
	case tkPunct:
		switch s.text(i) {
		case ")", "]", "}":
			return true
		}
		return false
	case tkTemplate:
		return !t.tmplOpen
	}
	return true
}

// fnContext returns what is known of the function whose code the current token is in: the top
// level is an async function; 0 when the checker cannot tell (a method, a class field, an
// arrow function's expression body, parameters). The current frame tells, or else the frames
// around it, whose answer it kept when it was pushed (see push): no token walks the stack.
func (s *tokenizer) fnContext() fnFlags {
	fl := s.frameFnContext()
	if s.onFnContext != nil {
		s.onFnContext(fl)
	}
	return fl
}

// frameFnContext is fnContext, without the hook of tests.
func (s *tokenizer) frameFnContext() fnFlags {
	f := s.cur()
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
	return f.outerFn
}

// push opens frame f. Nothing changes the frames around f while it is open (only the current
// frame follows the tokens), so what fnContext says of them now holds until f closes.
func (s *tokenizer) push(f frame) {
	f.outerFn = s.fnContext()
	s.stack = append(s.stack, f)
}

// slashIsRegex reports whether a "/" at the current position starts a regular expression. In a
// TypeScript type (an annotation, an alias, a type after "as" or "satisfies"), a "/" right after
// a token that may end the type is read as esbuild reads it after the type: a regular expression
// after an annotation (a line break ended the statement), a division after an as-type (the
// expression goes on). Where that differs from the reading outside a type, the tokenizer cannot
// tell whether the type ended before the "/" and marks the token before it (see ambiguousSlash).
func (s *tokenizer) slashIsRegex() bool {
	i := len(s.toks) - 1
	regex := s.regexAllowed()
	if i < 0 {
		return regex
	}
	f := s.cur()
	if f.st.poison {
		s.toks[i].slashUnknown = true
		return regex
	}
	if !f.st.typeish() || !s.mayEndType(i) {
		return regex
	}
	if f.st.annot && f.st.asType || f.st.annot != regex {
		s.toks[i].slashUnknown = true
	}
	return regex
}

// mayEndType reports whether token i may be the last token of a type.
func (s *tokenizer) mayEndType(i int) bool {
	t := s.toks[i]
	switch t.kind {
	case tkIdent, tkString, tkNumber:
		return true
	case tkTemplate:
		return !t.tmplOpen
	case tkPunct:
		switch s.text(i) {
		case ")", "]", "}", ">", ">>", ">>>", "!":
			return true
		}
	}
	return false
}
