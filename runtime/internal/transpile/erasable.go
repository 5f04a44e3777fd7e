package transpile

import "math"

// This file holds the erasable-syntax pass. esbuild silently compiles TypeScript that cannot
// simply be erased (enums, runtime namespaces, constructor parameter properties, decorators), so
// coderun looks for those itself, at the token level, and refuses them; it also refuses import and
// export declarations, which a function body cannot hold, and finds the type-only declarations
// that esbuild does not accept inside a function body but that erase to nothing ("import type ..."
// and "declare namespace/module/global {...}"), for the compilation to blank out. A misreading here
// costs only the quality of an error message or a rejection, never unchecked output: esbuild still
// parses the program, and the engine checks that the compiled script is one function.

// erasableCheck is the state of the erasable-syntax pass over a token list.
type erasableCheck struct {
	*tokenList
	// poll stops the pass once the compilation must stop; nil when nothing stops it.
	poll *poller
	// braceClose and angles are computed on first use: see matchBrace and angleAcross.
	braceClose []int
	angles     []angleEffect
}

// newErasableCheck returns the pass over l, stopped by p.
func newErasableCheck(l *tokenList, p *poller) *erasableCheck {
	return &erasableCheck{tokenList: l, poll: p}
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
// violation, if any, and the spans to erase; both are incomplete when e.poll stops it.
func (e *erasableCheck) check() (*violation, []span) {
	var erase []span
	toks := e.toks
	for i := 0; i < len(toks); i++ {
		if e.poll.stop() {
			return nil, erase
		}
		t := toks[i]
		switch t.kind {
		case tkPunct:
			if e.text(i) == "@" {
				return &violation{t.start, "decorators are not supported (only erasable TypeScript is accepted): " +
					"call the decorator function explicitly instead, e.g. C = dec(C)"}, erase
			}
			continue
		case tkIdent:
		default:
			continue
		}
		if e.afterDot(i) {
			continue
		}
		switch word := e.text(i); word {
		case "declare":
			if end, ok := e.ambientBlock(i); ok {
				erase = append(erase, span{t.start, toks[end].end})
				i = end
			}
		case "enum":
			if i+1 < len(toks) && toks[i+1].kind == tkIdent {
				if e.is(i-1, tkIdent, "declare") || e.is(i-1, tkIdent, "const") && e.is(i-2, tkIdent, "declare") {
					continue
				}
				at := t.start
				if e.is(i-1, tkIdent, "const") {
					at = toks[i-1].start
				}
				return &violation{at, "TypeScript enum" + notErasable +
					"use a plain object (as const) or a union of string literals"}, erase
			}
		case "namespace", "module":
			if e.namespaceBlock(i) {
				return &violation{t.start, "TypeScript " + word + " block" + notErasable +
					"use a plain object, or \"declare namespace\" for types only"}, erase
			}
		case "import":
			if end, ok := e.typeImport(i); ok {
				erase = append(erase, span{t.start, toks[end].end})
				i = end
				continue
			}
			if i+1 < len(toks) && (toks[i+1].kind == tkIdent || toks[i+1].kind == tkString ||
				e.is(i+1, tkPunct, "{") || e.is(i+1, tkPunct, "*")) {
				return &violation{t.start, "import declarations are not supported: the program is the body of an " +
					"async function, not a module; bindings are already in scope by name (\"import type\" is accepted)"}, erase
			}
		case "export":
			if i+1 < len(toks) && (toks[i+1].kind == tkIdent || e.is(i+1, tkPunct, "{") || e.is(i+1, tkPunct, "*")) {
				return &violation{t.start, "export declarations are not supported: the program is the body of an " +
					"async function, not a module; use return to produce its value"}, erase
			}
		case "constructor":
			if v := e.parameterProperty(i); v != nil {
				return v, erase
			}
		}
	}
	return nil, erase
}

// ambientBlock recognises "declare namespace A.B {...}", "declare module 'x' {...}",
// "declare module 'x';" and "declare global {...}" starting at token i ("declare"), returning
// the index of its last token.
func (e *erasableCheck) ambientBlock(i int) (int, bool) {
	toks := e.toks
	if !e.stmtStart(i) || i+1 >= len(toks) || toks[i+1].nl || toks[i+1].kind != tkIdent {
		return 0, false
	}
	j := i + 2
	switch e.text(i + 1) {
	case "global":
	case "module":
		if j < len(toks) && toks[j].kind == tkString {
			j++
			if j >= len(toks) || toks[j].nl {
				return j - 1, true
			}
			if e.is(j, tkPunct, ";") {
				return j, true
			}
			break
		}
		fallthrough
	case "namespace":
		j = e.dottedName(j)
		if j < 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	if !e.is(j, tkPunct, "{") {
		return 0, false
	}
	return e.matchBrace(j)
}

// dottedName skips "A.B.C" starting at token j and returns the index after it, or -1.
func (e *erasableCheck) dottedName(j int) int {
	if j >= len(e.toks) || e.toks[j].kind != tkIdent {
		return -1
	}
	j++
	for e.is(j, tkPunct, ".") && j+1 < len(e.toks) && e.toks[j+1].kind == tkIdent {
		j += 2
	}
	return j
}

// matchBrace returns the index of the "}" closing the "{" at token j, counting braces only (not
// parentheses or brackets): the first "}" after which as many "}" as "{" follow j. The pairs are
// computed once, in one pass over the tokens, so that many unclosed "{" (each of which used to
// be followed to the end of the program) cost one pass in all.
func (e *erasableCheck) matchBrace(j int) (int, bool) {
	if e.braceClose == nil {
		e.braceClose = e.pairBraces()
	}
	if k := e.braceClose[j]; k > 0 {
		return k, true
	}
	return 0, false
}

// pairBraces returns, for each "{" token, the index of the "}" matchBrace pairs it with, or 0;
// it stops early (leaving the rest 0) when e.poll says the compilation must stop.
func (e *erasableCheck) pairBraces() []int {
	closes := make([]int, len(e.toks))
	var open []int
	for k, t := range e.toks {
		if e.poll.stop() {
			break
		}
		if t.kind != tkPunct || t.end-t.start != 1 {
			continue
		}
		switch e.src[t.start] {
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
func (e *erasableCheck) namespaceBlock(i int) bool {
	toks := e.toks
	if i+1 >= len(toks) || toks[i+1].nl {
		return false
	}
	j := i + 1
	switch {
	case e.text(i) == "module" && toks[j].kind == tkString:
		j++
	case toks[j].kind == tkIdent && isRegexKeyword(e.text(j)):
		return false // namespace in {...}: an expression
	default:
		if j = e.dottedName(j); j < 0 {
			return false
		}
	}
	return e.is(j, tkPunct, "{")
}

// typeImport recognises "import type X from 'm'", "import type { A } from 'm'" and
// "import type * as N from 'm'" (optionally followed by import attributes and ";") at token i,
// returning the index of its last token.
func (e *erasableCheck) typeImport(i int) (int, bool) {
	toks := e.toks
	if !e.is(i+1, tkIdent, "type") || i+2 >= len(toks) {
		return 0, false
	}
	switch {
	case e.is(i+2, tkPunct, "{"), e.is(i+2, tkPunct, "*"):
	case toks[i+2].kind == tkIdent:
		if e.text(i+2) == "from" && i+3 < len(toks) && toks[i+3].kind == tkString {
			return 0, false // import type from 'm': a default import named "type"
		}
	default:
		return 0, false
	}
	for k := i + 2; k < len(toks) && !e.poll.stop(); k++ {
		if toks[k].kind == tkPunct {
			switch e.text(k) {
			case ";", "=", "(", ")", "}":
				if e.text(k) != "}" || !e.is(k+1, tkIdent, "from") {
					return 0, false
				}
			}
		}
		if !e.is(k, tkIdent, "from") || k+1 >= len(toks) || toks[k+1].kind != tkString {
			continue
		}
		end := k + 1
		if (e.is(end+1, tkIdent, "with") || e.is(end+1, tkIdent, "assert")) && !toks[end+1].nl && e.is(end+2, tkPunct, "{") {
			if close, ok := e.matchBrace(end + 2); ok {
				end = close
			}
		}
		if e.is(end+1, tkPunct, ";") {
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
func (e *erasableCheck) parameterProperty(i int) *violation {
	toks := e.toks
	if !e.is(i+1, tkPunct, "(") {
		return nil
	}
	end := len(toks)
	if c := toks[i+1].close; c > 0 {
		end = int(c)
	}
	angle := 0
	inType, paramStart := false, true
	for k := i + 2; k < end && !e.poll.stop(); k++ {
		t := toks[k]
		if t.kind == tkIdent && paramStart {
			paramStart = false
			if isParamModifier(e.text(k)) && k+1 < len(toks) &&
				(toks[k+1].kind == tkIdent || e.is(k+1, tkPunct, "{") || e.is(k+1, tkPunct, "[")) {
				return &violation{t.start, "TypeScript constructor parameter property \"" + e.text(k) + " " + e.text(k+1) +
					"\"" + notErasable + "declare the field in the class body and assign it in the constructor"}
			}
			continue
		}
		if t.kind != tkPunct {
			paramStart = false
			continue
		}
		switch p := e.text(k); p {
		case "(", "[", "{":
			if t.close == 0 {
				return nil // the rest of the program is inside this bracket
			}
			if inType {
				angle = e.angleAcross(k).apply(angle)
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
func (e *erasableCheck) angleAcross(k int) angleEffect {
	if e.angles == nil {
		e.angles = e.angleEffects()
	}
	return e.angles[k]
}

// angleEffects returns, for each opening bracket that is closed, the effect of the tokens
// inside it; it stops early when e.poll says the compilation must stop.
func (e *erasableCheck) angleEffects() []angleEffect {
	effects := make([]angleEffect, len(e.toks))
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
	for k, t := range e.toks {
		if e.poll.stop() {
			break
		}
		if t.kind != tkPunct {
			continue
		}
		switch p := e.text(k); p {
		case "(", "[", "{":
			if t.close > 0 {
				stack = append(stack, open{tok: k})
			}
		case ")", "]", "}":
			// Closed brackets nest, so the innermost one open is the only one k can close.
			if n := len(stack); n > 0 && int(e.toks[stack[n-1].tok].close) == k {
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
