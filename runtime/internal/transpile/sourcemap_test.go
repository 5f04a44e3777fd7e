package transpile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeVLQ(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		next int
	}{
		{"A", 0, 1},
		{"C", 1, 1},
		{"D", -1, 1},
		{"e", 15, 1},
		{"f", -15, 1},
		{"gB", 16, 2},
		{"hB", -16, 2},
		{"2H", 123, 2},
		{"+/B", 1023, 3},
		{"+/D", 2047, 3},
		{"ggggE", 1 << 20 * 2, 5},
		{"AB", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, next, err := decodeVLQ(tt.in, 0)
			require.NoError(t, err)
			require.Equal(t, tt.want, v)
			require.Equal(t, tt.next, next)
		})
	}
}

func TestDecodeVLQErrors(t *testing.T) {
	for _, in := range []string{"", "g", "!", "gggggggggggggA"} {
		t.Run(in, func(t *testing.T) {
			_, _, err := decodeVLQ(in, 0)
			require.ErrorIs(t, err, errVLQ)
		})
	}
}

func TestDecodeMappings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]segment
	}{
		{name: "empty", in: "", want: [][]segment{nil}},
		{name: "empty lines", in: ";;", want: [][]segment{nil, nil, nil}},
		{
			name: "relative fields",
			// line 0: col 1 -> 0:1, col 16 -> 0:16; line 1: col 0 -> 1:1, col 9 -> 1:8
			in: "CAAC,eAAe;AACf,SAAO",
			want: [][]segment{
				{{genCol: 1, srcLine: 0, srcCol: 1, mapped: true}, {genCol: 16, srcLine: 0, srcCol: 16, mapped: true}},
				{{genCol: 0, srcLine: 1, srcCol: 1, mapped: true}, {genCol: 9, srcLine: 1, srcCol: 8, mapped: true}},
			},
		},
		{
			name: "unmapped and named segments",
			in:   "A,EAAAA;G",
			want: [][]segment{
				{{genCol: 0}, {genCol: 2, mapped: true}},
				{{genCol: 3}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm, err := decodeMappings(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, sm.lines)
		})
	}
}

func TestDecodeMappingsErrors(t *testing.T) {
	for _, in := range []string{"AA", "AAA", "AAAAAA", "ADAA", "AAFA", "AAAF", "D", "A!"} {
		t.Run(in, func(t *testing.T) {
			_, err := decodeMappings(in)
			require.ErrorIs(t, err, errVLQ)
		})
	}
}

func TestParseSourceMapErrors(t *testing.T) {
	for _, in := range []string{`{`, `{"version":2,"mappings":""}`, `{"version":3,"sources":["a","b"],"mappings":""}`} {
		t.Run(in, func(t *testing.T) {
			_, err := parseSourceMap([]byte(in))
			require.Error(t, err)
		})
	}
}

func TestSourceMapFind(t *testing.T) {
	sm, err := decodeMappings("EAAE,IAAI;;AAAA")
	require.NoError(t, err)
	tests := []struct {
		line, col int
		ok        bool
		srcCol    int32
	}{
		{0, 0, true, 2}, // before the first segment: the first one
		{0, 2, true, 2},
		{0, 5, true, 2},
		{0, 6, true, 6},
		{0, 100, true, 6},
		{1, 0, false, 0},
		{2, 0, true, 6},
		{3, 0, false, 0},
		{-1, 0, false, 0},
	}
	for _, tt := range tests {
		seg, ok := sm.find(tt.line, tt.col)
		require.Equal(t, tt.ok, ok, "line %d col %d", tt.line, tt.col)
		if ok {
			require.Equal(t, tt.srcCol, seg.srcCol, "line %d col %d", tt.line, tt.col)
		}
	}
}
