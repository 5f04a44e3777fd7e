package transpile

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestRespellAddedIdentifiers: plain JavaScript whose names use characters Unicode 16 and 17 added,
// which esbuild refuses, reaches the engine as written; with type syntax, a character where its
// kind is not allowed, or anything else esbuild refuses, esbuild's error stands.
func TestRespellAddedIdentifiers(t *testing.T) {
	// The spares of the added ID_Start characters of three bytes, which a program may use itself.
	allSpareStart3 := spareNames(spareStart3)
	last := spareStart3[len(spareStart3)-1].hi
	allButLast := strings.TrimSuffix(allSpareStart3, ", "+string(last))
	tests := []struct {
		name string
		src  string
		// errText is part of the error Compile must return, "" when it compiles verbatim.
		errText string
	}{
		{"raw ID_Start, BMP", "var \u1c89 = 1; return \u1c89", ""},
		{"raw ID_Start, astral", "let \U00010D4A\U00010D4B = 2\nreturn \U00010D4A\U00010D4B", ""},
		{"raw ID_Continue", "let a\u0897 = 1, b\U00010D40 = 2\nreturn a\u0897 + b\U00010D40", ""},
		{"escapes", "var _\\u0897\\u{10D40} = 1; return _\\u0897\\u{10D40}", ""},
		{"short and padded escapes", "var \\u{1c89}\\u{897} = 1; return \\u{0001C89}\\u{0000897}", ""},
		{"raw and escaped alike", "let \u1c89 = 1\nreturn \\u1C89 + \\u{1c89}", ""},
		{"private names", "class C { #\u1c89 = 1; #\\u{10D4A}\\u0897 = 2\n  get() { return this.#\u1c89 + this.#\\u{10D4A}\\u0897 } }\nreturn new C().get()", ""},
		{"distinct names stay distinct", "let \u1c89 = 1, \u1c8a = 2, \u088f = 3\nreturn [\u1c89, \u1c8a, \u088f]", ""},
		{"a spare the program uses", "let \u0840 = 1, \u1c89 = 2\nreturn \u0840 + \u1c89", ""},
		{"in strings, templates, comments and regular expressions", "// \u1c89\nlet s = '\u1c89' + `\u1c89${'\u0897'}` + /\u1c89/.source /* \u1c89 */\nlet \u1c89 = s\nreturn \u1c89", ""},
		{"shorthand property and member", "const \u1c89 = 1\nreturn { \u1c89 }.\u1c89", ""},
		{"type annotation", "let \u1c89: number = 1", `found "\u1c89"`},
		{"ID_Continue at the start", "let \u0897 = 1", `found "\u0897"`},
		{"escaped ID_Continue at the start", "let \\u{10D40}a = 1", "Invalid identifier"},
		{"not an identifier character", "let a\U0001CC00 = 1", "Expected"},
		{"the same name declared twice", "let \u1c89 = 1\nlet \\u{1C89} = 2", `found "\u1c89"`},
		{"another syntax error after", "let \u1c89 = 1\nlet = ;", `found "\u1c89"`},
		{"an await using esbuild refuses too", "for (await using r = null; ; ) break\nlet \u1c89 = 1", awaitUsingRefused},
		{"lone CR", "let \u1c89 = 1\rreturn \u1c89", `found "\u1c89"`},
		{"one spare left", "let " + allButLast + ", \u1c89 = 1\nreturn \u1c89", ""},
		{"no spare left", "let " + allSpareStart3 + ", \u1c89 = 1", `found "\u1c89"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.src)
			if tt.errText != "" {
				var e *Error
				require.ErrorAs(t, err, &e)
				require.Contains(t, e.Message, tt.errText)
				return
			}
			require.NoError(t, err)
			require.True(t, p.verbatim)
			require.Equal(t, outputHeader+directiveText+";\n"+tt.src+outputFooter, p.JS())
		})
	}
}

// spareNames returns every spare of rs as a name of its own, separated by commas.
func spareNames(rs []idRange) string {
	var names []string
	for _, r := range rs {
		for c := r.lo; c <= r.hi; c++ {
			names = append(names, string(c))
		}
	}
	return strings.Join(names, ", ")
}

// TestRespelledText: the respelling changes only the added characters of names, each into a
// character of its kind and length that the program does not use, the same for the same
// character however written.
func TestRespelledText(t *testing.T) {
	src := "let \u0840\u1c89 = '\u1c89' // \u1c89\nlet \\u{1c89}\\u0897\U00010D4A = \u0840\\u1c89\nclass C { #a\U00010D40 }"
	c := compilation{poll: newPoller(context.Background()), src: src}
	c.tokens = tokenize(src)
	input := inputHeader + src + inputFooter
	alt, ok := c.respellAddedIdentifiers(input)
	require.True(t, ok)
	require.Len(t, alt, len(input))
	got := alt[len(inputHeader) : len(alt)-len(inputFooter)]
	// U+0840 is the first spare of its table, which the program uses: U+1C89 gets U+0841.
	want := "let \u0840\u0841 = '\u1c89' // \u1c89\nlet \\u{0841}\\u081B\U00020000 = \u0840\\u0841\nclass C { #a\U00011435 }"
	require.Equal(t, want, got)
}

// TestAddedIdentifierTables: esbuild refuses the first and last character of every range of
// added characters where its kind is allowed, and accepts every spare's.
func TestAddedIdentifierTables(t *testing.T) {
	name := func(k idKind, r rune) string {
		if k == idAddedStart {
			return string(r)
		}
		return "a" + string(r)
	}
	check := func(rs []idRange, k idKind, accepted bool) {
		for _, rg := range rs {
			for _, r := range []rune{rg.lo, rg.hi} {
				in := inputHeader + "let " + name(k, r) + " = 1" + inputFooter
				require.Equal(t, accepted, printAsJS(in) != "", "U+%04X", r)
				if !accepted {
					require.Equal(t, k, addedKind(r), "U+%04X", r)
				} else {
					require.Equal(t, idOther, addedKind(r), "U+%04X", r)
				}
			}
		}
	}
	check(addedIDStart, idAddedStart, false)
	check(addedIDContinue, idAddedContinue, false)
	for _, rs := range [][]idRange{spareStart3, spareStart4} {
		check(rs, idAddedStart, true)
	}
	for _, rs := range [][]idRange{spareContinue3, spareContinue4} {
		check(rs, idAddedContinue, true)
		// A spare for ID_Continue is not ID_Start either.
		require.Empty(t, printAsJS(inputHeader+"let "+string(rs[0].lo)+" = 1"+inputFooter))
	}
	for _, rs := range [][]idRange{spareStart3, spareContinue3} {
		require.Equal(t, 3, utf8.RuneLen(rs[0].lo))
		require.LessOrEqual(t, rs[len(rs)-1].hi, rune(0xFFF))
	}
	for _, rs := range [][]idRange{spareStart4, spareContinue4} {
		require.Equal(t, 4, utf8.RuneLen(rs[0].lo))
		require.LessOrEqual(t, rs[len(rs)-1].hi, rune(0xFFFFF))
	}
}

// TestRespellEveryAddedCharacter: one name made of every added character (the ID_Start ones,
// then the others) is respelled into one esbuild accepts, written raw and escaped.
func TestRespellEveryAddedCharacter(t *testing.T) {
	var raw, esc strings.Builder
	for _, rs := range [][]idRange{addedIDStart, addedIDContinue} {
		for _, rg := range rs {
			for r := rg.lo; r <= rg.hi; r++ {
				raw.WriteRune(r)
				esc.WriteString("\\u{" + strings.ToLower(strings.TrimLeft(hex(r), "0")) + "}")
			}
		}
	}
	for _, name := range []string{raw.String(), esc.String()} {
		src := "let " + name + " = 1\nreturn " + name
		p, err := Compile(src)
		require.NoError(t, err)
		require.True(t, p.verbatim)
	}
}

func hex(r rune) string {
	const digits = "0123456789ABCDEF"
	var b [6]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[r&0xF]
		r >>= 4
	}
	return string(b[:])
}

// TestRespellAddedIdentifiersStops: the respelling's memory is asked for once an added character
// is found, and a refusal stops the compilation with the caller's error.
func TestRespellAddedIdentifiersStops(t *testing.T) {
	refused := errors.New("no memory")
	for _, tt := range []struct {
		src   string
		asked bool // the respelling asked for its memory
	}{
		{"let \u1c89 = 1", true},
		{"let = 1", false},
	} {
		_, err := CompileContext(context.Background(), tt.src, Options{Reserve: func(n int64) error {
			if n >= respelledIDBytes && n < respelledIDBytes+1<<10 {
				return refused
			}
			return nil
		}})
		require.Error(t, err)
		if tt.asked {
			require.ErrorIs(t, err, refused)
		} else {
			var e *Error
			require.ErrorAs(t, err, &e)
		}
	}
}
