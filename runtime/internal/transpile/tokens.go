package transpile

// This file holds the token list: what the tokenizer (tokenize.go) makes of a program, and what
// every later pass of the scan reads. Once tokenize returns, the list does not change: each pass
// keeps its own state beside it (see doc.go).

// tokenList is a program's tokens, as the tokenizer read them, and what it found of the brackets.
// The passes after the tokenizer only read it.
type tokenList struct {
	src  string
	toks []token
	// unmatched is the byte offset of the first closing bracket that matches no opener, or -1.
	unmatched int
	// open are the brackets left open where the tokenizer stopped, outermost first.
	open []openBracket
}

// openBracket is a bracket the tokenizer left open: '(', '[', '{', or '`' for a template
// substitution "${", at byte offset start.
type openBracket struct {
	ch    byte
	start int
}

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

// text returns the source text of token i.
func (l *tokenList) text(i int) string { return l.src[l.toks[i].start:l.toks[i].end] }

// is reports whether token i exists, has the given kind and text.
func (l *tokenList) is(i int, kind tokKind, text string) bool {
	return i >= 0 && i < len(l.toks) && l.toks[i].kind == kind && l.text(i) == text
}

// afterDot reports whether token i follows "." or "?." (a property name, not a keyword).
func (l *tokenList) afterDot(i int) bool {
	return l.is(i-1, tkPunct, ".") || l.is(i-1, tkPunct, "?.")
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

// regexAfterToken reports whether an expression (rather than an operator) may follow token i.
func (l *tokenList) regexAfterToken(i int) bool {
	if i < 0 {
		return true
	}
	t := l.toks[i]
	if t.bindingEnd {
		return true
	}
	switch t.kind {
	case tkNumber, tkString, tkRegex, tkPrivate:
		return false
	case tkTemplate:
		return t.tmplOpen
	case tkIdent:
		if l.afterDot(i) {
			return false
		}
		switch w := l.text(i); w {
		case "of", "yield", "await":
			return t.regexAfter // decided by trackWord
		default:
			return isRegexKeyword(w)
		}
	}
	switch l.text(i) {
	case ")", "}":
		return t.regexAfter
	case "]":
		return false
	case "++", "--", "!":
		return t.regexAfter // computed by scanPunct
	}
	return true
}

// braceIsBlockAfter reports whether a "{" that follows token i (-1: none) starts a block.
func (l *tokenList) braceIsBlockAfter(i int) bool {
	if i < 0 {
		return true
	}
	t := l.toks[i]
	switch t.kind {
	case tkIdent:
		return l.afterDot(i) || !isRegexKeyword(l.text(i))
	case tkPunct:
		switch l.text(i) {
		case ";", "{", "}", ")", "=>":
			return true
		}
		return false
	case tkTemplate:
		return !t.tmplOpen
	}
	return true
}

// stmtStart reports whether token i can start a statement: first token, after ";", "{", "}",
// or on a new line.
func (l *tokenList) stmtStart(i int) bool {
	if i == 0 || l.toks[i].nl {
		return true
	}
	return l.is(i-1, tkPunct, ";") || l.is(i-1, tkPunct, "{") || l.is(i-1, tkPunct, "}")
}

// endsStatement reports whether token i may end a statement: a line break after it, before a
// token that cannot continue the expression, inserts a semicolon.
func (l *tokenList) endsStatement(i int) bool {
	t := l.toks[i]
	switch t.kind {
	case tkIdent:
		if l.afterDot(i) {
			return true // a property name
		}
		w := l.text(i)
		return !isRegexKeyword(w) && !recursingWords[w] && !continuingWords[w]
	case tkPunct:
		switch l.text(i) {
		case ")", "}":
			return !t.regexAfter || l.text(i) == "}"
		case "]":
			return true
		case "++", "--":
			return !l.regexAfterToken(i - 1)
		}
		return false
	case tkTemplate:
		return !t.tmplOpen
	}
	return true
}

// continuingWords are words that can follow an operand on the next line in the same statement,
// or precede one: never a statement boundary.
var continuingWords = map[string]bool{
	"else": true, "catch": true, "finally": true, "while": true, "as": true, "satisfies": true, "in": true,
	"instanceof": true, "of": true, "extends": true, "implements": true, "is": true, "let": true,
	"const": true, "var": true, "type": true, "declare": true, "namespace": true, "module": true,
	"interface": true, "static": true, "get": true, "set": true, "public": true, "private": true,
	"protected": true, "override": true, "accessor": true, "export": true, "enum": true, "global": true,
}

// startsStatement reports whether token i, after a line break, cannot continue the expression
// before it, so that the line break ends a statement.
func (l *tokenList) startsStatement(i int) bool {
	t := l.toks[i]
	switch t.kind {
	case tkIdent:
		return !continuingWords[l.text(i)]
	case tkNumber, tkString, tkPrivate:
		return true
	case tkPunct:
		switch l.text(i) {
		case "!", "~", "++", "--":
			return true
		}
	}
	return false
}

// controlWordBefore reports whether the "(" at token i follows a keyword whose parenthesized head
// is an expression: if, while, for, with, switch.
func (l *tokenList) controlWordBefore(i int) bool {
	if i == 0 || l.toks[i-1].kind != tkIdent || l.afterDot(i-1) {
		return false
	}
	switch l.text(i - 1) {
	case "if", "while", "for", "with", "switch", "await":
		return true
	}
	return false
}

// prevPunct returns the text of token i-1 if it is a punctuator.
func (l *tokenList) prevPunct(i int) string {
	if i == 0 || l.toks[i-1].kind != tkPunct {
		return ""
	}
	return l.text(i - 1)
}
