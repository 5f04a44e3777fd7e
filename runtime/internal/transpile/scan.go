package transpile

import (
	"fmt"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// This file holds PhaseScan, which runs coderun's own passes over the program before esbuild
// sees it (see doc.go), and the errors located with what the tokenizer saw of the brackets.

// scan is PhaseScan: it runs coderun's passes over the program (see "The scan" in doc.go) and
// returns the text to give esbuild, and the first construct coderun refuses (reported unless
// esbuild finds an earlier syntax error). err is a failure that must be reported at once: a NUL
// character, a program over the bounds or whose diagnostics would cost too much (all *Error), the
// compilation stopped by its context (see poller), or Options.Reserve's error.
func (c *compilation) scan() (input string, refused *Error, err error) {
	if i := strings.IndexByte(c.src, 0); i >= 0 {
		return "", nil, c.at(i, `SyntaxError: source contains a NUL character (U+0000), which the engine cannot load: `+
			`write "\0" or "\u0000" inside string literals instead`)
	}
	bounds, err := c.tokenize()
	if err != nil {
		return "", nil, err
	}
	if err := c.pass(passCheck); err != nil {
		return "", nil, err
	}
	v, erase := newErasableCheck(c.tokens, c.poll).check()
	if c.poll.err != nil {
		return "", nil, c.poll.err // check stopped early: v and erase are incomplete
	}
	if n := bounds.err; n != nil {
		// The tokenizer stopped at n: esbuild must not see a program over the limits, even when a
		// refused construct comes earlier (esbuild over 1 MiB of "@d " takes 88 MiB); report the
		// earlier of the two at once.
		return "", nil, c.earlier(v, n.offset, n.message)
	}
	if err := c.pass(passDiagnostics); err != nil {
		return "", nil, err
	}
	if d := checkDiagnostics(c.tokens, c.poll, len(inputHeader)); d != nil {
		// esbuild would take too long over this program: report the earlier of this and the
		// refused construct at once.
		return "", nil, c.earlier(v, d.offset, d.message)
	}
	if err := c.pass(passLines); err != nil {
		return "", nil, err
	}
	c.lines = newLineIndex(c.src)
	if err := c.pass(passBlank); err != nil {
		return "", nil, err
	}
	if v != nil {
		refused = c.refused(v)
	}
	return inputHeader + blank(c.src, erase) + inputFooter, refused, nil
}

// tokenize is the scan's tokenizer with its bounds (see tokenizeBounded): it sets c.tokens and
// c.work, and returns what the bounds found.
func (c *compilation) tokenize() (bounds, error) {
	if err := c.pass(passTokenize); err != nil {
		return bounds{}, err
	}
	// The tokenizer reserves the scan's memory as it reads (see memory.go): the first tokens'
	// now, with what every compilation takes.
	if err := c.reserve(compileBaseBytes + scanBytesPerLook); err != nil {
		return bounds{}, err
	}
	c.poll.reserve, c.poll.perLook = c.opts.Reserve, scanBytesPerLook
	tokens, b := tokenizeBounded(c.src, c.poll, c.limits)
	c.poll.perLook = 0
	c.tokens, c.work = tokens, b.work
	return b, nil
}

// at locates a failure of the scan at byte offset of the program, without indexing its lines.
func (c *compilation) at(offset int, msg string) *Error {
	l, col := positionOf(c.src, offset)
	return &Error{Line: l, Column: col, Message: msg}
}

// refused is the error for the construct v, which the erasable-syntax pass refuses. It is named
// like the engine's own rejections, so that a model reads it as the syntax error it is.
func (c *compilation) refused(v *violation) *Error { return c.at(v.offset, "SyntaxError: "+v.message) }

// earlier returns the error at offset, with msg, unless v (nil if none) comes first.
func (c *compilation) earlier(v *violation, offset int, msg string) *Error {
	if v == nil || offset < v.offset {
		return c.at(offset, msg)
	}
	return c.refused(v)
}

// before reports whether a is located before b.
func before(a, b *Error) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// blank returns src with the given spans replaced by a ";" followed by spaces, keeping line
// terminators and the UTF-16 length of every character so that positions do not move.
func blank(src string, spans []span) string {
	if len(spans) == 0 {
		return src
	}
	var b strings.Builder
	b.Grow(len(src))
	last := 0
	for _, sp := range spans {
		b.WriteString(src[last:sp.start])
		b.WriteByte(';')
		for _, r := range src[sp.start+1 : sp.end] {
			switch {
			case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
				b.WriteRune(r)
			case r > 0xFFFF:
				b.WriteString("  ")
			default:
				b.WriteByte(' ')
			}
		}
		last = sp.end
	}
	b.WriteString(src[last:])
	return b.String()
}

// esbuildError converts an esbuild diagnostic about the wrapped input into an *Error located in
// the user's source.
func esbuildError(m api.Message, lines *lineIndex, sc *tokenList) *Error {
	if m.Location == nil {
		return &Error{Message: "SyntaxError: " + m.Text}
	}
	loc := m.Location
	line := loc.Line - 1 // the header takes input line 1
	col := utf16Col(loc.LineText, loc.Column) + 1
	switch {
	case line > lines.lines():
		// The error is in the footer: the program ended early, typically with a bracket left
		// open or one closed too many. Point at the culprit when the tokenizer saw it.
		if e := bracketError(sc, lines); e != nil {
			return e
		}
		if e := templateError(sc, lines, m.Text); e != nil {
			return e
		}
		l, c := lines.end()
		return &Error{Line: l, Column: c, Message: "SyntaxError: " + footerText(m.Text)}
	case line < 1:
		line, col = 1, 1
	}
	e := &Error{Line: line, Column: col, Message: "SyntaxError: " + m.Text}
	if sc.unmatched >= 0 {
		// A "}" the program never opened closes the function itself, and esbuild complains
		// about what follows; report the "}" instead when it comes first.
		if b := bracketError(sc, lines); b != nil && !before(e, b) {
			return b
		}
	}
	return e
}

// footerText words esbuild's text about the wrapper's footer ("\n})"), which the user never
// wrote, as what the user did write: a program that ended early. `Unexpected "}"` becomes
// "Unexpected end of program", `Expected ";" but found "}"` `Expected ";" but found the end of the
// program`; other texts (an unterminated comment, say) get " at the end of the program".
func footerText(text string) string {
	for _, closer := range []string{`"}"`, `")"`} {
		if rest, ok := strings.CutPrefix(text, "Unexpected "+closer); ok {
			return "Unexpected end of program" + rest
		}
		if head, ok := strings.CutSuffix(text, " but found "+closer); ok {
			return head + " but found the end of the program"
		}
	}
	return text + " at the end of the program"
}

// templateError reports a template literal left unterminated, which esbuild calls an
// "Unterminated string literal" (text) at the end of the input: at the template's opening "`", as
// a template literal. nil when the program's last token is not such a template.
func templateError(sc *tokenList, lines *lineIndex, text string) *Error {
	if !strings.HasPrefix(text, "Unterminated string literal") || len(sc.toks) == 0 {
		return nil
	}
	last := len(sc.toks) - 1
	t := sc.toks[last]
	if t.kind != tkTemplate || t.end != len(sc.src) || templateClosed(sc.src[t.start:t.end]) {
		return nil
	}
	l, c := lines.position(sc.toks[templateHead(sc, last)].start)
	return &Error{Line: l, Column: c, Message: "SyntaxError: Unterminated template literal: the \"`\" that starts it is never closed"}
}

// templateHead returns the index of the token that opens the template literal whose part is
// token i: i itself when it starts with "`", else the head before it (a part that starts with
// "}" resumes the template after a substitution; the tails of complete templates in between
// have their own heads).
func templateHead(sc *tokenList, i int) int {
	depth := 0
	for ; i >= 0; i-- {
		t := sc.toks[i]
		if t.kind != tkTemplate {
			continue
		}
		switch opens := sc.src[t.start] == '`'; {
		case !opens && !t.tmplOpen:
			depth++ // a tail: its template's head is further back
		case opens && t.tmplOpen:
			depth-- // a head with a substitution
		}
		if depth <= 0 && sc.src[t.start] == '`' {
			return i
		}
	}
	return 0
}

// templateClosed reports whether the template token text (from its "`", or from the "}" ending a
// substitution) ends with a "`" that closes it, not escaped by a backslash.
func templateClosed(text string) bool {
	if len(text) < 2 || text[len(text)-1] != '`' {
		return false
	}
	backslashes := 0
	for i := len(text) - 2; i > 0 && text[i] == '\\'; i-- {
		backslashes++
	}
	return backslashes%2 == 0
}

// bracketError describes the first unmatched closing bracket, or else the innermost bracket left
// open, as seen by the tokenizer; nil if brackets balance.
func bracketError(sc *tokenList, lines *lineIndex) *Error {
	if sc.unmatched >= 0 {
		l, c := lines.position(sc.unmatched)
		ch := sc.src[sc.unmatched]
		return &Error{Line: l, Column: c, Message: fmt.Sprintf("SyntaxError: unexpected %q: it closes a bracket that "+
			"was never opened (the program is the body of a function and cannot close it)", string(ch))}
	}
	if n := len(sc.open); n > 0 {
		f := sc.open[n-1]
		l, c := lines.position(f.start)
		open := string(f.ch)
		if f.ch == '`' {
			open = "${"
		}
		return &Error{Line: l, Column: c, Message: fmt.Sprintf("SyntaxError: %q is never closed", open)}
	}
	return nil
}

// shapeError reports esbuild output without the wrapper's shape: a program that closed its
// function in a way that also changed how esbuild prints the wrapper.
func shapeError(sc *tokenList, lines *lineIndex, detail string) *Error {
	if e := bracketError(sc, lines); e != nil {
		return e
	}
	e := escapeError()
	e.Message += ": " + detail
	return e
}

// escapeError is the error for a program that escapes its function where the tokenizer saw no
// bracket to point at (see Program.Escaped).
func escapeError() *Error {
	return &Error{Line: 1, Column: 1, Message: "SyntaxError: the program closes the function it is the body of " +
		"(check that brackets balance)"}
}
