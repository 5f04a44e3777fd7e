package transpile

import (
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// This file lets through plain JavaScript that esbuild refuses only because its parser is older
// than the language the engine implements: an "await using" declaration in the head of a
// for (;;) loop, which the explicit resource management proposal allows and esbuild v0.28 does
// not ("await using" only in a for-of head, js_parser.go).
//
// Such a program cannot be printed by esbuild, so it can run only as the user wrote it (see
// verbatim): the engine parses it, and checks that it is one function (quickjs.CheckOneFunction),
// as for every verbatim program. What esbuild must still show is that the program is plain
// JavaScript, with no type syntax to erase and nothing TypeScript reads differently. So each
// refused "await using" is respelled "let" padded with spaces (same length, same lines, and a
// declaration in the same place), and the respelled input must then pass both of esbuild's
// readings, alike, as any verbatim program does. The engine still gets the original text, and
// refuses what it does not allow (such as "await using" in a for-in head, which esbuild refuses
// with the same message).

// awaitUsingRefused is esbuild's error for an "await using" declaration where it allows none.
const awaitUsingRefused = `"await using" declarations are not allowed here`

// respellAwaitUsing returns input with every "await using" that errs locate written as "let"
// padded with spaces, when every error is awaitUsingRefused, each locates "await", spaces or tabs
// and "using" followed by a space or tab, and input can be verbatim at all.
func respellAwaitUsing(input string, errs []api.Message) (string, bool) {
	if len(errs) == 0 || !verbatimCandidate(input) {
		return "", false
	}
	b := []byte(input)
	// Line starts are found once, in the input's order: esbuild reports errors in source order.
	line, at := 1, 0
	for _, m := range errs {
		loc := m.Location
		if m.Text != awaitUsingRefused || loc == nil || loc.Line < line {
			return "", false
		}
		for ; line < loc.Line; line++ {
			i := strings.IndexByte(input[at:], '\n')
			if i < 0 {
				return "", false
			}
			at += i + 1
		}
		n, ok := awaitUsingAt(input, at+loc.Column)
		if !ok {
			return "", false
		}
		copy(b[at+loc.Column:], "let")
		for i := at + loc.Column + len("let"); i < at+loc.Column+n; i++ {
			b[i] = ' '
		}
	}
	return string(b), true
}

// awaitUsingAt returns the length of "await", spaces or tabs and "using" at input[i:], when
// they are there and a space or tab follows.
func awaitUsingAt(input string, i int) (int, bool) {
	if i < 0 || i > len(input) {
		return 0, false
	}
	s, ok := strings.CutPrefix(input[i:], "await")
	if !ok {
		return 0, false
	}
	rest := strings.TrimLeft(s, " \t")
	if len(rest) == len(s) {
		return 0, false
	}
	if rest, ok = strings.CutPrefix(rest, "using"); !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return 0, false
	}
	return len(input) - i - len(rest), true
}

// respelled compiles input, which esbuild refused with errs (syntax is the first, as reported),
// as the user's own text when no construct coderun refuses was found before esbuild ran (refused
// is nil), respellAwaitUsing or else respellAddedIdentifiers (newident.go) applies, and the
// respelled input is plain JavaScript (see the top of this file). Otherwise it returns syntax.
// It makes two more esbuild passes over the program, each after a look at the compilation's
// context, with their memory reserved first.
func (c *compilation) respelled(input string, errs []api.Message, syntax, refused *Error) (*Program, error) {
	if refused != nil || c.opts.esbuildOutput || len(errs) == 0 || !verbatimCandidate(input) {
		return nil, syntax
	}
	alt, ok := respellAwaitUsing(input, errs)
	if !ok {
		alt, ok = c.respellAddedIdentifiers(input)
		if c.poll.err != nil {
			return nil, c.poll.err
		}
	}
	if !ok {
		return nil, syntax
	}
	if c.poll.check() {
		return nil, c.poll.err
	}
	if err := c.reserve(esbuildMemory(c.tokens, c.work)); err != nil {
		return nil, err
	}
	out := printAs(alt, api.LoaderTS)
	if !strings.HasPrefix(out, minHeader) || !strings.HasSuffix(out, minFooter) {
		return nil, syntax
	}
	if c.poll.check() {
		return nil, c.poll.err
	}
	if printAsJS(alt) != out {
		return nil, syntax
	}
	body := input[len(inputHeader) : len(input)-len(inputFooter)]
	js := outputHeader + directiveText + ";\n" + body + outputFooter
	return &Program{js: js, lines: strings.Split(js, "\n"), verbatim: true, userLines: c.lines.lines(),
		brackets: bracketError(c.tokens, c.lines), closes: c.tokens.unmatched >= 0}, nil
}
