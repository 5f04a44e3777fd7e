package wasm

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAppendUleb: the unsigned encoder writes the shortest encoding, byte
// for byte as the spec's examples and encoding/binary (an independent
// LEB128 writer) have it, and readUleb reads it back within its width.
func TestAppendUleb(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    uint64
		want []byte
		bits uint // the narrowest width readUleb must accept it at
	}{
		{"zero", 0, []byte{0x00}, 32},
		{"63", 63, []byte{0x3f}, 32},
		{"64", 64, []byte{0x40}, 32},
		{"127, the largest one-byte value", 127, []byte{0x7f}, 32},
		{"128, the smallest two-byte value", 128, []byte{0x80, 0x01}, 32},
		{"624485, the spec's example", 624485, []byte{0xe5, 0x8e, 0x26}, 32},
		{"max int32", math.MaxInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x07}, 32},
		{"max uint32", math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 32},
		{"max uint32 + 1", math.MaxUint32 + 1, []byte{0x80, 0x80, 0x80, 0x80, 0x10}, 64},
		{"max int64", math.MaxInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 64},
		{"max uint64", math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendUleb([]byte{0xaa}, tc.v)
			require.Equal(t, append([]byte{0xaa}, tc.want...), got, "it appends")
			require.Equal(t, binary.AppendUvarint(nil, tc.v), got[1:])
			v, n, err := readUleb(got[1:], tc.bits)
			require.NoError(t, err)
			require.Equal(t, tc.v, v)
			require.Equal(t, len(tc.want), n)
			if tc.bits == 64 {
				_, _, err := readUleb(got[1:], 32)
				require.ErrorIs(t, err, errOverflow, "wider than 32 bits")
			}
		})
	}
}

// TestAppendSleb: the signed encoder writes the shortest two's-complement
// encoding, whose last byte's bit 6 is the sign, and ReadSleb reads it back
// sign-extended within its width.
func TestAppendSleb(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    int64
		want []byte
		bits uint
	}{
		{"zero", 0, []byte{0x00}, 32},
		{"63, the largest one-byte value", 63, []byte{0x3f}, 32},
		{"64 needs a second byte for its sign", 64, []byte{0xc0, 0x00}, 32},
		{"127", 127, []byte{0xff, 0x00}, 32},
		{"128", 128, []byte{0x80, 0x01}, 32},
		{"-1", -1, []byte{0x7f}, 32},
		{"-64, the smallest one-byte value", -64, []byte{0x40}, 32},
		{"-65", -65, []byte{0xbf, 0x7f}, 32},
		{"-128", -128, []byte{0x80, 0x7f}, 32},
		{"-123456, the spec's example", -123456, []byte{0xc0, 0xbb, 0x78}, 32},
		{"max int32", math.MaxInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x07}, 32},
		{"min int32", math.MinInt32, []byte{0x80, 0x80, 0x80, 0x80, 0x78}, 32},
		{"max uint32, not an int32", math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 64},
		{"max int64", math.MaxInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 64},
		{"min int64", math.MinInt64, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendSleb([]byte{0xaa}, tc.v)
			require.Equal(t, append([]byte{0xaa}, tc.want...), got, "it appends")
			v, n, err := ReadSleb(got[1:], tc.bits)
			require.NoError(t, err)
			require.Equal(t, tc.v, v)
			require.Equal(t, len(tc.want), n)
			if tc.bits == 64 {
				_, _, err := ReadSleb(got[1:], 32)
				require.ErrorIs(t, err, errOverflow, "outside int32")
			}
		})
	}
}
