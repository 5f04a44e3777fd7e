package wasm

import "fmt"

// regexpLineTerminatorMessage is the error message js_parse_regexp throws
// for a regular expression literal cut by a line break; the pass finds the
// regexp parser by it.
const regexpLineTerminatorMessage = "unexpected line terminator in regexp"

// Token values of QuickJS-NG's lexer in the pinned build (quickjs.c, the
// enum that starts at TOK_NUMBER = -128; keywords follow TOK_EOF).
const (
	tokFirst       = -128 // TOK_NUMBER
	tokIdent       = -125 // TOK_IDENT
	tokPrivateName = -87  // TOK_PRIVATE_NAME
	tokThis        = -78  // TOK_THIS, the last negative token is_regexp_allowed lists
)

// regexpNotAllowedAfter is the set of negative tokens after which the
// pinned build's is_regexp_allowed reads `/` as division: TOK_NUMBER,
// TOK_STRING, TOK_IDENT, TOK_REGEXP, TOK_DEC, TOK_INC, TOK_NULL, TOK_FALSE,
// TOK_TRUE and TOK_THIS (the characters `)`, `]` and `}` are tested
// separately, after the table).
var regexpNotAllowedAfter = map[int32]bool{
	-128: true, -127: true, tokIdent: true, -124: true, -108: true, -107: true,
	-85: true, -84: true, -83: true, tokThis: true,
}

// divideAfterPrivateName backports QuickJS-NG's fix 7532965 (first released
// in v0.13.0): js_parse_skip_parens_token, the lookahead the parser runs at
// `(` (arrow functions) and at `[`/`{` (destructuring), asks
// is_regexp_allowed(last_tok) whether a `/` starts a regular expression, and
// that switch does not list TOK_PRIVATE_NAME. So in `(this.#f / 2)` the
// lookahead lexes `/ 2)…` as a regexp literal; it usually runs into a line
// break, and the parse fails with "SyntaxError: unexpected line terminator
// in regexp" although the expression is valid. The fix makes a private
// name behave like an identifier: a `/` after it is division.
//
// The function is found by structure: the regexp parser is the only
// function that refers to regexpLineTerminatorMessage, and
// js_parse_skip_parens_token the only function of type
// (s, pbits, no_line_terminator) -> int that calls it. In it clang compiles
// is_regexp_allowed's negative cases to the only
//
//	local.get last_tok; i32.const 128; i32.add; br_table
//
// whose table has one entry per token from TOK_NUMBER to TOK_THIS, the
// entries of exactly the regexpNotAllowedAfter tokens branching to one
// label ("not a regexp") and every other entry and the default to another
// ("a regexp"). The pass points TOK_PRIVATE_NAME's entry at the "not a
// regexp" label. A module in which any of this differs is refused.
func divideAfterPrivateName(m *Module) error {
	skip, err := m.skipParensToken()
	if err != nil {
		return fmt.Errorf("wasm: divide after private name: %w", err)
	}
	body := m.Code[skip].Body
	site := -1
	for k := 2; k < len(body); k++ {
		if body[k].Op == opBrTable && body[k-1].Op == opI32Add &&
			body[k-2].Op == opI32Const && body[k-2].i32() == -tokFirst && isRegexpAllowedTable(body[k]) {
			if site >= 0 {
				return fmt.Errorf("wasm: divide after private name: more than one is_regexp_allowed table")
			}
			site = k
		}
	}
	if site < 0 {
		return fmt.Errorf("wasm: divide after private name: the is_regexp_allowed table was not found " +
			"(or the fix is already in the module)")
	}
	table := append([]uint32(nil), body[site].Vec...)
	table[tokPrivateName-tokFirst] = table[tokThis-tokFirst]
	body[site].Vec = table
	return nil
}

// skipParensToken returns the m.Code position of js_parse_skip_parens_token.
func (m *Module) skipParensToken() (int, error) {
	addr, err := m.cString(regexpLineTerminatorMessage)
	if err != nil {
		return 0, err
	}
	parser := -1
	for i := range m.Code {
		if refersTo(m.Code[i].Body, addr) {
			if parser >= 0 {
				return 0, fmt.Errorf("more than one function refers to %q", regexpLineTerminatorMessage)
			}
			parser = i
		}
	}
	if parser < 0 {
		return 0, fmt.Errorf("no function refers to %q", regexpLineTerminatorMessage)
	}
	callee := m.numImportedFuncs() + uint32(parser)
	want := FuncType{Params: []ValType{i32, i32, i32}, Results: []ValType{i32}}
	found := -1
	for i := range m.Code {
		ft, ok := m.typeAt(m.Funcs[i])
		if !ok || !ft.Equal(want) || !calls(m.Code[i].Body, callee) {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("more than one function of type (i32, i32, i32) -> i32 calls the regexp parser")
		}
		found = i
	}
	if found < 0 {
		return 0, fmt.Errorf("js_parse_skip_parens_token not found")
	}
	return found, nil
}

// isRegexpAllowedTable reports whether the br_table in is is_regexp_allowed
// of the pinned build, without the fix: indexed by token+128 up to
// TOK_THIS, with exactly the regexpNotAllowedAfter entries on one label and
// all others (TOK_PRIVATE_NAME among them) and the default on another.
func isRegexpAllowedTable(in Instr) bool {
	if len(in.Vec) != tokThis-tokFirst+1 {
		return false
	}
	no, yes := in.Vec[tokThis-tokFirst], in.A
	if no == yes {
		return false
	}
	for i, target := range in.Vec {
		want := yes
		if regexpNotAllowedAfter[int32(i+tokFirst)] {
			want = no
		}
		if target != want {
			return false
		}
	}
	return true
}

// calls reports whether body has a direct call of function fn.
func calls(body []Instr, fn uint32) bool {
	for _, in := range body {
		if in.Op == opCall && in.A == fn {
			return true
		}
	}
	return false
}
