package transpile

// This file holds the part of the diagnostics pass (diag.go) that follows assignments: what is
// assigned to (a name, which may be declared const, or something that cannot be assigned to), in
// plain assignments, updates ("++", "--") and destructuring assignments ([a, b] = ...).

// candidate is an element of an array or object literal that becomes an assignment target if
// the literal is followed by "=": a name (ok) or something that is not a valid target.
type candidate struct {
	offset int
	name   string
	ok     bool
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

// update handles "++" or "--" at token i in frame f: its operand must be a valid target.
func (c *diagChecker) update(f *dframe, i int) {
	s := c.s
	t := s.toks[i]
	if t.regexAfter && !t.nl || s.regexAfterToken(i-1) { // prefix
		if i+1 < len(s.toks) && invalidTarget(s, i+1) {
			c.add(dkAssignTarget, t.start, "", 0, errorWork)
		}
		return
	}
	if i > 0 && invalidTarget(s, i-1) || f.optional {
		c.add(dkAssignTarget, t.start, "", 0, errorWork)
	}
}

// assignment handles an assignment operator at token i in frame f: its left side must be a valid
// target, unless it starts an initializer.
func (c *diagChecker) assignment(f *dframe, i int) {
	s := c.s
	t := s.toks[i]
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

// isAssignOp reports whether p is an assignment operator.
func isAssignOp(p string) bool {
	switch p {
	case "=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??=":
		return true
	}
	return false
}

// invalidTarget reports whether token i cannot end an assignment target (or may not: a ")").
func invalidTarget(s *tokenList, i int) bool {
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
