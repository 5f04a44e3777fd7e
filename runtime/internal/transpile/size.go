package transpile

import (
	"fmt"
	"unicode/utf8"
)

// CheckSize returns an *Error when src is longer than limit bytes, located at the character in
// which the limit is crossed, e.g. `SyntaxError: the program is 4194304 bytes, over the limit of
// 1048576 bytes (MaxProgramBytes) (line 9:17)`. It reads only the first limit bytes of src and
// allocates nothing else.
func CheckSize(src string, limit int64) error {
	if int64(len(src)) <= limit {
		return nil
	}
	off := int(max(limit, 0))
	for off > 0 && !utf8.RuneStart(src[off]) {
		off--
	}
	line, col := positionOf(src, off)
	return &Error{Line: line, Column: col, Message: fmt.Sprintf(
		"SyntaxError: the program is %d bytes, over the limit of %d bytes (MaxProgramBytes)", len(src), limit)}
}

// positionOf returns the 1-based line and 1-based UTF-16 column of byte offset off in text, with
// the line terminators of lineIndex, without building an index.
func positionOf(text string, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off; {
		c := text[i]
		switch {
		case c == '\n':
			i++
		case c == '\r':
			i++
			if i < len(text) && text[i] == '\n' && i < off {
				i++
			}
		case c == 0xE2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9):
			i += 3
		default:
			i++
			continue
		}
		line, start = line+1, i
	}
	return line, utf16Len(text[start:off]) + 1
}
