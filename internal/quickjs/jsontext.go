package quickjs

import (
	"math"
	"strconv"
)

// appendNumber appends the text JavaScript's [Number::toString] (and so
// JSON.stringify) gives the finite number f: the shortest digits that
// round-trip, in positional notation from 1e-7 up to 1e21 and in exponent
// notation ("1.5e-7", "1e+21") outside that range. f must be finite; -0 is
// printed as "0", as JavaScript does.
//
// [Number::toString]: https://tc39.es/ecma262/#sec-numeric-types-number-tostring
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	var buf [32]byte
	// 'e' with precision -1 gives the shortest round-trip digits as
	// d[.ddd]e±XX.
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	mark := 0
	for e[mark] != 'e' {
		mark++
	}
	exp, _ := strconv.Atoi(string(e[mark+1:]))
	var digits [24]byte
	k := copy(digits[:], e[:1])
	if mark > 1 {
		k += copy(digits[k:], e[2:mark]) // the digits after the point
	}
	d := digits[:k]
	n := exp + 1 // the decimal point comes after n digits (ECMA-262 Number::toString)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for i := k; i < n; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := n; i < 0; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// appendLatin1String appends the JSON string literal JSON.stringify prints
// ([QuoteJSONString]) for a JavaScript string stored with 8-bit characters (Latin-1, as QuickJS
// keeps strings without characters above U+00FF): characters above U+007F
// become their UTF-8 bytes, and the quote, the backslash and the controls
// are escaped as JSON.stringify escapes them.
//
// [QuoteJSONString]: https://tc39.es/ecma262/#sec-quotejsonstring
func appendLatin1String(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch {
		case c >= 0x80:
			dst = append(dst, 0xC0|c>>6, 0x80|c&0x3F)
		case c == '"', c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
