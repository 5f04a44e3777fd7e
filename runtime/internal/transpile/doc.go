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
// Before that, coderun's own passes check the program (PhaseScan, see "The scan" below): they
// refuse TypeScript that cannot simply be erased — enum (also const enum), runtime
// namespace/module blocks, constructor parameter properties and decorators — as well as
// import/export declarations and NUL characters, and blank out the type-only declarations that
// esbuild does not accept inside a function body: "import type ..." and "declare
// namespace/module/global {...}". "declare enum", "declare const enum" and every other "declare"
// form are handed to esbuild, which erases them. A namespace that is not declared is rejected even
// when it only holds types (write "declare namespace" or plain type aliases instead): TypeScript
// itself does not allow namespaces inside a function body. They also refuse every program that
// could make esbuild overflow its stack, or take long. esbuild's warnings are silenced: Compile
// reports errors only.
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
// older than the engine ("await using" in a for (;;) head, names with characters Unicode 16 and
// 17 added) runs as written too (see respell.go and newident.go).
//
// # The scan
//
// esbuild runs in the host process, and nothing can stop it once a call has started: a Go stack
// overflow in its recursive parser, visitor or printer kills the whole process (it cannot be
// recovered), and a cancel is seen only when the call returns. So no program reaches esbuild
// before coderun's own passes have bounded what esbuild will do with it. Each pass is a type of its
// own, with its own state, over the program's text or over its tokens; CompileContext runs them
// in order (compilation.scan), each looking at the context before it starts and every pollEvery
// steps (see poll.go), and the scan's memory is reserved as the tokenizer reads (see memory.go).
//
//   - NUL check: the engine cannot load a NUL character; such a program is refused at once.
//   - Tokenizer (tokenize.go, slash.go, braces.go): splits the program into a token list
//     (tokens.go), which no later pass changes, and stops. It never fails. It reads every "/" as
//     esbuild's grammar does (division or regular expression), or marks the token before it where
//     it cannot tell, so that no code can hide from the passes after it inside what they would take
//     for a string, a template, a comment or a regular expression. Its pairing of brackets serves
//     error messages only (see Program.Escaped).
//   - Bounds (nesting.go, work.go): run on each token as soon as it is read, and stop the
//     tokenizer at the first token over a limit, so that not even the tokens of such a program are
//     all made. They refuse a program whose nesting could exceed MaxNesting levels of esbuild's
//     recursion (counted generously: brackets, operator chains, nested statements and types), so
//     that esbuild's stack stays small; whose constructs would make esbuild backtrack over text
//     again and again (type arguments, "? (...) :"); whose functions are too many or nested too
//     deeply; whose compile work or scope work exceeds what MaxProgramBytes allows, so that no
//     esbuild call takes long; and with a "/" the tokenizer could not read as esbuild does. A
//     program over a bound never reaches esbuild: the scan reports at once the earlier of the
//     bound and the first construct the next pass refuses.
//   - Erasable syntax (erasable.go): refuses the TypeScript that esbuild would silently compile
//     into code (see above) and import/export declarations, and finds the type-only declarations
//     to blank out. It guarantees meaning, not safety: a program that runs means what its
//     TypeScript, erased, means. It is reported unless esbuild finds an earlier syntax error.
//   - Diagnostics (diag.go, diagnames.go, diagtargets.go): refuse a program whose errors and
//     warnings would cost esbuild too much to report: a report that notes another place makes
//     esbuild walk the text between the two, so a program full of them would take time quadratic
//     in its size. Such a program never reaches esbuild either (the earlier of the two errors is
//     reported, as for the bounds).
//   - Lines (lines.go): index the program's lines, for positions.
//   - Blank (scan.go): replace the type-only declarations by ";" and spaces, keeping every
//     position.
//
// Every pass is linear in the program (the bounds keep esbuild's work so too). None of them
// decides whether a program stays inside its function: the engine does (see "Compilation").
//
// # Positions
//
// Columns reported to users (Error and Position) are 1-based and count UTF-16 code units, like
// TypeScript and V8; lines count "\n", "\r\n", "\r", U+2028 and U+2029. The engine's columns, the
// input of Position, are 1-based UTF-8 byte offsets, as QuickJS-NG reports them in stack traces.
package transpile
