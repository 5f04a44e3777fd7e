package transpile

import (
	"strconv"
	"strings"
)

// This file holds the part of the diagnostics pass (diag.go) that reads names and words: the
// declarations of names and where each is first declared, keys of object literals and class
// bodies, case values, labels, and the words strict mode reserves.

// identifier handles an identifier or keyword at token i in frame f.
func (c *diagChecker) identifier(f *dframe, i int) {
	if c.s.afterDot(i) {
		return
	}
	w := c.text(i)
	name := identName(w)
	next := c.nextText(i)
	if c.binding(f, i, name, next) {
		return
	}
	if c.key(f, i) && !(f.kind == fkObject && (next == "," || next == "}" || next == "=")) {
		return // a key, not a shorthand property
	}
	if c.keyword(f, i, w, name, next) {
		return
	}
	c.reference(i, name)
}

// binding handles the name at token i in frame f where it is bound: the next binding of a
// declaration, a name in a destructuring pattern or a parameter list. It reports whether that is
// all there is to it.
func (c *diagChecker) binding(f *dframe, i int, name, next string) bool {
	if f.expect {
		f.expect = false
		c.declare(i, name, len(c.stack)-1, f.decl)
		return true
	}
	if f.pattern && c.bindingPosition(f, i) {
		c.key(f, i) // a shorthand property: {a} is {a: a}
		c.declare(i, name, f.target, f.bind)
		return true
	}
	if f.kind == fkParams && (c.prevText(i) == "(" || c.prevText(i) == "," || c.prevText(i) == "...") {
		switch next {
		case ",", ")", "=", ":", "?", "=>":
			c.declare(i, name, len(c.stack)-1, bindParam)
		}
	}
	return false
}

// keyword handles the word w (name, decoded) at token i in frame f when it is a keyword or
// reserved word, and reports whether it is not also a reference to a name.
func (c *diagChecker) keyword(f *dframe, i int, w, name, next string) bool {
	s := c.s
	t := s.toks[i]
	switch w {
	case "let", "const", "var", "using":
		if c.declaration(f, i, w, next) {
			return true
		}
		if w == "let" {
			c.reserved(f, i, w)
		}
	case "function":
		c.function(f, i, next)
	case "class":
		f.pendingClass, f.classAngle = true, 0
		if name := identName(c.word(i + 1)); name != "" && name != "extends" && name != "implements" && c.statementPosition(f, i) {
			c.declare(i+1, name, len(c.stack)-1, bindLexical)
		}
	case "interface":
		if i+1 < len(s.toks) && s.toks[i+1].kind == tkIdent {
			f.pendingInterface, f.classAngle = true, 0
			return true
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
	default:
		return c.otherWord(f, i, w, name, next)
	}
	return false
}

// declaration handles "let", "const", "var" or "using" (w) at token i in frame f, and reports
// whether it starts a declaration.
func (c *diagChecker) declaration(f *dframe, i int, w, next string) bool {
	s := c.s
	if next == "{" || next == "[" || i+1 < len(s.toks) && s.toks[i+1].kind == tkIdent && !isRegexKeyword(next) {
		if p := c.prevText(i); w != "var" && (p == "else" || p == "do" || p == ")" && s.toks[i-1].regexAfter) {
			c.add(dkSingleStatement, s.toks[i].start, w, 0, errorWork)
		}
		f.decl = map[string]bindKind{"let": bindLexical, "const": bindConst, "var": bindVar, "using": bindConst}[w]
		f.expect = true
		f.declAngle = 0
		return true
	}
	return false
}

// function handles "function" at token i in frame f.
func (c *diagChecker) function(f *dframe, i int, next string) {
	s := c.s
	f.pendingParams = true
	if next == "*" {
		f.pendingGenerator = true
	}
	if !c.statementPosition(f, i) {
		return
	}
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
		c.strict(dkFunctionStatement, s.toks[i].start, "")
	}
}

// otherWord handles the words keyword leaves: reserved words, "yield", "break" and "continue",
// "super", "in" and "of", and labels. It reports whether the word is not also a reference to a
// name.
func (c *diagChecker) otherWord(f *dframe, i int, w, name, next string) bool {
	s := c.s
	t := s.toks[i]
	switch w {
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
		c.forHeadEnd(f, i)
	case "of":
		c.forHeadEnd(f, i)
	default:
		if next == ":" && c.statementPosition(f, i) && (f.kind == fkFunction || f.kind == fkBlock || f.kind == fkSwitch) && !isKeyword(w) {
			c.label(f, i, name)
			return true
		}
	}
	return false
}

// forHeadEnd handles "in" or "of" at token i in frame f, which ends the declaration of a for
// head.
func (c *diagChecker) forHeadEnd(f *dframe, i int) {
	s := c.s
	if f.kind == fkBlock && f.opener == '(' { // a for head
		f.decl, f.expect = bindNone, false
		if s.toks[i-1].kind == tkIdent && c.prevText(i-1) == "(" {
			c.assign(candidate{offset: s.toks[i-1].start, name: identName(c.text(i - 1))})
		}
	}
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
func propertyKey(s *tokenList, i int) string {
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
