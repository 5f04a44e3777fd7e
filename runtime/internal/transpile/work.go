package transpile

import "fmt"

// This file bounds the time that each call to esbuild takes over a program. An esbuild call cannot
// be interrupted (CompileContext looks at its context only between calls), so a cancel is seen
// only once the call under way returns: the longer the call, the later. The nesting limits (see
// nesting.go) keep esbuild's work linear in the program, and MaxProgramBytes bounds the program,
// but esbuild's cost per byte varies with what the bytes are: a new name, a function or a block
// costs it far more than a number in an array, and every name and block costs it again for each
// scope around it (it resolves a name by walking up the scopes). The nester therefore keeps two
// accounts as it reads the tokens, and the program is refused at the token that exceeds either:
//
//   - compile work: every token counts 1; a token that starts a statement on a new line without
//     a ";" 2, a "," between the properties of an object literal 2, a "{" 4 (6 when it opens a
//     block or a function body, a scope), and the first occurrence of a name 17; the start of a
//     function or class adds 16. At most a unit per 4 bytes of MaxProgramBytes (262,144 at the
//     default 1 MiB).
//   - scope work: every name (an identifier or keyword not after ".") counts the nesting depth at
//     which it appears, and every "{" three times that depth (see nestFrame.depth; it counts
//     brackets and operators too, an over-approximation of esbuild's scopes). At most
//     scopeWorkPerByte units per byte of MaxProgramBytes.
//
// The weights follow what esbuild costs, measured (TestMeasureAtLimits) on the shapes that cost it
// the most per unit (shapes_test.go): the longest esbuild call at the limits takes about 70 ms on
// a quiet 2-core machine. Both limits scale with MaxProgramBytes, so that a larger program size
// allows proportionally more work, and proportionally longer calls.

const (
	// workPerMiB is the compile work allowed per MiB of MaxProgramBytes: a unit per 4 bytes.
	workPerMiB = 1 << 18
	// scopeWorkPerByte is the scope work allowed per byte of MaxProgramBytes.
	scopeWorkPerByte = 2
	// The compile work of a token (see above).
	tokenWork     = 1
	statementWork = 2  // a token that starts a statement after a line break
	braceWork     = 4  // a "{" that opens an object literal, a class body, a type
	blockWork     = 6  // a "{" that opens a block or a function body: a scope
	propertyWork  = 2  // a "," between the properties of an object literal
	nameWork      = 17 // the first occurrence of a name
	functionWork  = 16 // added for a token that starts a function or class
	// braceScopeWeight is what a "{" adds to the scope work per level of depth.
	braceScopeWeight = 3
	// defaultMaxProgramBytes is the MaxProgramBytes of Options that leave it 0.
	defaultMaxProgramBytes = 1 << 20
)

// workLimits bound the compile work and the scope work of a program (see above).
type workLimits struct {
	// programBytes is the MaxProgramBytes the limits derive from, named in messages.
	programBytes int64
	work, scope  int64
}

// defaultWorkLimits are the limits at the default MaxProgramBytes.
var defaultWorkLimits = workLimitsFor(defaultMaxProgramBytes)

// workLimitsFor returns the limits for a program size limit of maxProgramBytes (the default when
// not positive).
func workLimitsFor(maxProgramBytes int64) workLimits {
	if maxProgramBytes <= 0 {
		maxProgramBytes = defaultMaxProgramBytes
	}
	const big = 1 << 40 // no overflow below: the work counted never comes close
	b := min(maxProgramBytes, big)
	return workLimits{programBytes: maxProgramBytes, work: b * workPerMiB >> 20, scope: b * scopeWorkPerByte}
}

// account adds token i, in frame f, to the nester's accounts: asi tells that it starts a statement
// after a line break, fn that it starts a function or class.
func (n *nester) account(i int, f *nestFrame, asi, fn bool) *nestingError {
	s := n.l
	t := &s.toks[i]
	w := int64(tokenWork)
	if asi {
		w = statementWork
	}
	switch {
	case t.kind == tkIdent && !s.afterDot(i):
		n.scopeWork += int64(f.depth())
		if name := s.text(i); !n.seen(name) {
			w += nameWork - tokenWork
		}
	case t.kind == tkPunct && t.end-t.start == 1 && s.src[t.start] == '{':
		w = braceWork
		if s.braceIsBlockAfter(i - 1) {
			w = blockWork
		}
		n.scopeWork += braceScopeWeight * int64(f.depth())
	case t.kind == tkPunct && t.end-t.start == 1 && s.src[t.start] == ',' && f.opener == '{' && !f.commaOperator:
		w = propertyWork
	}
	if fn {
		w += functionWork
	}
	n.work += w
	switch {
	case n.work > n.limits.work:
		return &nestingError{t.start, fmt.Sprintf("SyntaxError: the program is too much work to compile here: "+
			"it exceeds %d units of compile work (a token counts 1, a block 6, a new name or a function 17; "+
			"the limit is MaxProgramBytes / 4 = %d / 4): split it into smaller programs, or pass large data "+
			"through a binding instead of writing it in the program", n.limits.work, n.limits.programBytes)}
	case n.scopeWork > n.limits.scope:
		return &nestingError{t.start, fmt.Sprintf("SyntaxError: the program has too much code inside nested "+
			"blocks, functions and expressions to compile here: it exceeds %d units of scope work (every name "+
			"counts its nesting depth, every \"{\" three times that; the limit is MaxProgramBytes × %d = %d × %d): "+
			"flatten the nesting (move deeply nested code into functions declared at the top level) or split "+
			"the program", n.limits.scope, scopeWorkPerByte, n.limits.programBytes, scopeWorkPerByte)}
	}
	return nil
}

// seen records name and reports whether it was already recorded.
func (n *nester) seen(name string) bool {
	if n.names == nil {
		n.names = make(map[string]struct{})
	}
	if _, ok := n.names[name]; ok {
		return true
	}
	n.names[name] = struct{}{}
	return false
}
