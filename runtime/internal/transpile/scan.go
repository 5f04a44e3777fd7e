package transpile

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds a small TypeScript tokenizer. esbuild silently compiles TypeScript that cannot
// simply be erased (enums, runtime namespaces, constructor parameter properties, decorators), so
// coderun looks for those itself, at the token level. The tokenizer understands comments, string
// literals, template literals with nested substitutions and regular expression literals, which it
// tells from division as esbuild's grammar does (see slash.go): by the previous significant
// token, what a "}" closes, and whether a type, a declaration's binding or a statement just ended.
// That reading must equal esbuild's, because the nesting check (nesting.go) counts these tokens:
// a "/" read the other way could hide code from it behind a string or regular expression. Where
// the tokenizer cannot tell, the program is refused (ambiguousSlash). For the checks of this file
// a misreading costs only the quality of an error message or a rejection, never unchecked output:
// esbuild still parses the program, and the engine checks that the compiled script is one
// function (see "Compilation" in transpile.go).

type tokKind uint8

const (
	tkIdent    tokKind = iota // identifier or keyword
	tkPunct                   // punctuator
	tkString                  // '...' or "..."
	tkNumber                  // numeric literal
	tkRegex                   // /.../flags
	tkTemplate                // template literal, or the part of one up to "${" or from "}"
	tkPrivate                 // #name
)

// token is one token; its fields are ordered so that it takes 32 bytes.
type token struct {
	start, end int // byte offsets into the source
	// For "(", "[" and "{": the index of the token that closes it, as the tokenizer pairs
	// brackets (see scanPunct), or 0 when nothing does (and when the index does not fit).
	close int32
	kind  tokKind
	nl    bool // a line terminator (or a comment holding one) precedes the token
	// For ")" and "}": a "/" right after this token starts a regular expression.
	regexAfter bool
	// For tkTemplate: the part ends with "${", so an expression follows.
	tmplOpen bool
	// slashUnknown: the tokenizer cannot tell whether a "/" after the token divides or starts a
	// regular expression (see slash.go).
	slashUnknown bool
	// For ":": it ends a label or a case clause (a statement follows), or it is a conditional
	// expression's (an expression follows).
	label, cond bool
	// stmtStart: the token starts a statement; stmtUnsure: the tokenizer cannot tell.
	stmtStart, stmtUnsure bool
	// bindingEnd: the token ends a declaration's binding (a "/" after it starts a regular
	// expression after a line break, or fails).
	bindingEnd bool
	// For ")": what the parentheses belong to, and whether "async" precedes them.
	role       parenRole
	asyncParen bool
}

// frame is an open bracket: '(', '[', '{', or '`' for a template substitution "${".
type frame struct {
	ch         byte
	start      int
	regexAfter bool // the value copied to the closing token
	tok        int  // the index of the opening token (-1 for the top level)
	// For "{": what it opens, what a "/" after its "}" is, the function it is the body of, and
	// whether its "}" ends a statement (see slash.go).
	kind     braceKind
	after    slashAfter
	fn       fnFlags
	endsStmt bool
	// For "(": what it belongs to; a for head's "of" and ";" seen; "async" before it.
	role             parenRole
	forHead, sawOf   bool
	semi, asyncParen bool
	binding          bool      // for "[": a declaration's destructuring pattern
	st               stmtState // the frame's current statement
	// outerFn is what fnContext returned as the frame was pushed: what is known of the function
	// around it, which nothing changes while the frame is open.
	outerFn fnFlags
}

type scanner struct {
	src   string
	pos   int
	nl    bool
	toks  []token
	stack []frame
	// top is the top level's frame; heads are the pending function and class heads.
	top   frame
	heads []head
	// pattern: the "{" or "[" being opened is a declaration's destructuring pattern.
	pattern bool
	// unmatched is the byte offset of the first closing bracket that matches no opener, or -1.
	unmatched int
	// nestErr is the first place where the program nests too deeply; tokens stop there.
	nestErr *nestingError
	// limits bound the program's compile work (see work.go); work and scopeWork are what the
	// tokens read count.
	limits          workLimits
	work, scopeWork int64
	// poll stops tokenize and the passes over the tokens once the compilation must stop; nil
	// when nothing stops them.
	poll *poller
	// onFnContext, set by tests, is called with every answer of fnContext.
	onFnContext func(fnFlags)
	// braceClose and angles are computed on first use: see matchBrace and angleAcross.
	braceClose []int
	angles     []angleEffect
}

// tokenize splits src into tokens. It never fails: malformed input (an unterminated string, say)
// yields tokens that end early, and esbuild reports the actual syntax error.
//
// The tokens are checked for nesting (see checkNesting) as they are made; tokenizing stops at the
// first token that nests too deeply, which nestErr then describes.
func tokenize(src string) *scanner { return tokenizeUntil(src, nil, defaultWorkLimits) }

// tokenizeUntil is tokenize, stopping early (with the tokens so far) when p says the compilation
// must stop, and bounding the compile work by limits (by the default ones when zero). The scanner
// keeps p for the passes over its tokens.
func tokenizeUntil(src string, p *poller, limits workLimits) *scanner {
	s := newScanner(src, p)
	if limits.programBytes > 0 {
		s.limits = limits
	}
	s.readTokens()
	return s
}

// newScanner returns a scanner of src that has read no token yet.
func newScanner(src string, p *poller) *scanner {
	s := &scanner{src: src, unmatched: -1, poll: p, limits: defaultWorkLimits}
	s.top = frame{tok: -1, kind: bkStmts, fn: fnBoundary | fnKnown | fnAsync}
	return s
}

// readTokens reads the tokens of s.src (see tokenizeUntil).
func (s *scanner) readTokens() {
	p := s.poll
	n := newNester(s.limits)
	defer func() { s.work, s.scopeWork = n.work, n.scopeWork }()
	for {
		s.skipSpace()
		if s.pos >= len(s.src) || p.stop() {
			return
		}
		s.next()
		for ; n.next < len(s.toks); n.next++ {
			if s.nestErr = n.step(s, n.next); s.nestErr != nil {
				return
			}
		}
	}
}

func (s *scanner) skipSpace() {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\n' || c == '\r':
			s.nl = true
			s.pos++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			s.pos++
		case c == '/' && s.pos+1 < len(src) && src[s.pos+1] == '/':
			s.skipLineComment()
		case c == '/' && s.pos+1 < len(src) && src[s.pos+1] == '*':
			end := strings.Index(src[s.pos+2:], "*/")
			if end < 0 {
				end = len(src)
			} else {
				end += s.pos + 4
			}
			if hasLineTerminator(src[s.pos:end]) {
				s.nl = true
			}
			s.pos = end
		case c == '<' && strings.HasPrefix(src[s.pos:], "<!--"):
			s.skipLineComment() // Annex B HTML-like comment
		case c == '-' && s.nl && strings.HasPrefix(src[s.pos:], "-->"):
			s.skipLineComment()
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(src[s.pos:])
			switch {
			case r == '\u2028' || r == '\u2029':
				s.nl = true
			case r == '\uFEFF' || unicode.IsSpace(r):
			default:
				return
			}
			s.pos += size
		default:
			return
		}
	}
}

func (s *scanner) skipLineComment() {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if c == '\n' || c == '\r' || isLSPS(s.src, s.pos) {
			return
		}
		s.pos++
	}
}

// isLSPS reports whether U+2028 or U+2029 starts at src[i].
func isLSPS(src string, i int) bool {
	return src[i] == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9)
}

func hasLineTerminator(s string) bool {
	return strings.ContainsAny(s, "\n\r\u2028\u2029")
}

func (s *scanner) emit(kind tokKind, start int) *token {
	if len(s.toks) == cap(s.toks) {
		// Double the slice: append grows large slices by a quarter, which copies a
		// megabyte program's tokens about twenty times over.
		toks := make([]token, len(s.toks), max(256, 2*cap(s.toks)))
		copy(toks, s.toks)
		s.toks = toks
	}
	s.toks = append(s.toks, token{kind: kind, start: start, end: s.pos, nl: s.nl})
	s.nl = false
	return &s.toks[len(s.toks)-1]
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '\\'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// identEnd returns the end of the identifier characters starting at i.
func identEnd(src string, i int) int {
	for i < len(src) {
		c := src[i]
		switch {
		case isIdentStart(c) || isDigit(c):
			if c == '\\' && i+2 < len(src) && src[i+1] == 'u' && src[i+2] == '{' {
				if j := strings.IndexByte(src[i:], '}'); j > 0 {
					i += j
				}
			}
			i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(src[i:])
			if r == '\u2028' || r == '\u2029' || r == '\uFEFF' || unicode.IsSpace(r) {
				return i
			}
			i += size
		default:
			return i
		}
	}
	return i
}

// punctLen returns the length of the punctuator at the start of s (longest match).
func punctLen(s string) int {
	for _, n := range [...]int{4, 3, 2} {
		if len(s) >= n && isPunct(s[:n]) {
			return n
		}
	}
	return 1
}

// isPunct reports whether p is a multi-character punctuator.
func isPunct(p string) bool {
	switch p {
	case ">>>=",
		"...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
		"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=",
		"%=", "&=", "|=", "^=", "<<", ">>", "**":
		return true
	}
	return false
}

func (s *scanner) next() {
	src := s.src
	start := s.pos
	c := src[start]
	switch {
	case c == '`':
		s.pos++
		s.scanTemplate(start)
		return // scanTemplate tracks its token
	case c == '"' || c == '\'':
		s.scanString(c)
		s.emit(tkString, start)
	case isDigit(c) || c == '.' && start+1 < len(src) && isDigit(src[start+1]):
		s.scanNumber()
		s.emit(tkNumber, start)
	case c == '#' && start+1 < len(src) && (isIdentStart(src[start+1]) || src[start+1] >= utf8.RuneSelf):
		s.pos = identEnd(src, start+1)
		s.emit(tkPrivate, start)
	case isIdentStart(c) || c >= utf8.RuneSelf:
		s.pos = identEnd(src, start)
		if s.pos == start { // a lone backslash or an unexpected character
			s.pos += max(1, utf8RuneLen(src[start:]))
			s.emit(tkPunct, start)
		} else {
			s.emit(tkIdent, start)
		}
	case c == '/':
		if s.slashIsRegex() {
			s.scanRegex()
			s.emit(tkRegex, start)
			break
		}
		s.pos++
		if s.pos < len(src) && src[s.pos] == '=' {
			s.pos++
		}
		s.emit(tkPunct, start)
	case c == '}' && len(s.stack) > 0 && s.stack[len(s.stack)-1].ch == '`':
		s.stack = s.stack[:len(s.stack)-1]
		s.trimHeads()
		s.pos++
		s.scanTemplate(start)
		return
	default:
		s.scanPunct()
		return // scanPunct tracks its token
	}
	s.track(len(s.toks) - 1)
}

func utf8RuneLen(s string) int {
	_, size := utf8.DecodeRuneInString(s)
	return size
}

func (s *scanner) scanString(quote byte) {
	src := s.src
	s.pos++
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\\':
			s.pos++
			if strings.HasPrefix(src[s.pos:], "\r\n") {
				s.pos += 2 // a line continuation
			} else if s.pos < len(src) {
				s.pos += utf8RuneLen(src[s.pos:])
			}
		case c == quote:
			s.pos++
			return
		case c == '\n' || c == '\r':
			return // unterminated
		default:
			s.pos++
		}
	}
}

func (s *scanner) scanNumber() {
	src := s.src
	start := s.pos
	hex := strings.HasPrefix(src[start:], "0x") || strings.HasPrefix(src[start:], "0X")
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.':
			s.pos++
		case (c == '+' || c == '-') && !hex && (src[s.pos-1] == 'e' || src[s.pos-1] == 'E'):
			s.pos++
		default:
			return
		}
	}
}

// scanTemplate scans template characters from s.pos (just after "`" or the "}" closing a
// substitution) up to and including the closing "`" or the next "${".
func (s *scanner) scanTemplate(start int) {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\\':
			s.pos += 2
		case c == '`':
			s.pos++
			s.emit(tkTemplate, start)
			s.track(len(s.toks) - 1)
			return
		case c == '$' && s.pos+1 < len(src) && src[s.pos+1] == '{':
			s.pos += 2
			s.emit(tkTemplate, start).tmplOpen = true
			s.track(len(s.toks) - 1)
			s.push(frame{ch: '`', start: s.pos - 2, tok: len(s.toks) - 1})
			return
		default:
			s.pos++
		}
	}
	s.pos = len(src)
	s.emit(tkTemplate, start) // unterminated
	s.track(len(s.toks) - 1)
}

func (s *scanner) scanRegex() {
	src := s.src
	s.pos++
	inClass := false
loop:
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\\':
			s.pos++
			if s.pos < len(src) && src[s.pos] != '\n' && src[s.pos] != '\r' {
				s.pos += utf8RuneLen(src[s.pos:])
			}
		case c == '[':
			inClass = true
			s.pos++
		case c == ']':
			inClass = false
			s.pos++
		case c == '/' && !inClass:
			s.pos++
			break loop
		case c == '\n' || c == '\r' || isLSPS(src, s.pos):
			return // unterminated
		default:
			s.pos++
		}
	}
	s.pos = identEnd(src, s.pos) // flags
}

func (s *scanner) scanPunct() {
	src := s.src
	start := s.pos
	n := punctLen(src[start:])
	if n == 2 && src[start:start+2] == "?." && start+2 < len(src) && isDigit(src[start+2]) {
		n = 1 // a ? .5 : b
	}
	s.pos += n
	c := src[start]
	switch c {
	case '(', '[', '{':
		f := frame{ch: c, start: start}
		switch c {
		case '(':
			f.regexAfter = s.controlParen()
		case '{':
			f.regexAfter = s.braceIsBlock()
		}
		s.emit(tkPunct, start)
		i := len(s.toks) - 1
		s.track(i)
		switch c {
		case '(':
			s.initParen(&f, i)
		case '{':
			s.initBrace(&f, i)
		default:
			f.tok = i
			f.binding, s.pattern = s.pattern, false
		}
		s.push(f)
	case ')', ']', '}':
		want := byte('(')
		switch c {
		case ']':
			want = '['
		case '}':
			want = '{'
		}
		t := s.emit(tkPunct, start)
		i := len(s.toks) - 1
		if len(s.stack) > 0 && s.stack[len(s.stack)-1].ch == want {
			fr := s.stack[len(s.stack)-1]
			t.regexAfter = fr.regexAfter
			s.stack = s.stack[:len(s.stack)-1]
			if i <= math.MaxInt32 {
				s.toks[fr.tok].close = int32(i)
			}
			s.closeFrame(&fr, i)
		} else if s.unmatched < 0 {
			s.unmatched = start
		}
		s.track(i)
	default:
		t := s.emit(tkPunct, start)
		if p := src[start:s.pos]; p == "++" || p == "--" || p == "!" {
			// "++" and "--" are postfix (an operator follows) unless they start a line or follow
			// an operator; TypeScript's non-null assertion x! is postfix, a prefix "!" precedes
			// an expression.
			t.regexAfter = t.nl || s.regexAfterToken(len(s.toks)-2)
		}
		s.track(len(s.toks) - 1)
	}
}

// text returns the source text of token i.
func (s *scanner) text(i int) string { return s.src[s.toks[i].start:s.toks[i].end] }

// is reports whether token i exists, has the given kind and text.
func (s *scanner) is(i int, kind tokKind, text string) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind == kind && s.text(i) == text
}

// afterDot reports whether token i follows "." or "?." (a property name, not a keyword).
func (s *scanner) afterDot(i int) bool {
	return s.is(i-1, tkPunct, ".") || s.is(i-1, tkPunct, "?.")
}

// isRegexKeyword reports whether word is a keyword after which an expression, not an operator,
// follows.
func isRegexKeyword(word string) bool {
	switch word {
	case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
		"do", "else", "yield", "await", "extends":
		return true
	}
	return false
}

// regexAllowed reports whether a "/" at the current position starts a regular expression.
func (s *scanner) regexAllowed() bool { return s.regexAfterToken(len(s.toks) - 1) }

// regexAfterToken reports whether an expression (rather than an operator) may follow token i.
func (s *scanner) regexAfterToken(i int) bool {
	if i < 0 {
		return true
	}
	t := s.toks[i]
	if t.bindingEnd {
		return true
	}
	switch t.kind {
	case tkNumber, tkString, tkRegex, tkPrivate:
		return false
	case tkTemplate:
		return t.tmplOpen
	case tkIdent:
		if s.afterDot(i) {
			return false
		}
		switch w := s.text(i); w {
		case "of", "yield", "await":
			return t.regexAfter // decided by trackWord
		default:
			return isRegexKeyword(w)
		}
	}
	switch s.text(i) {
	case ")", "}":
		return t.regexAfter
	case "]":
		return false
	case "++", "--", "!":
		return t.regexAfter // computed by scanPunct
	}
	return true
}

// controlParen reports whether a "(" opened now belongs to if/while/for/with, so that a "/"
// after its ")" starts a regular expression.
func (s *scanner) controlParen() bool {
	i := len(s.toks) - 1
	if i < 0 || s.toks[i].kind != tkIdent || s.afterDot(i) {
		return false
	}
	switch s.text(i) {
	case "if", "while", "for", "with":
		return true
	case "await":
		return s.is(i-1, tkIdent, "for")
	}
	return false
}

// braceIsBlock reports whether a "{" opened now starts a block or body (a "/" after its "}"
// starts a regular expression) rather than an object literal or type (a "/" after it divides).
func (s *scanner) braceIsBlock() bool { return s.braceIsBlockAfter(len(s.toks) - 1) }

// braceIsBlockAfter reports whether a "{" that follows token i (-1: none) starts a block.
func (s *scanner) braceIsBlockAfter(i int) bool {
	if i < 0 {
		return true
	}
	t := s.toks[i]
	switch t.kind {
	case tkIdent:
		return s.afterDot(i) || !isRegexKeyword(s.text(i))
	case tkPunct:
		switch s.text(i) {
		case ";", "{", "}", ")", "=>":
			return true
		}
		return false
	case tkTemplate:
		return !t.tmplOpen
	}
	return true
}

// violation is a construct coderun refuses, located by byte offset.
type violation struct {
	offset  int
	message string
}

// span is a byte range of the source to blank out before esbuild sees it.
type span struct{ start, end int }

// notErasable is appended to the messages about TypeScript that has runtime semantics.
const notErasable = " is not supported (only erasable TypeScript is accepted): "

// check walks the tokens looking for constructs coderun refuses, and for the type-only
// declarations that esbuild cannot parse inside a function body but that erase to nothing
// ("import type ..." and "declare namespace/module/global {...}"). It returns the first
// violation, if any, and the spans to erase; both are incomplete when s.poll stops it.
func (s *scanner) check() (*violation, []span) {
	var erase []span
	toks := s.toks
	for i := 0; i < len(toks); i++ {
		if s.poll.stop() {
			return nil, erase
		}
		t := toks[i]
		switch t.kind {
		case tkPunct:
			if s.text(i) == "@" {
				return &violation{t.start, "decorators are not supported (only erasable TypeScript is accepted): " +
					"call the decorator function explicitly instead, e.g. C = dec(C)"}, erase
			}
			continue
		case tkIdent:
		default:
			continue
		}
		if s.afterDot(i) {
			continue
		}
		switch word := s.text(i); word {
		case "declare":
			if end, ok := s.ambientBlock(i); ok {
				erase = append(erase, span{t.start, toks[end].end})
				i = end
			}
		case "enum":
			if i+1 < len(toks) && toks[i+1].kind == tkIdent {
				if s.is(i-1, tkIdent, "declare") || s.is(i-1, tkIdent, "const") && s.is(i-2, tkIdent, "declare") {
					continue
				}
				at := t.start
				if s.is(i-1, tkIdent, "const") {
					at = toks[i-1].start
				}
				return &violation{at, "TypeScript enum" + notErasable +
					"use a plain object (as const) or a union of string literals"}, erase
			}
		case "namespace", "module":
			if s.namespaceBlock(i) {
				return &violation{t.start, "TypeScript " + word + " block" + notErasable +
					"use a plain object, or \"declare namespace\" for types only"}, erase
			}
		case "import":
			if end, ok := s.typeImport(i); ok {
				erase = append(erase, span{t.start, toks[end].end})
				i = end
				continue
			}
			if i+1 < len(toks) && (toks[i+1].kind == tkIdent || toks[i+1].kind == tkString ||
				s.is(i+1, tkPunct, "{") || s.is(i+1, tkPunct, "*")) {
				return &violation{t.start, "import declarations are not supported: the program is the body of an " +
					"async function, not a module; bindings are already in scope by name (\"import type\" is accepted)"}, erase
			}
		case "export":
			if i+1 < len(toks) && (toks[i+1].kind == tkIdent || s.is(i+1, tkPunct, "{") || s.is(i+1, tkPunct, "*")) {
				return &violation{t.start, "export declarations are not supported: the program is the body of an " +
					"async function, not a module; use return to produce its value"}, erase
			}
		case "constructor":
			if v := s.parameterProperty(i); v != nil {
				return v, erase
			}
		}
	}
	return nil, erase
}

// stmtStart reports whether token i can start a statement: first token, after ";", "{", "}",
// or on a new line.
func (s *scanner) stmtStart(i int) bool {
	if i == 0 || s.toks[i].nl {
		return true
	}
	return s.is(i-1, tkPunct, ";") || s.is(i-1, tkPunct, "{") || s.is(i-1, tkPunct, "}")
}

// ambientBlock recognises "declare namespace A.B {...}", "declare module 'x' {...}",
// "declare module 'x';" and "declare global {...}" starting at token i ("declare"), returning
// the index of its last token.
func (s *scanner) ambientBlock(i int) (int, bool) {
	toks := s.toks
	if !s.stmtStart(i) || i+1 >= len(toks) || toks[i+1].nl || toks[i+1].kind != tkIdent {
		return 0, false
	}
	j := i + 2
	switch s.text(i + 1) {
	case "global":
	case "module":
		if j < len(toks) && toks[j].kind == tkString {
			j++
			if j >= len(toks) || toks[j].nl {
				return j - 1, true
			}
			if s.is(j, tkPunct, ";") {
				return j, true
			}
			break
		}
		fallthrough
	case "namespace":
		j = s.dottedName(j)
		if j < 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	if !s.is(j, tkPunct, "{") {
		return 0, false
	}
	return s.matchBrace(j)
}

// dottedName skips "A.B.C" starting at token j and returns the index after it, or -1.
func (s *scanner) dottedName(j int) int {
	if j >= len(s.toks) || s.toks[j].kind != tkIdent {
		return -1
	}
	j++
	for s.is(j, tkPunct, ".") && j+1 < len(s.toks) && s.toks[j+1].kind == tkIdent {
		j += 2
	}
	return j
}

// matchBrace returns the index of the "}" closing the "{" at token j, counting braces only (not
// parentheses or brackets): the first "}" after which as many "}" as "{" follow j. The pairs are
// computed once, in one pass over the tokens, so that many unclosed "{" (each of which used to
// be followed to the end of the program) cost one pass in all.
func (s *scanner) matchBrace(j int) (int, bool) {
	if s.braceClose == nil {
		s.braceClose = s.pairBraces()
	}
	if k := s.braceClose[j]; k > 0 {
		return k, true
	}
	return 0, false
}

// pairBraces returns, for each "{" token, the index of the "}" matchBrace pairs it with, or 0;
// it stops early (leaving the rest 0) when s.poll says the compilation must stop.
func (s *scanner) pairBraces() []int {
	closes := make([]int, len(s.toks))
	var open []int
	for k, t := range s.toks {
		if s.poll.stop() {
			break
		}
		if t.kind != tkPunct || t.end-t.start != 1 {
			continue
		}
		switch s.src[t.start] {
		case '{':
			open = append(open, k)
		case '}':
			if n := len(open); n > 0 {
				closes[open[n-1]] = k
				open = open[:n-1]
			}
		}
	}
	return closes
}

// namespaceBlock recognises a runtime "namespace A.B {" or "module A {" / "module 'x' {" at
// token i (which is not preceded by "declare": those were erased).
func (s *scanner) namespaceBlock(i int) bool {
	toks := s.toks
	if i+1 >= len(toks) || toks[i+1].nl {
		return false
	}
	j := i + 1
	switch {
	case s.text(i) == "module" && toks[j].kind == tkString:
		j++
	case toks[j].kind == tkIdent && isRegexKeyword(s.text(j)):
		return false // namespace in {...}: an expression
	default:
		if j = s.dottedName(j); j < 0 {
			return false
		}
	}
	return s.is(j, tkPunct, "{")
}

// typeImport recognises "import type X from 'm'", "import type { A } from 'm'" and
// "import type * as N from 'm'" (optionally followed by import attributes and ";") at token i,
// returning the index of its last token.
func (s *scanner) typeImport(i int) (int, bool) {
	toks := s.toks
	if !s.is(i+1, tkIdent, "type") || i+2 >= len(toks) {
		return 0, false
	}
	switch {
	case s.is(i+2, tkPunct, "{"), s.is(i+2, tkPunct, "*"):
	case toks[i+2].kind == tkIdent:
		if s.text(i+2) == "from" && i+3 < len(toks) && toks[i+3].kind == tkString {
			return 0, false // import type from 'm': a default import named "type"
		}
	default:
		return 0, false
	}
	for k := i + 2; k < len(toks) && !s.poll.stop(); k++ {
		if toks[k].kind == tkPunct {
			switch s.text(k) {
			case ";", "=", "(", ")", "}":
				if s.text(k) != "}" || !s.is(k+1, tkIdent, "from") {
					return 0, false
				}
			}
		}
		if !s.is(k, tkIdent, "from") || k+1 >= len(toks) || toks[k+1].kind != tkString {
			continue
		}
		end := k + 1
		if (s.is(end+1, tkIdent, "with") || s.is(end+1, tkIdent, "assert")) && !toks[end+1].nl && s.is(end+2, tkPunct, "{") {
			if close, ok := s.matchBrace(end + 2); ok {
				end = close
			}
		}
		if s.is(end+1, tkPunct, ";") {
			end++
		}
		return end, true
	}
	return 0, false
}

// isParamModifier reports whether word is a TypeScript modifier that turns a constructor
// parameter into a property.
func isParamModifier(word string) bool {
	switch word {
	case "public", "private", "protected", "readonly", "override":
		return true
	}
	return false
}

// parameterProperty looks for a parameter property in the parameter list of "constructor" at
// token i. It reads the list's own tokens and steps over every bracket in it (the closing
// tokens of check say where each one ends), so that a token is read by the walk of the one
// list it is directly in, however deeply constructors nest, and the walks of a program read
// each token at most once in all.
//
// In a program whose brackets balance it finds exactly what a walk counting every bracket
// would. In one whose brackets do not (which esbuild refuses anyway), it stops at a closing
// bracket that closes nothing and at an opening bracket that is never closed, where that walk
// would go on.
func (s *scanner) parameterProperty(i int) *violation {
	toks := s.toks
	if !s.is(i+1, tkPunct, "(") {
		return nil
	}
	end := len(toks)
	if c := toks[i+1].close; c > 0 {
		end = int(c)
	}
	angle := 0
	inType, paramStart := false, true
	for k := i + 2; k < end && !s.poll.stop(); k++ {
		t := toks[k]
		if t.kind == tkIdent && paramStart {
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
		case "(", "[", "{":
			if t.close == 0 {
				return nil // the rest of the program is inside this bracket
			}
			if inType {
				angle = s.angleAcross(k).apply(angle)
			}
			k = int(t.close)
		case ")", "]", "}":
			return nil // it closes no bracket of the list: the brackets do not balance
		case ",":
			if angle == 0 {
				paramStart, inType = true, false
				continue
			}
		case ":":
			if angle == 0 {
				inType = true
			}
		case "=":
			if angle == 0 {
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
			continue // a parameter decorator; reported on its own
		}
		paramStart = false
	}
	return nil
}

// angleEffect is what a run of tokens does to the count of "<" a type in a parameter list has
// open ("<" adds one, ">", ">>" and ">>>" take away as many, never below 0): it turns a count
// n into max(floor, n+shift). Such effects compose into one of the same form.
type angleEffect struct{ floor, shift int32 }

// apply returns the count after the tokens, given the count n before them.
func (e angleEffect) apply(n int) int { return max(int(e.floor), n+int(e.shift)) }

// then returns the effect of e's tokens followed by g's. Values saturate at the int32 limits,
// which is exact for every program of fewer than 2^31 tokens: no count can reach the limit.
func (e angleEffect) then(g angleEffect) angleEffect {
	sat := func(v int64) int32 { return int32(min(max(v, math.MinInt32), math.MaxInt32)) }
	return angleEffect{
		floor: sat(max(int64(g.floor), int64(e.floor)+int64(g.shift))),
		shift: sat(int64(e.shift) + int64(g.shift)),
	}
}

// angleAcross returns the effect of the tokens inside the bracket opened at token k (which is
// closed), nested brackets included. The effects of every bracket are computed once, in one
// pass over the tokens.
func (s *scanner) angleAcross(k int) angleEffect {
	if s.angles == nil {
		s.angles = s.angleEffects()
	}
	return s.angles[k]
}

// angleEffects returns, for each opening bracket that is closed, the effect of the tokens
// inside it; it stops early when s.poll says the compilation must stop.
func (s *scanner) angleEffects() []angleEffect {
	effects := make([]angleEffect, len(s.toks))
	type open struct {
		tok    int
		effect angleEffect
	}
	var stack []open
	add := func(e angleEffect) {
		if n := len(stack); n > 0 {
			stack[n-1].effect = stack[n-1].effect.then(e)
		}
	}
	for k, t := range s.toks {
		if s.poll.stop() {
			break
		}
		if t.kind != tkPunct {
			continue
		}
		switch p := s.text(k); p {
		case "(", "[", "{":
			if t.close > 0 {
				stack = append(stack, open{tok: k})
			}
		case ")", "]", "}":
			// Closed brackets nest, so the innermost one open is the only one k can close.
			if n := len(stack); n > 0 && int(s.toks[stack[n-1].tok].close) == k {
				top := stack[n-1]
				stack = stack[:n-1]
				effects[top.tok] = top.effect
				add(top.effect)
			}
		case "<":
			add(angleEffect{shift: 1})
		case ">", ">>", ">>>":
			add(angleEffect{shift: int32(-len(p))})
		}
	}
	return effects
}
