package transpile

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the tokenizer: it splits a program into the tokens every later pass reads
// (tokens.go), and stops. It understands comments, string literals, template literals with nested
// substitutions and regular expression literals, which it tells from division as esbuild's grammar
// does (see slash.go): by the previous significant token, what a "}" closes, and whether a type, a
// declaration's binding or a statement just ended. That reading must equal esbuild's, because the
// nesting pass (nesting.go) counts these tokens: a "/" read the other way could hide code from it
// behind a string or regular expression. Where the tokenizer cannot tell, it marks the token before
// the "/" (slashUnknown), and the nesting pass refuses the program (ambiguousSlash).

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

// tokenizer is the state of the tokenizer: its position, and what it knows of the open brackets
// and of the function and class heads it has read, to tell what a "/" is (see slash.go). It
// appends to its token list, which it hands over when it stops.
type tokenizer struct {
	tokenList
	pos int
	nl  bool
	// stack holds the open brackets; top is the top level's frame; heads are the pending
	// function and class heads.
	stack []frame
	top   frame
	heads []head
	// pattern: the "{" or "[" being opened is a declaration's destructuring pattern.
	pattern bool
	// poll stops the tokenizer once the compilation must stop; nil when nothing stops it.
	poll *poller
	// onFnContext, set by tests, is called with every answer of fnContext.
	onFnContext func(fnFlags)
}

// tokenize splits src into tokens, checking them against the default nesting and work bounds as
// tokenizeBounded does (see nesting.go). It never fails: malformed input (an unterminated string,
// say) yields tokens that end early, and esbuild reports the actual syntax error.
func tokenize(src string) *tokenList {
	l, _ := tokenizeBounded(src, nil, defaultWorkLimits)
	return l
}

// newTokenizer returns a tokenizer of src that has read no token yet, stopped by p.
func newTokenizer(src string, p *poller) *tokenizer {
	s := &tokenizer{tokenList: tokenList{src: src, unmatched: -1}, poll: p}
	s.top = frame{tok: -1, kind: bkStmts, fn: fnBoundary | fnKnown | fnAsync}
	return s
}

// run reads the tokens of src until its end, or until the poller says the compilation must stop,
// and returns the list. observe, when not nil, is called with the index of each token once it is
// read, in order; when it returns false, run stops there. (The tokenizer may still set a few fields
// of a token after it was observed: the index that closes a bracket, the marks a "/" leaves on the
// token before it.)
func (s *tokenizer) run(observe func(i int) bool) *tokenList {
	next := 0
	for {
		s.skipSpace()
		if s.pos >= len(s.src) || s.poll.stop() {
			break
		}
		s.next()
		for ; observe != nil && next < len(s.toks); next++ {
			if !observe(next) {
				return s.finish()
			}
		}
	}
	return s.finish()
}

// finish records the brackets left open and hands over the list.
func (s *tokenizer) finish() *tokenList {
	l := &s.tokenList
	for _, f := range s.stack {
		l.open = append(l.open, openBracket{ch: f.ch, start: f.start})
	}
	return l
}

func (s *tokenizer) skipSpace() {
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

func (s *tokenizer) skipLineComment() {
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

func (s *tokenizer) emit(kind tokKind, start int) *token {
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

func (s *tokenizer) next() {
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

func (s *tokenizer) scanString(quote byte) {
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

func (s *tokenizer) scanNumber() {
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
func (s *tokenizer) scanTemplate(start int) {
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

func (s *tokenizer) scanRegex() {
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

func (s *tokenizer) scanPunct() {
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

// regexAllowed reports whether a "/" at the current position starts a regular expression.
func (s *tokenizer) regexAllowed() bool { return s.regexAfterToken(len(s.toks) - 1) }

// controlParen reports whether a "(" opened now belongs to if/while/for/with, so that a "/"
// after its ")" starts a regular expression.
func (s *tokenizer) controlParen() bool {
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
func (s *tokenizer) braceIsBlock() bool { return s.braceIsBlockAfter(len(s.toks) - 1) }
