package transpile

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"
)

// Names. esbuild renames every binding that shadows another one in an enclosing scope (or an
// unbound name the program uses, such as console): a nested "const load" is printed as "load2".
// The engine takes a function's name, its stack frames and its error messages ("load2 is not
// initialized") from the printed text, so coderun gives the program its names back: the
// source map names, at the segment of each renamed identifier, the name the program wrote, and
// restoreNames puts it back in the output and moves the segments after it.
//
// Restoring is sound when it restores every occurrence of each renamed binding, and only those:
// the output is then the program as the user wrote it, its bindings and scopes unchanged. That
// is shown without parsing when (fast path):
//   - every named segment is at an ASCII identifier of the output, and its name is one;
//   - the user's source holds that very name at the segment's original position (a shorthand
//     property esbuild made up from a key the user wrote, {load2}, fails this: the key would
//     change);
//   - every printed name that is restored somewhere occurs in the whole output, as a word, only
//     at named segments (so no occurrence of a restored binding keeps its printed name);
//   - no restored name ends in a digit: esbuild's new names always do, so a binding whose
//     occurrences all lack a name (and keep esbuild's name) cannot meet a restored one.
// Otherwise (slow path) the restored text is handed to esbuild once more, which must print
// exactly its first output again: the same scopes and bindings, renamed the same way. When that
// fails too the output keeps esbuild's names, as it is correct anyway.

// namesOutcome tells how a compilation's names were restored.
type namesOutcome uint8

const (
	namesNone     namesOutcome = iota // esbuild renamed nothing
	namesFast                         // restored, shown sound without parsing
	namesVerified                     // restored, checked by printing the result again
	namesKept                         // not restored: the output keeps esbuild's names
)

// renamed is a renamed identifier of esbuild's output: bytes [start, end) of the output, to be
// replaced by name.
type renamed struct {
	start, end int
	line       int32 // 0-based generated line
	col        int32 // 0-based UTF-16 column of start
	seg        int   // index of its named segment
	name       string
}

// restoreNames returns out with the names the program wrote in place of those esbuild made up,
// and adjusts sm (which it owns) to the new text; on namesKept, out and sm are returned
// unchanged. It looks at the compilation's context between its steps, and the slow path enters
// phaseNames first; err is set (and the result unusable) when the compilation must stop.
func (c *compilation) restoreNames(out string, sm *sourceMap, names []string, named []namedSegment) (string, namesOutcome, error) {
	if len(named) == 0 {
		return out, namesNone, nil
	}
	reps, ok := locateRenamed(out, names, named)
	if !ok {
		return out, namesKept, nil
	}
	if c.poll.check() {
		return "", namesKept, c.poll.err
	}
	sound := c.fastSound(out, reps, names, named)
	if c.poll.check() {
		return "", namesKept, c.poll.err
	}
	restored := applyRenamed(out, reps)
	outcome := namesFast
	if !sound {
		if err := c.enter(phaseNames); err != nil {
			return "", namesKept, err
		}
		if !reprintsAs(restored, out) {
			return out, namesKept, nil
		}
		outcome = namesVerified
	}
	shiftSegments(sm, reps)
	return restored, outcome, nil
}

// locateRenamed finds the identifier of out at each named segment, which must be in the body
// (after the wrapper's header) and whose name must be an ASCII identifier (or private name,
// like the printed one). Segments whose identifier already has its name are skipped.
func locateRenamed(out string, names []string, named []namedSegment) ([]renamed, bool) {
	reps := make([]renamed, 0, len(named))
	var lc lineCursor
	lc.init(out)
	for i, n := range named {
		if i > 0 && (n.genLine < named[i-1].genLine || n.genLine == named[i-1].genLine && n.genCol <= named[i-1].genCol) {
			return nil, false
		}
		start, ok := lc.offset(int(n.genLine), int(n.genCol))
		if !ok || start < len(minHeader) {
			return nil, false
		}
		end := identifierEnd(out, start)
		if end < 0 {
			return nil, false
		}
		name := names[n.name]
		if !asciiIdentifier(name) || (out[start] == '#') != (name[0] == '#') {
			return nil, false
		}
		if out[start:end] == name {
			continue
		}
		reps = append(reps, renamed{start: start, end: end, line: n.genLine, col: n.genCol, seg: i, name: name})
	}
	return reps, true
}

// identifierEnd returns the end of the ASCII identifier (or #private name) that starts at
// out[start], or -1 when none starts there: a word character before it, a digit first, or a
// character after it that an identifier may hold (an escape or a non-ASCII letter).
func identifierEnd(out string, start int) int {
	if start > 0 && (wordByte(out[start-1]) || out[start-1] == '#' || out[start-1] == '\\' || out[start-1] >= 0x80) {
		return -1
	}
	i := start
	if i < len(out) && out[i] == '#' {
		i++
	}
	if i >= len(out) || !wordByte(out[i]) || isDigit(out[i]) {
		return -1
	}
	for i < len(out) && wordByte(out[i]) {
		i++
	}
	if i < len(out) && (out[i] == '\\' || out[i] >= 0x80) {
		return -1
	}
	return i
}

// wordByte reports whether c may be part of an ASCII identifier.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

// asciiIdentifier reports whether s is an ASCII identifier, or # followed by one.
func asciiIdentifier(s string) bool {
	s = strings.TrimPrefix(s, "#")
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !wordByte(s[i]) {
			return false
		}
	}
	return true
}

// fastSound reports whether the fast path's conditions hold for reps (see "Names" above). It
// also turns each restoration that would change a shorthand property's key, {load2} for a key
// the user wrote as load2, into a property with both, {load2:load}, which only the slow path
// can accept.
func (c *compilation) fastSound(out string, reps []renamed, names []string, named []namedSegment) bool {
	sound := true
	holds := c.sourceHolds(names, named)
	printed := make(map[string]int, len(reps))
	for i := range reps {
		r := &reps[i]
		if isDigit(r.name[len(r.name)-1]) {
			sound = false
		}
		if !holds[r.seg] {
			sound = false
			if shorthandAt(out, r.start, r.end) {
				r.name = out[r.start:r.end] + ":" + r.name
			}
		}
		printed[strings.TrimPrefix(out[r.start:r.end], "#")]++
	}
	for _, h := range holds {
		sound = sound && h
	}
	if !sound {
		return false
	}
	// Each printed name occurs, as a word, only where it is restored.
	for i := 0; i < len(out); {
		if !wordByte(out[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(out) && wordByte(out[j]) {
			j++
		}
		if n, ok := printed[out[i:j]]; ok {
			if n == 0 {
				return false
			}
			printed[out[i:j]] = n - 1
		}
		i = j
	}
	return true
}

// shorthandAt reports whether the identifier out[start:end] may be a shorthand property, of
// an object literal or pattern: "{" or "," before it, "}", "," or a default's "=" after it.
func shorthandAt(out string, start, end int) bool {
	if start == 0 || out[start-1] != '{' && out[start-1] != ',' || end >= len(out) {
		return false
	}
	switch out[end] {
	case '}', ',':
		return true
	case '=':
		return end+1 < len(out) && out[end+1] != '=' && out[end+1] != '>'
	}
	return false
}

// sourceHolds reports, for each named segment, whether the user's source holds its name as a
// whole identifier at the segment's original position.
func (c *compilation) sourceHolds(names []string, named []namedSegment) []bool {
	holds := make([]bool, len(named))
	order := make([]int32, len(named))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := named[order[a]], named[order[b]]
		return x.srcLine < y.srcLine || x.srcLine == y.srcLine && x.srcCol < y.srcCol
	})
	// Input line n (0-based) is the user's line n (1-based); blank keeps every column.
	var lc lineCursor
	lc.init(c.src)
	lc.lines = c.lines
	for _, k := range order {
		n := named[k]
		if n.srcLine < 1 || int(n.srcLine) > c.lines.lines() {
			continue
		}
		start, ok := lc.offset(int(n.srcLine)-1, int(n.srcCol))
		name := names[n.name]
		holds[k] = ok && strings.HasPrefix(c.src[start:], name) && identifierEnd(c.src, start) == start+len(name)
	}
	return holds
}

// reprintsAs reports whether esbuild, given restored, prints want.
func reprintsAs(restored, want string) bool {
	res := api.Transform(restored, api.TransformOptions{
		Loader:           api.LoaderJS,
		Target:           api.ESNext,
		MinifyWhitespace: true,
		LegalComments:    api.LegalCommentsNone,
		LogOverride:      silencedWarnings(),
	})
	return len(res.Errors) == 0 && string(res.Code) == want
}

// applyRenamed returns out with each identifier of reps replaced by its name.
func applyRenamed(out string, reps []renamed) string {
	n := len(out)
	for _, r := range reps {
		n += len(r.name) - (r.end - r.start)
	}
	var b strings.Builder
	b.Grow(n)
	last := 0
	for _, r := range reps {
		b.WriteString(out[last:r.start])
		b.WriteString(r.name)
		last = r.end
	}
	b.WriteString(out[last:])
	return b.String()
}

// shiftSegments moves the segments of sm to the columns they have once reps are applied: each
// replacement moves what follows it on its line by the difference of the lengths (ASCII, so in
// bytes as in UTF-16 units).
func shiftSegments(sm *sourceMap, reps []renamed) {
	for i := 0; i < len(reps); {
		line := reps[i].line
		j := i
		for j < len(reps) && reps[j].line == line {
			j++
		}
		if int(line) < len(sm.lines) {
			segs := sm.lines[line]
			k, delta := i, int32(0)
			for s := range segs {
				for k < j && segs[s].genCol >= reps[k].col+int32(reps[k].end-reps[k].start) {
					delta += int32(len(reps[k].name) - (reps[k].end - reps[k].start))
					k++
				}
				segs[s].genCol += delta
			}
		}
		i = j
	}
}

// lineCursor converts 0-based lines and UTF-16 columns of a text to byte offsets, for positions
// given in increasing order: each line is walked once.
type lineCursor struct {
	text  string
	lines *lineIndex // nil: lines end at "\n" only, as esbuild's output and source map count them
	// starts of "\n"-separated lines, found as needed
	line, lineStart, off, col int
}

func (lc *lineCursor) init(text string) {
	lc.text = text
}

// offset returns the byte offset of the given position, which must not precede the previous
// one asked for; ok is false when the text has no such position.
func (lc *lineCursor) offset(line, col int) (int, bool) {
	if line < lc.line {
		return 0, false
	}
	for lc.line < line {
		if lc.lines != nil {
			if line >= lc.lines.lines() {
				return 0, false
			}
			lc.line = line
			lc.lineStart = lc.lines.starts[line]
		} else {
			nl := strings.IndexByte(lc.text[lc.off:], '\n')
			if nl < 0 {
				return 0, false
			}
			lc.line++
			lc.lineStart = lc.off + nl + 1
		}
		lc.off, lc.col = lc.lineStart, 0
	}
	if col < lc.col {
		lc.off, lc.col = lc.lineStart, 0
	}
	for lc.col < col {
		if lc.off >= len(lc.text) {
			return 0, false
		}
		c := lc.text[lc.off]
		if c == '\n' || c == '\r' {
			return 0, false
		}
		if c < 0x80 {
			lc.off++
			lc.col++
			continue
		}
		r, size := utf8.DecodeRuneInString(lc.text[lc.off:])
		lc.off += size
		if r > 0xFFFF {
			lc.col += 2
		} else {
			lc.col++
		}
	}
	if lc.col != col {
		return 0, false // inside a surrogate pair
	}
	return lc.off, true
}
