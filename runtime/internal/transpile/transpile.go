// Package transpile turns a coderun program (TypeScript, the body of an async function) into the
// JavaScript that the engine evaluates, and maps engine positions back to the user's source.
//
// # Compilation
//
// The user's source S is placed, unchanged, inside an async function:
//
//	(async function __dsh_main__() { "use strict";
//	S
//	})
//
// and given to esbuild (TypeScript loader, target ESNext, whitespace minification so that the output
// stays linear in the input, no format conversion, external source map). esbuild erases the type
// syntax and checks the program, in strict mode, as a function body: top-level await and return
// work, "with" and legacy octal literals do not. User line n is line n+1 of the text esbuild sees,
// with the same columns.
//
// Before that, a small tokenizer (see scan.go) rejects TypeScript that cannot simply be erased —
// enum (also const enum), runtime namespace/module blocks, constructor parameter properties and
// decorators — as well as import/export declarations and NUL characters, and blanks out the
// type-only declarations that esbuild does not accept inside a function body: "import type ..."
// and "declare namespace/module/global {...}". "declare enum", "declare const enum" and every other
// "declare" form are handed to esbuild, which erases them. A namespace that is not declared is
// rejected even when it only holds types (write "declare namespace" or plain type aliases instead):
// TypeScript itself does not allow namespaces inside a function body. The tokenizer also bounds
// the program's nesting (see nesting.go), so that esbuild's recursion and backtracking stay small,
// its compile work (see work.go), so that no esbuild call, which a cancel cannot interrupt, takes
// long, and what esbuild's diagnostics may cost (see diag.go), so that a program full of errors
// cannot make esbuild take time quadratic in its size. esbuild's warnings are silenced: Compile reports
// errors only.
//
// esbuild parses the wrapped text as a whole, so a program such as "}); evil(); (async function() {"
// closes its function and puts code beside it. Compile checks only that esbuild's output keeps the
// wrapper's first and last lines; that the script is exactly one function expression is checked by
// the engine on the bytecode it compiles Script's result to (quickjs.CheckOneFunction), which tests
// what would run rather than esbuild's reading of it, before anything of the script runs. A
// program that fails there is reported with Program.Escaped.
//
// esbuild renames bindings that shadow others ("load" in a nested scope becomes "load2"); Compile
// gives them back the names the program wrote, so that functions keep them in their name, stack
// frames and the engine's messages (see names.go).
//
// A Program's JS keeps the wrapper's header, its directive and its closing to lines of their own;
// the user's code sits on the lines between.
//
// That code is the user's own text when the program is plain JavaScript: when esbuild prints the
// wrapped input read as JavaScript exactly as it prints it read as TypeScript, there is no type
// syntax to erase and no construct the two read differently (such as f<T>(x)), and the engine gets
// the text the user wrote, so that Function.prototype.toString, function names and positions are
// the user's (a third esbuild pass, which stops at the first type annotation of a TypeScript
// program). Programs whose lines end in lone "\r", U+2028 or U+2029 are excepted: the engine does
// not count those as line breaks everywhere, so positions could not map one to one. Otherwise it is
// the code as esbuild printed it (on one line, unless template literals hold line breaks), and
// positions map through esbuild's source map. Plain JavaScript that esbuild refuses only for being
// older than the engine ("await using" in a for (;;) head) runs as written too (see respell.go).
//
// # Positions
//
// Columns reported to users (Error and Position) are 1-based and count UTF-16 code units, like
// TypeScript and V8; lines count "\n", "\r\n", "\r", U+2028 and U+2029. The engine's columns, the
// input of Position, are 1-based UTF-8 byte offsets, as QuickJS-NG reports them in stack traces.
package transpile

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/evanw/esbuild/pkg/api"
)

const (
	// mainName is the name of the program's function, visible in stack traces.
	mainName = "__dsh_main__"
	// inputHeader is the wrapper line before the user's source in the text given to esbuild.
	inputHeader = "(async function " + mainName + "() { \"use strict\";\n"
	// inputFooter follows the user's source.
	inputFooter = "\n})"
	// minHeader and minFooter are how esbuild, minifying whitespace, prints the wrapper around the
	// function's body.
	minHeader = "(async function " + mainName + "(){"
	minFooter = "});\n"
	// outputHeader is the first line of a Program's JS; Wrap splices the parameter list between
	// the parentheses. The function's body follows on the next line.
	outputHeader = "(async function " + mainName + "() {\n"
	// paramsAt is the offset in outputHeader at which the parameter list goes.
	paramsAt = len("(async function " + mainName + "(")
	// directiveText is the wrapper's directive, the first statement of the body esbuild prints.
	directiveText = `"use strict"`
	// outputFooter ends a Program's JS, on a line of its own.
	outputFooter = "\n})"
	// sourceFile names the program in esbuild's diagnostics and source map.
	sourceFile = "program.ts"
)

// Program is a compiled program. Safe for concurrent use; immutable, but for the engine bytecode
// it keeps (Compiled).
type Program struct {
	// js is an expression that evaluates to the program's async function, with an empty
	// parameter list:
	//   (async function __dsh_main__() {\n  "use strict";\n  ...user code...\n})
	js string
	// lines are the lines of js, split at "\n" as the engine counts them.
	lines []string
	// smap maps generated lines and UTF-16 columns to the wrapped input; nil when verbatim.
	smap *sourceMap
	// verbatim: js holds the user's own text, line n of it on line n+2 (see Position).
	verbatim bool
	// userLines is the number of lines of the user's source.
	userLines int
	// bodyCol is the byte column, in esbuild's first output line, at which js's line 3 starts.
	bodyCol int
	// compiled holds engine bytecode of Wrap's results (see Compiled).
	compiled compiledScripts
	// owner is the cache entry holding the program, if any: SetCompiled tells it the bytes added.
	owner atomic.Pointer[programOwner]
	// names tells how the names esbuild changed were given back (see names.go).
	names namesOutcome
	// brackets is the tokenizer's error about the program's brackets, nil when they balance
	// (see Escaped); closes says the program closes a bracket it never opened.
	brackets *Error
	closes   bool
}

// Escaped is the error to report for a program whose compiled script the engine finds to be more
// than its function: the program closed the function it is the body of, and more of it would
// run when the script is evaluated. Compile does not itself check that a program stays inside
// its function; the engine checks the bytecode it compiles Script's result to, which is what
// would run. The error points at the bracket that closes the function when the tokenizer saw
// it, and otherwise at the program's start.
func (p *Program) Escaped() *Error {
	if p.brackets != nil {
		return p.brackets
	}
	return escapeError()
}

// ClosesItsFunction reports whether the tokenizer saw the program close a bracket it never opened,
// which esbuild then read as the end of the function the program is the body of. A script that
// then fails to compile in the engine is best reported with Escaped.
func (p *Program) ClosesItsFunction() bool { return p.closes }

// JS returns an expression that evaluates to the program's async function, with an empty
// parameter list, e.g.
//
//	(async function __dsh_main__() {
//	  "use strict";
//	  return 1;
//	})
//
// Engines evaluate the result of Wrap instead, which adds the parameters.
func (p *Program) JS() string { return p.js }

// Wrap returns the final script text given the names that must be in scope as parameters
// (binding globals and error-class names, already validated identifiers), e.g.
// Wrap([]string{"tools", "ToolCallError"}). The result is a single JS expression (no trailing
// semicolon needed) evaluating to an async function taking those parameters in that order:
//
//	(async function __dsh_main__(tools, ToolCallError) {
//	  "use strict";
//	  ...user code...
//	})
//
// Only line 1 depends on params, and it holds no user code, so Position applies to the result
// whatever the parameters. The body sits directly in the function (it is not a nested block):
// a program that declares a parameter's name with let, const or class fails in the engine with a
// SyntaxError (located in the user's code by Position).
func (p *Program) Wrap(params []string) string { return p.wrap("", params, len(p.js)) }

// scriptPrefix opens Script's result in place of the expression's parenthesis.
const scriptPrefix = "0, "

// Script returns what Wrap does as a script for the engine rather than an expression: a comma
// expression whose value, the script's completion value, is the same function, e.g.
//
//	0, async function __dsh_main__(tools, ToolCallError) {
//	  "use strict";
//	  ...user code...
//	}
//
// It does not start with a parenthesis because QuickJS-NG, meeting "(" where an expression
// starts, first scans to the matching ")" to tell an arrow function's parameters from a
// parenthesized expression: with Wrap's text that is the whole program, tokenized twice. Lines
// are Wrap's, so Position applies to it as well; unlike Wrap's result it cannot be embedded in
// a larger expression.
func (p *Program) Script(params []string) string {
	// p.js is "(" + function + ")": drop both parentheses.
	return p.wrap(scriptPrefix, params, len(p.js)-1)
}

// wrap writes prefix, then p.js up to end with params spliced in, without its opening
// parenthesis when prefix is not empty.
func (p *Program) wrap(prefix string, params []string, end int) string {
	var b strings.Builder
	n := len(prefix) + end + 2*len(params)
	for _, s := range params {
		n += len(s)
	}
	b.Grow(n)
	b.WriteString(prefix)
	start := 0
	if prefix != "" {
		start = 1
	}
	b.WriteString(p.js[start:paramsAt])
	for i, s := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	b.WriteString(p.js[paramsAt:end])
	return b.String()
}

// Position maps a 1-based line and 1-based column in the wrapped script (as the engine reports
// them in stack traces: the column counts UTF-8 bytes) to the user's original source (1-based
// line, 1-based UTF-16 column); ok is false for positions inside wrapper code. It uses the nearest
// source-map segment at or before the column on that line (or the line's first segment when the
// column precedes them all).
func (p *Program) Position(line, col int) (userLine, userCol int, ok bool) {
	// Lines 1 and 2 are the wrapper's header and directive, the last line its footer; line 3 is
	// esbuild's first output line from bodyCol on.
	if line < 3 || line >= len(p.lines) || col < 1 {
		return 0, 0, false
	}
	if p.verbatim {
		userLine = line - 2
		if userLine > p.userLines {
			return 0, 0, false
		}
		return userLine, utf16Col(p.lines[line-1], col-1) + 1, true
	}
	genCol := utf16Col(p.lines[line-1], col-1)
	if line == 3 {
		genCol += p.bodyCol
	}
	seg, found := p.smap.find(line-3, genCol)
	if !found || !seg.mapped {
		return 0, 0, false
	}
	// Input line 0 is the header; input line n (0-based) is user line n (1-based).
	userLine = int(seg.srcLine)
	if userLine < 1 || userLine > p.userLines {
		return 0, 0, false
	}
	return userLine, int(seg.srcCol) + 1, true
}

// Error is a compile failure located in the user's source.
type Error struct {
	// Line and Column locate the failure in the user's program: 1-based, the column in UTF-16
	// code units. Both are 0 for an internal failure that has no location.
	Line, Column int
	// Message describes the failure, e.g. `SyntaxError: Unexpected ";"`.
	Message string

	cause error // for internal failures
}

// Unwrap returns the underlying error of an internal failure, or nil.
func (e *Error) Unwrap() error { return e.cause }

// Error returns the message followed by the location, e.g.
// `SyntaxError: Expected ";" but found "x" (line 3:7)`.
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("%s (line %d:%d)", e.Message, e.Line, e.Column)
}

// Phase is a step of CompileContext. Each is linear in the size of the program, which the nesting
// limits keep that way (see nesting.go).
type Phase int

// The phases of CompileContext, in order.
const (
	// PhaseScan indexes lines, tokenizes and checks the program, including its nesting.
	PhaseScan Phase = iota
	// PhaseTransform runs esbuild: TypeScript to JavaScript and a source map.
	PhaseTransform
	// PhaseVerify checks that esbuild's output keeps the wrapper's shape (that it is the program's
	// function and nothing else is the engine's check, see "Compilation").
	PhaseVerify
	// phaseSourceMap checks whether the program runs as written (see "Compilation"), else decodes
	// the source map, gives back the names esbuild changed (see names.go) and assembles the
	// Program.
	phaseSourceMap
	// phaseNames has esbuild print the program again, to check names given back that
	// phaseSourceMap could not show sound by itself. Most compilations skip it.
	phaseNames
)

// Options adjust CompileContext.
type Options struct {
	// OnPhase, when not nil, is called before each phase starts.
	OnPhase func(Phase)
	// MaxProgramBytes is the program size limit that the program was checked against (see
	// CheckSize), 1 MiB when not positive. The limits on its compile work and scope work are
	// proportional to it (see work.go).
	MaxProgramBytes int64
	// Reserve, when not nil, is asked for the host memory that each step allocating in
	// proportion to the program is about to take, before it starts (see memory.go): the scan,
	// then esbuild's passes. What it is asked for is held until the compilation returns. An error
	// from it stops the compilation, which returns that error as it is (not an *Error, so that a
	// Cache does not keep it).
	Reserve func(bytes int64) error

	// keepRenamed, set by tests, leaves esbuild's names in the output (see names.go).
	keepRenamed bool
	// esbuildOutput, set by tests, runs even plain JavaScript as esbuild printed it, so that
	// tests of the source-map path (and of names.go) can use JavaScript programs.
	esbuildOutput bool
	// onScanPass, set by tests, is called before each pass of the scan starts.
	onScanPass func(scanPass)
	// onReadAsJS, set by tests, is called on the goroutine that reads a small program as
	// JavaScript (see readAsJS), before it does.
	onReadAsJS func()
}

// scanPass is a pass of PhaseScan.
type scanPass int

// The passes of PhaseScan, in order. Each looks at the context before it starts, and the long
// ones every pollEvery steps.
const (
	passTokenize    scanPass = iota // tokenize, which also checks the nesting (see nesting.go)
	passCheck                       // scanner.check: the constructs coderun refuses
	passDiagnostics                 // scanner.checkDiagnostics (see diag.go)
	passLines                       // newLineIndex
	passBlank                       // blank: erase the type-only declarations
)

// Compile transpiles src. Errors are *Error values.
func Compile(src string) (*Program, error) {
	return CompileContext(context.Background(), src, Options{})
}

// CompileContext transpiles src, checking ctx before each phase, before each call to esbuild
// (which cannot be interrupted) and, within the passes of its own, every few thousand tokens or
// lines: once ctx is done no further phase starts, the pass under way stops, and the error (not
// an *Error) wraps context.Cause(ctx). Other errors are *Error values.
func CompileContext(ctx context.Context, src string, opts Options) (*Program, error) {
	c := compilation{poll: newPoller(ctx), opts: opts, src: src, limits: workLimitsFor(opts.MaxProgramBytes)}
	return c.run()
}

// compilation is one run of CompileContext.
type compilation struct {
	poll  *poller
	opts  Options
	src   string
	lines *lineIndex
	// tokens are the program's tokens (see tokens.go), work its compile work (see work.go).
	tokens *tokenList
	work   int64
	// limits bound the program's compile work (see work.go).
	limits workLimits
}

// enter starts phase p, unless the compilation must stop.
func (c *compilation) enter(p Phase) error {
	if c.poll.check() {
		return c.poll.err
	}
	if c.opts.OnPhase != nil {
		c.opts.OnPhase(p)
	}
	return nil
}

// pass starts pass p of the scan, unless the compilation must stop.
func (c *compilation) pass(p scanPass) error {
	if c.poll.check() {
		return c.poll.err
	}
	if c.opts.onScanPass != nil {
		c.opts.onScanPass(p)
	}
	return nil
}

func (c *compilation) run() (*Program, error) {
	if err := c.enter(PhaseScan); err != nil {
		return nil, err
	}
	input, verr, err := c.scan()
	if err != nil {
		return nil, err
	}
	wrapped := input // for verbatim

	if err := c.enter(PhaseTransform); err != nil {
		return nil, err
	}
	if err := c.reserve(esbuildMemory(c.tokens, c.work)); err != nil {
		return nil, err
	}
	// The input read as JavaScript (see verbatim) does not depend on the TypeScript pass: a small
	// one is printed beside it, and waited for on every way out, so that nothing outlives the
	// compilation.
	asJS := readAsJS(wrapped, c.opts.onReadAsJS)
	defer asJS.join()
	res := api.Transform(input, api.TransformOptions{
		Loader:           api.LoaderTS,
		Target:           api.ESNext,
		MinifyWhitespace: true, // no indentation: the output stays linear in the input
		Sourcemap:        api.SourceMapExternal,
		SourcesContent:   api.SourcesContentExclude,
		Sourcefile:       sourceFile,
		LegalComments:    api.LegalCommentsNone,
		LogOverride:      silencedWarnings(),
	})
	input = ""
	var syntax *Error
	if len(res.Errors) > 0 {
		syntax = esbuildError(res.Errors[0], c.lines, c.tokens)
	}
	if verr != nil && (syntax == nil || !before(syntax, verr)) {
		return nil, verr
	}
	if syntax != nil {
		// esbuild may refuse plain JavaScript that the engine allows (see respell.go).
		return c.respelled(wrapped, res.Errors, syntax, verr)
	}

	if err := c.enter(PhaseVerify); err != nil {
		return nil, err
	}
	out := string(res.Code)
	res.Code = nil
	if !strings.HasPrefix(out, minHeader) || !strings.HasSuffix(out, minFooter) {
		return nil, shapeError(c.tokens, c.lines, "the compiled program does not have the expected shape")
	}
	if strings.IndexByte(out, 0) >= 0 {
		return nil, &Error{Message: "internal error: compiled program contains a NUL character"}
	}

	if err := c.enter(phaseSourceMap); err != nil {
		return nil, err
	}
	if js, ok := verbatim(wrapped, out, asJS); ok && !c.opts.esbuildOutput {
		return &Program{js: js, lines: strings.Split(js, "\n"), verbatim: true, userLines: c.lines.lines(),
			brackets: bracketError(c.tokens, c.lines), closes: c.tokens.unmatched >= 0}, nil
	}
	wrapped = ""
	smap, names, named, err := parseSourceMapNamed(c.poll, res.Map)
	if c.poll.err != nil {
		return nil, c.poll.err
	}
	if err != nil {
		err = fmt.Errorf("internal error: %w", err)
		return nil, &Error{Message: err.Error(), cause: err}
	}
	res.Map = nil
	outcome := namesKept
	if !c.opts.keepRenamed {
		if out, outcome, err = c.restoreNames(out, smap, names, named); err != nil {
			return nil, err
		}
	}
	// The body starts with the wrapper's directive; it goes on a line of its own, so that every
	// position on the lines after it is the user's code.
	body := out[len(minHeader) : len(out)-len(minFooter)]
	directive := len(directiveText)
	if !strings.HasPrefix(body, directiveText) {
		return nil, shapeError(c.tokens, c.lines, "the compiled program does not start with its directive")
	}
	if strings.HasPrefix(body[directive:], ";") {
		directive++
	}
	js := outputHeader + body[:directive] + "\n" + body[directive:] + outputFooter
	return &Program{
		js:        js,
		bodyCol:   len(minHeader) + directive,
		lines:     strings.Split(js, "\n"),
		smap:      smap,
		userLines: c.lines.lines(),
		names:     outcome,
		brackets:  bracketError(c.tokens, c.lines),
		closes:    c.tokens.unmatched >= 0,
	}, nil
}

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

// scan checks the program before esbuild sees it and returns the text to give esbuild, and the
// first construct coderun refuses (reported unless esbuild finds an earlier syntax error). err is
// a failure that must be reported at once: a NUL character, nesting beyond the limits (both
// *Error), the compilation stopped by its context (see poller), or Options.Reserve's error.
func (c *compilation) scan() (input string, refused *Error, err error) {
	src := c.src
	// A program refused here is located without indexing its lines.
	at := func(offset int, msg string) *Error {
		l, col := positionOf(src, offset)
		return &Error{Line: l, Column: col, Message: msg}
	}
	if i := strings.IndexByte(src, 0); i >= 0 {
		return "", nil, at(i, `SyntaxError: source contains a NUL character (U+0000), which the engine cannot load: `+
			`write "\0" or "\u0000" inside string literals instead`)
	}
	if err := c.pass(passTokenize); err != nil {
		return "", nil, err
	}
	// The tokenizer reserves the scan's memory as it reads (see memory.go): the first tokens'
	// now, with what every compilation takes.
	if err := c.reserve(compileBaseBytes + scanBytesPerLook); err != nil {
		return "", nil, err
	}
	c.poll.reserve, c.poll.perLook = c.opts.Reserve, scanBytesPerLook
	tokens, bounds := tokenizeBounded(src, c.poll, c.limits)
	c.tokens, c.work = tokens, bounds.work
	c.poll.perLook = 0
	if err := c.pass(passCheck); err != nil {
		return "", nil, err
	}
	v, erase := newErasableCheck(c.tokens, c.poll).check()
	if c.poll.err != nil {
		return "", nil, c.poll.err // check stopped early: v and erase are incomplete
	}
	if v != nil {
		// Named like the engine's own rejections, so that a model reads
		// them as the syntax errors they are.
		refused = at(v.offset, "SyntaxError: "+v.message)
	}
	if n := bounds.err; n != nil {
		// The tokenizer stopped at n: esbuild must not see a program over the limits, even when a
		// refused construct comes earlier (esbuild over 1 MiB of "@d " takes 88 MiB); report the
		// earlier of the two at once.
		if refused == nil || n.offset < v.offset {
			return "", nil, at(n.offset, n.message)
		}
		return "", nil, refused
	}
	if err := c.pass(passDiagnostics); err != nil {
		return "", nil, err
	}
	if d := checkDiagnostics(c.tokens, c.poll, len(inputHeader)); d != nil {
		// esbuild would take too long over this program: report the earlier of this and the
		// refused construct at once.
		if refused == nil || d.offset < v.offset {
			return "", nil, at(d.offset, d.message)
		}
		return "", nil, refused
	}
	if err := c.pass(passLines); err != nil {
		return "", nil, err
	}
	c.lines = newLineIndex(src)
	if err := c.pass(passBlank); err != nil {
		return "", nil, err
	}
	return inputHeader + blank(src, erase) + inputFooter, refused, nil
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
		l, c := lines.end()
		return &Error{Line: l, Column: c, Message: "SyntaxError: " + m.Text + " at the end of the program"}
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
