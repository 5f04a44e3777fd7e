package quickjs

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/linearmem"
	"github.com/coderun/coderun/wasm"
)

// TestDataSpans checks the data-section scan against the generated engine,
// whose snapshot image is active segments at constant offsets, and against
// hand-made sections: passive segments, other memories and non-constant
// offsets are left out, negative constants read as wazero reads them, and
// a malformed section gives nothing past the point it breaks.
func TestDataSpans(t *testing.T) {
	engine, _, err := wasm.Engine()
	require.NoError(t, err)
	spans := dataSpans(engine)
	require.NotEmpty(t, spans)
	var total uint64
	for _, s := range spans {
		total += s.Len
	}
	require.Greater(t, total, uint64(100_000), "the snapshot image is hundreds of KB")

	header := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	section := func(body ...byte) []byte {
		return append(append(append([]byte(nil), header...), 11, byte(len(body))), body...)
	}
	for _, c := range []struct {
		name string
		src  []byte
		want []linearmem.Span
	}{
		{"active", section(1, 0, 0x41, 0x80, 0x08, 0x0b, 3, 1, 2, 3), []linearmem.Span{{Off: 1024, Len: 3}}},
		{"passive and active", section(2, 1, 2, 9, 9, 0, 0x41, 16, 0x0b, 1, 7), []linearmem.Span{{Off: 16, Len: 1}}},
		{"memory 1", section(1, 2, 1, 0x41, 0, 0x0b, 1, 7), nil},
		{"memory 0 explicit", section(1, 2, 0, 0x41, 4, 0x0b, 1, 7), []linearmem.Span{{Off: 4, Len: 1}}},
		{"negative offset", section(1, 0, 0x41, 0x7f, 0x0b, 1, 7), []linearmem.Span{{Off: 0xffffffff, Len: 1}}},
		{"global offset", section(2, 0, 0x41, 8, 0x0b, 1, 7, 0, 0x23, 0, 0x0b, 1, 7), []linearmem.Span{{Off: 8, Len: 1}}},
		{"empty segment", section(1, 0, 0x41, 8, 0x0b, 0), nil},
		{"truncated bytes", section(1, 0, 0x41, 8, 0x0b, 5, 1), nil},
		{"section past the end", append(append([]byte(nil), header...), 11, 50, 1), nil},
		{"no data section", header, nil},
		{"short", []byte{0, 'a'}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, dataSpans(c.src))
		})
	}
}

// The offset expressions of data segments that dataSpans and splitImage
// read: only i32.const N end, N an s32 (a longer number is refused).
func TestI32ConstExpr(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want int32
		n    int
		ok   bool
	}{
		{"zero", []byte{0x41, 0x00, 0x0b}, 0, 3, true},
		{"trailing bytes", []byte{0x41, 0x80, 0x08, 0x0b, 0xff}, 1024, 4, true},
		{"negative", []byte{0x41, 0x7f, 0x0b}, -1, 3, true},
		{"max", []byte{0x41, 0xff, 0xff, 0xff, 0xff, 0x07, 0x0b}, 1<<31 - 1, 7, true},
		{"beyond s32", []byte{0x41, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b}, 0, 0, false},
		{"too long", []byte{0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x0b}, 0, 0, false},
		{"global.get", []byte{0x23, 0x00, 0x0b}, 0, 0, false},
		{"no end", []byte{0x41, 0x00, 0x01}, 0, 0, false},
		{"cut in the number", []byte{0x41, 0x80}, 0, 0, false},
		{"cut before end", []byte{0x41, 0x05}, 0, 0, false},
		{"empty", nil, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, n, ok := i32ConstExpr(tc.in)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, v)
			require.Equal(t, tc.n, n)
		})
	}
}
