package transpile

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/evanw/esbuild/pkg/api"
)

const (
	// MainName is the name of the program's function, visible in stack traces.
	MainName = "__dsh_main__"
	// inputHeader is the wrapper line before the user's source in the text given to esbuild.
	inputHeader = "(async function " + MainName + "() { \"use strict\";\n"
	// inputFooter follows the user's source.
	inputFooter = "\n})"
	// minHeader and minFooter are how esbuild, minifying whitespace, prints the wrapper around the
	// function's body.
	minHeader = "(async function " + MainName + "(){"
	minFooter = "});\n"
	// outputHeader is the first line of a Program's JS; Wrap splices the parameter list between
	// the parentheses. The function's body follows on the next line.
	outputHeader = "(async function " + MainName + "() {\n"
	// paramsAt is the offset in outputHeader at which the parameter list goes.
	paramsAt = len("(async function " + MainName + "(")
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
	passTokenize    scanPass = iota // the tokenizer, which the bounds check as it reads (see tokenizeBounded)
	passCheck                       // erasableCheck.check: the constructs coderun refuses
	passDiagnostics                 // checkDiagnostics (see diag.go)
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

// run is the compilation, a phase after the other (see Phase).
func (c *compilation) run() (*Program, error) {
	if err := c.enter(PhaseScan); err != nil {
		return nil, err
	}
	input, refused, err := c.scan()
	if err != nil {
		return nil, err
	}
	if err := c.enter(PhaseTransform); err != nil {
		return nil, err
	}
	if err := c.reserve(esbuildMemory(c.tokens, c.work)); err != nil {
		return nil, err
	}
	// The input read as JavaScript (see verbatim) does not depend on the TypeScript pass: a small
	// one is printed beside it, and waited for on every way out, so that nothing outlives the
	// compilation.
	asJS := readAsJS(input, c.opts.onReadAsJS)
	defer asJS.join()
	res := transform(input)
	if len(res.Errors) > 0 || refused != nil {
		return c.refuse(input, res.Errors, refused)
	}
	if err := c.enter(PhaseVerify); err != nil {
		return nil, err
	}
	out, err := c.verify(res.Code)
	res.Code = nil
	if err != nil {
		return nil, err
	}
	if err := c.enter(phaseSourceMap); err != nil {
		return nil, err
	}
	if js, ok := verbatim(input, out, asJS); ok && !c.opts.esbuildOutput {
		return &Program{js: js, lines: strings.Split(js, "\n"), verbatim: true, userLines: c.lines.lines(),
			brackets: bracketError(c.tokens, c.lines), closes: c.tokens.unmatched >= 0}, nil
	}
	input = ""
	return c.assemble(out, res.Map)
}

// transform is PhaseTransform's esbuild call: the wrapped input, TypeScript, printed as JavaScript
// with a source map.
func transform(input string) api.TransformResult {
	return api.Transform(input, api.TransformOptions{
		Loader:           api.LoaderTS,
		Target:           api.ESNext,
		MinifyWhitespace: true, // no indentation: the output stays linear in the input
		Sourcemap:        api.SourceMapExternal,
		SourcesContent:   api.SourcesContentExclude,
		Sourcefile:       sourceFile,
		LegalComments:    api.LegalCommentsNone,
		LogOverride:      silencedWarnings(),
	})
}

// refuse reports a program that esbuild refused (errs) or the scan did (refused): the earlier of
// esbuild's first error and the refused construct, unless esbuild refused plain JavaScript that
// the engine allows (see respell.go).
func (c *compilation) refuse(input string, errs []api.Message, refused *Error) (*Program, error) {
	var syntax *Error
	if len(errs) > 0 {
		syntax = esbuildError(errs[0], c.lines, c.tokens)
	}
	if refused != nil && (syntax == nil || !before(syntax, refused)) {
		return nil, refused
	}
	return c.respelled(input, errs, syntax, refused)
}

// verify is PhaseVerify: esbuild's output code must keep the wrapper's first and last lines, and
// hold no NUL character.
func (c *compilation) verify(code []byte) (string, error) {
	out := string(code)
	if !strings.HasPrefix(out, minHeader) || !strings.HasSuffix(out, minFooter) {
		return "", shapeError(c.tokens, c.lines, "the compiled program does not have the expected shape")
	}
	if strings.IndexByte(out, 0) >= 0 {
		return "", &Error{Message: "internal error: compiled program contains a NUL character"}
	}
	return out, nil
}

// assemble is the rest of phaseSourceMap for esbuild's output out and source map: it decodes the
// map, gives back the names esbuild changed (see names.go) and makes the Program.
func (c *compilation) assemble(out string, sourceMap []byte) (*Program, error) {
	smap, names, named, err := parseSourceMapNamed(c.poll, sourceMap)
	if c.poll.err != nil {
		return nil, c.poll.err
	}
	if err != nil {
		err = fmt.Errorf("internal error: %w", err)
		return nil, &Error{Message: err.Error(), cause: err}
	}
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
