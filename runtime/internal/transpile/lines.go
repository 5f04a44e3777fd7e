package transpile

import (
	"unicode/utf8"
)

// lineIndex locates byte offsets of a text as 1-based lines and 1-based UTF-16 columns, with the
// line terminators JavaScript (and esbuild) recognise: "\n", "\r\n", "\r", U+2028 and U+2029.
type lineIndex struct {
	text   string
	starts []int // byte offset at which each line starts
}

func newLineIndex(text string) *lineIndex {
	li := &lineIndex{text: text, starts: []int{0}}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			i++
			li.starts = append(li.starts, i)
		case c == '\r':
			i++
			if i < len(text) && text[i] == '\n' {
				i++
			}
			li.starts = append(li.starts, i)
		case c == 0xE2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9):
			i += 3
			li.starts = append(li.starts, i)
		default:
			i++
		}
	}
	return li
}

// lines reports the number of lines.
func (li *lineIndex) lines() int { return len(li.starts) }

// lineText returns the text of 1-based line n without its terminator.
func (li *lineIndex) lineText(n int) string {
	start := li.starts[n-1]
	end := len(li.text)
	if n < len(li.starts) {
		end = li.starts[n]
	}
	s := li.text[start:end]
	for len(s) > 0 {
		switch {
		case s[len(s)-1] == '\n' || s[len(s)-1] == '\r':
			s = s[:len(s)-1]
			continue
		case len(s) >= 3 && s[len(s)-3] == 0xE2 && s[len(s)-2] == 0x80 && (s[len(s)-1] == 0xA8 || s[len(s)-1] == 0xA9):
			s = s[:len(s)-3]
			continue
		}
		break
	}
	return s
}

// position converts a byte offset into a 1-based line and 1-based UTF-16 column.
func (li *lineIndex) position(offset int) (line, col int) {
	lo, hi := 0, len(li.starts)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if li.starts[mid] <= offset {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1, utf16Len(li.text[li.starts[lo]:offset]) + 1
}

// end returns the position just past the last character of the text.
func (li *lineIndex) end() (line, col int) {
	n := li.lines()
	return n, utf16Len(li.lineText(n)) + 1
}

// utf16Len counts the UTF-16 code units of s (an invalid byte counts as one, like U+FFFD).
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// utf16Col converts a 0-based byte column of line into a 0-based UTF-16 column; a column past
// the end of the line is extended by one unit per byte.
func utf16Col(line string, byteCol int) int {
	if byteCol <= 0 {
		return 0
	}
	if byteCol > len(line) {
		return utf16Len(line) + byteCol - len(line)
	}
	return utf16Len(line[:byteCol])
}
