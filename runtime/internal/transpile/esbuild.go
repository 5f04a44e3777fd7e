package transpile

import (
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// This file holds the calls to esbuild beside the TypeScript pass: reading the program as
// JavaScript, to tell whether the engine can get the user's own text (verbatim), and the log
// overrides every call uses.

// concurrentReadBytes is the largest wrapped input readAsJS prints beside the TypeScript pass.
// A larger one is printed after it, as the last esbuild call, so that a compilation never holds
// two passes over a large program at once, and a cancel during the TypeScript pass waits for no
// second one.
const concurrentReadBytes = 64 << 10

// jsReading is esbuild's printing of the wrapped input read as JavaScript (see readAsJS).
type jsReading struct {
	input string
	done  chan struct{} // closed when the printing made beside the TypeScript pass is done; nil if none
	code  string        // "" when the input is not a candidate or does not parse as JavaScript
	read  bool          // code is known
}

// readAsJS prepares printing input read as JavaScript, with the options of the TypeScript pass but
// the loader, when the input can be verbatim at all (verbatimCandidate). A small input is printed
// at once on a goroutine of its own, beside the TypeScript pass; a large one when result asks.
// join must be called before the compilation returns.
func readAsJS(input string, hook func()) *jsReading {
	r := &jsReading{input: input}
	switch {
	case !verbatimCandidate(input):
		r.read = true
	case len(input) <= concurrentReadBytes:
		r.done = make(chan struct{})
		go func() {
			defer close(r.done)
			if hook != nil {
				hook()
			}
			r.code = printAsJS(input)
		}()
	}
	return r
}

// join waits for the printing made beside the TypeScript pass, if there is one.
func (r *jsReading) join() {
	if r.done != nil {
		<-r.done
	}
}

// result returns the printing, making it now if it was left for later.
func (r *jsReading) result() string {
	r.join()
	if r.done == nil && !r.read {
		r.code, r.read = printAsJS(r.input), true
	}
	r.input = ""
	return r.code
}

// printAsJS is esbuild's printing of input read as JavaScript, or "" when it does not parse.
func printAsJS(input string) string { return printAs(input, api.LoaderJS) }

// printAs is esbuild's printing of input read with loader, as the TypeScript pass prints but
// without a source map, or "" when it does not parse.
func printAs(input string, loader api.Loader) string {
	res := api.Transform(input, api.TransformOptions{
		Loader:           loader,
		Target:           api.ESNext,
		MinifyWhitespace: true,
		LegalComments:    api.LegalCommentsNone,
		LogOverride:      silencedWarnings(),
	})
	if len(res.Errors) > 0 {
		return ""
	}
	return string(res.Code)
}

// verbatimCandidate reports whether input, the wrapped program, can be given to the engine as the
// user wrote it: its wrapper is intact and it has no line break the engine counts differently.
func verbatimCandidate(input string) bool {
	body, ok := strings.CutPrefix(input, inputHeader)
	if !ok {
		return false
	}
	if body, ok = strings.CutSuffix(body, inputFooter); !ok {
		return false
	}
	if strings.ContainsRune(body, '\u2028') || strings.ContainsRune(body, '\u2029') {
		return false
	}
	for i := strings.IndexByte(body, '\r'); i >= 0; i = strings.IndexByte(body, '\r') {
		if i+1 == len(body) || body[i+1] != '\n' {
			return false
		}
		body = body[i+2:]
	}
	return true
}

// verbatim returns the Program's JS made of the user's own text, given esbuild's input (the
// wrapped program, type-only declarations blanked), esbuild's TypeScript output and the same
// input read as JavaScript, when that text is plain JavaScript: esbuild prints it alike read
// either way, and it is a verbatimCandidate.
func verbatim(input, out string, js *jsReading) (string, bool) {
	if code := js.result(); code == "" || code != out {
		return "", false
	}
	body := input[len(inputHeader) : len(input)-len(inputFooter)]
	return outputHeader + directiveText + ";\n" + body + outputFooter, true
}

// silencedWarnings returns log overrides that silence every warning esbuild can give a program:
// Compile reports only errors, and a silenced warning costs esbuild nothing but the notes it
// computes beforehand (see checkDiagnostics).
func silencedWarnings() map[string]api.LogLevel {
	m := map[string]api.LogLevel{}
	for _, id := range []string{
		"assert-to-with", "assert-type-json", "assign-to-constant", "assign-to-define", "assign-to-import",
		"bigint", "call-import-namespace", "class-name-will-throw", "commonjs-variable-in-esm",
		"delete-super-property", "direct-eval", "duplicate-case", "duplicate-class-member",
		"duplicate-object-key", "empty-import-meta", "equals-nan", "equals-negative-zero", "equals-new-object",
		"html-comment-in-js", "impossible-typeof", "indirect-require", "private-name-will-throw",
		"semicolon-after-return", "suspicious-boolean-not", "suspicious-define", "suspicious-logical-operator",
		"suspicious-nullish-coalescing", "this-is-undefined-in-esm", "unsupported-dynamic-import",
		"unsupported-jsx-comment", "unsupported-regexp", "unsupported-require-call", "tsconfig.json",
	} {
		m[id] = api.LogLevelSilent
	}
	return m
}
