package transpile

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// segment is one decoded mapping of a generated line: the generated column and, when mapped is
// true, the 0-based line and column in the source that produced it. Columns count UTF-16 code
// units, as source maps do.
type segment struct {
	genCol  int32
	srcLine int32
	srcCol  int32
	mapped  bool
}

// sourceMap holds the decoded "mappings" of a version 3 source map with a single source: one
// slice of segments per generated line, each sorted by generated column.
type sourceMap struct {
	lines [][]segment
}

var errVLQ = errors.New("malformed VLQ mapping")

// namedSegment is a segment that carries a name: where esbuild printed an identifier under
// another name than the program's (see names.go). Lines are 0-based, columns 0-based UTF-16.
type namedSegment struct {
	genLine, genCol int32
	srcLine, srcCol int32
	name            int32 // index into the map's names
}

// parseSourceMap decodes the JSON text of a source map (only the fields needed here).
func parseSourceMap(text []byte) (*sourceMap, error) {
	sm, _, _, err := parseSourceMapNamed(nil, text)
	return sm, err
}

// parseSourceMapNamed decodes the JSON text of a source map and also returns its names and its
// named segments, in the order of the mappings. It stops, returning p's error, when p says the
// compilation must stop (see decodeMappingsNamed).
func parseSourceMapNamed(p *poller, text []byte) (*sourceMap, []string, []namedSegment, error) {
	var raw struct {
		Version  int      `json:"version"`
		Sources  []string `json:"sources"`
		Names    []string `json:"names"`
		Mappings string   `json:"mappings"`
	}
	if err := json.Unmarshal(text, &raw); err != nil {
		return nil, nil, nil, fmt.Errorf("source map: %w", err)
	}
	if raw.Version != 3 {
		return nil, nil, nil, fmt.Errorf("source map: unsupported version %d", raw.Version)
	}
	if len(raw.Sources) > 1 {
		return nil, nil, nil, fmt.Errorf("source map: %d sources, want 1", len(raw.Sources))
	}
	var named []namedSegment
	sm, err := decodeMappingsNamed(p, raw.Mappings, &named)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, n := range named {
		if int(n.name) >= len(raw.Names) {
			return nil, nil, nil, fmt.Errorf("%w: name %d of %d", errVLQ, n.name, len(raw.Names))
		}
	}
	return sm, raw.Names, named, nil
}

// base64Value maps a base64 digit to its value, or -1.
func base64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// decodeMappings decodes the "mappings" field: generated lines separated by ';', segments by
// ',', each segment 1, 4 or 5 base64 VLQ fields, all relative to the previous segment (the
// generated column restarts at 0 on every line).
func decodeMappings(m string) (*sourceMap, error) { return decodeMappingsNamed(nil, m, nil) }

// decodeMappingsNamed decodes the "mappings" field like decodeMappings and, when named is not
// nil, appends to it every segment that has a name. It looks at p every segment, and returns p's
// error when the compilation must stop.
//
// The segments of all lines share one array, sized by counting separators first: esbuild prints
// most programs on one line, whose segments append would otherwise copy over and over.
func decodeMappingsNamed(p *poller, m string, named *[]namedSegment) (*sourceMap, error) {
	all := make([]segment, 0, strings.Count(m, ",")+strings.Count(m, ";")+1)
	sm := &sourceMap{lines: make([][]segment, 0, strings.Count(m, ";")+1)}
	line := 0 // the index in all of the current line's first segment
	endLine := func() {
		var segs []segment // nil when the line has none
		if len(all) > line {
			segs = all[line:len(all):len(all)]
		}
		sm.lines = append(sm.lines, segs)
		line = len(all)
	}
	var genCol, srcIdx, srcLine, srcCol, nameIdx int64
	var fields [5]int64
	i := 0
	for i < len(m) {
		switch m[i] {
		case ';':
			endLine()
			genCol = 0
			i++
			continue
		case ',':
			i++
			continue
		}
		if p.stop() {
			return nil, p.err
		}
		n, next, err := readFields(m, i, &fields)
		if err != nil {
			return nil, err
		}
		i = next
		genCol += fields[0]
		seg := segment{genCol: int32(genCol)}
		switch n {
		case 1:
		case 4, 5:
			srcIdx += fields[1]
			srcLine += fields[2]
			srcCol += fields[3]
			if srcIdx != 0 || srcLine < 0 || srcCol < 0 {
				return nil, fmt.Errorf("%w: source %d line %d column %d", errVLQ, srcIdx, srcLine, srcCol)
			}
			seg.srcLine, seg.srcCol, seg.mapped = int32(srcLine), int32(srcCol), true
			if n == 5 {
				nameIdx += fields[4]
				if nameIdx < 0 || nameIdx > math.MaxInt32 {
					return nil, fmt.Errorf("%w: name %d", errVLQ, nameIdx)
				}
				if named != nil {
					*named = append(*named, namedSegment{
						genLine: int32(len(sm.lines)), genCol: int32(genCol),
						srcLine: seg.srcLine, srcCol: seg.srcCol, name: int32(nameIdx),
					})
				}
			}
		default:
			return nil, fmt.Errorf("%w: segment with %d fields", errVLQ, n)
		}
		if genCol < 0 {
			return nil, fmt.Errorf("%w: negative generated column", errVLQ)
		}
		all = append(all, seg)
	}
	endLine()
	for _, segs := range sm.lines {
		// esbuild sorts them already.
		if !slices.IsSortedFunc(segs, compareGenCol) {
			slices.SortStableFunc(segs, compareGenCol)
		}
	}
	return sm, nil
}

func compareGenCol(a, b segment) int { return cmp.Compare(a.genCol, b.genCol) }

// readFields decodes the fields of the segment at m[i:] into fields, and returns how many it
// holds and the offset after it.
func readFields(m string, i int, fields *[5]int64) (n, next int, err error) {
	for i < len(m) && m[i] != ',' && m[i] != ';' {
		if n == len(fields) {
			return 0, 0, fmt.Errorf("%w: segment with more than 5 fields at offset %d", errVLQ, i)
		}
		v, after, err := decodeVLQ(m, i)
		if err != nil {
			return 0, 0, err
		}
		fields[n] = v
		n++
		i = after
	}
	return n, i, nil
}

// decodeVLQ decodes one base64 VLQ value starting at m[i]: 5 data bits per digit, least
// significant group first, bit 5 set on every digit but the last; the lowest bit of the result
// is the sign.
func decodeVLQ(m string, i int) (value int64, next int, err error) {
	var result uint64
	shift := uint(0)
	for {
		if i >= len(m) {
			return 0, i, fmt.Errorf("%w: truncated value", errVLQ)
		}
		d := base64Value(m[i])
		if d < 0 {
			return 0, i, fmt.Errorf("%w: invalid digit %q at offset %d", errVLQ, m[i], i)
		}
		i++
		if shift > 56 {
			return 0, i, fmt.Errorf("%w: value too large", errVLQ)
		}
		result |= uint64(d&31) << shift
		if d&32 == 0 {
			break
		}
		shift += 5
	}
	v := int64(result >> 1)
	if result&1 != 0 {
		v = -v
	}
	return v, i, nil
}

// find returns the segment of generated line line (0-based) that covers generated column col
// (0-based, UTF-16): the last one at or before col, or else the first one on the line.
func (sm *sourceMap) find(line, col int) (segment, bool) {
	if line < 0 || line >= len(sm.lines) {
		return segment{}, false
	}
	segs := sm.lines[line]
	if len(segs) == 0 {
		return segment{}, false
	}
	k := sort.Search(len(segs), func(k int) bool { return int(segs[k].genCol) > col })
	if k == 0 {
		return segs[0], true
	}
	return segs[k-1], true
}
