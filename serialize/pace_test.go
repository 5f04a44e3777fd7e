package serialize

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requirePacedAgrees checks that CheckJSONPaced, with pieces of every small
// size, gives CheckJSON's answer for b.
func requirePacedAgrees(t testing.TB, b []byte) {
	t.Helper()
	want := CheckJSON(b)
	for _, piece := range []int{1, 2, 3, 5, 8, 13, 64} {
		pauses := 0
		got := CheckJSONPaced(b, piece, func() error { pauses++; return nil })
		require.Equal(t, want, got, "piece %d, input %.80q", piece, b)
		require.LessOrEqual(t, pauses, len(b)/piece*2+1, "piece %d", piece)
	}
}

// longNumbers returns numbers long enough to be parsed in their short form
// (see maxParsedDigits), next to the answer CheckJSON owes for each.
func longNumbers() []struct {
	name string
	in   string
	err  error
} {
	// T = 2^1024 - 2^970 is halfway between the largest float64 and 2^1024:
	// it and anything above it rounds to +Inf.
	t := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970))
	tm1 := new(big.Int).Sub(t, big.NewInt(1))
	// H = 2^-1075 is halfway between 0 and the smallest float64: it rounds
	// to 0 (to even), anything above it to the smallest float64.
	h := new(big.Float).SetPrec(4000).SetMantExp(big.NewFloat(1), -1075).Text('f', 1100)
	h = strings.TrimRight(h, "0")
	zeros := strings.Repeat("0", 2000)
	return []struct {
		name string
		in   string
		err  error
	}{
		{"halfway to Inf", t.String() + "." + zeros, errNumberOverflow},
		{"above halfway to Inf", t.String() + "." + zeros + "1", errNumberOverflow},
		{"below halfway to Inf", tm1.String() + "." + strings.Repeat("9", 2000), errUnsafeInteger},
		{"halfway to -0", "-" + h + zeros, errNegativeZero},
		{"above halfway to -0", "-" + h + zeros + "1", nil},
		{"above halfway to -0, exponent", "-" + h + zeros + "1e0", nil},
		{"long zero fraction", "-0." + zeros + zeros, errNegativeZero},
		{"tiny positive", "0." + zeros + "1", nil},
		{"2^53 with zeros", "9007199254740992." + zeros, nil},
		{"2^53 and a bit", "9007199254740992." + zeros + "1", errUnsafeInteger},
		{"2^53 long exponent form", "0.9007199254740992" + zeros + "e16", nil},
		{"huge integer", "1" + zeros, errNumberOverflow},
		{"exponent with leading zeros", "1e" + zeros + "1", nil},
		{"long exponent", "1e1" + zeros, errNumberOverflow},
		{"long negative exponent", "-1e-1" + zeros, errNegativeZero},
	}
}

func TestCheckJSONLongNumbers(t *testing.T) {
	for _, tc := range longNumbers() {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJSON([]byte(tc.in))
			if tc.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.err)
			}
			requirePacedAgrees(t, []byte(tc.in))
			requirePacedAgrees(t, []byte("["+tc.in+" , "+tc.in+"]"))
		})
	}
}

// TestCheckJSONPacedPieces checks that a paced check pauses once per piece
// of text, whatever the text is made of, and agrees with CheckJSON.
func TestCheckJSONPacedPieces(t *testing.T) {
	const size, piece = 1 << 20, 4 << 10
	tests := []struct {
		name string
		in   string
	}{
		{"string", `"` + strings.Repeat("x", size) + `"`},
		{"escaped string", `"` + strings.Repeat(`\n\u00e9`, size/8) + `"`},
		{"utf-8 string", `"` + strings.Repeat("é日😀", size/9) + `"`},
		{"spaces", strings.Repeat(" ", size) + "1"},
		{"digits", "1" + strings.Repeat("2", size)},
		{"small tokens", "[" + strings.Repeat("1,true,null,", size/12) + "0]"},
		{"nesting", strings.Repeat("[", size/2) + strings.Repeat("]", size/2)},
		{"keys", "{" + strings.Repeat(`"k":{`, size/5) + strings.Repeat("}", size/5) + "}"},
		{"unterminated string", `"` + strings.Repeat("x", size)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.in)
			pauses := 0
			err := CheckJSONPaced(b, piece, func() error { pauses++; return nil })
			require.Equal(t, CheckJSON(b), err)
			require.GreaterOrEqual(t, pauses, len(b)/(piece+16)-1)
			require.LessOrEqual(t, pauses, len(b)/piece+1)
		})
	}
}

// TestCheckJSONPacedStops checks that a failed pause ends the check at once
// with its error: no pause is called after it.
func TestCheckJSONPacedStops(t *testing.T) {
	stop := errors.New("stop")
	inputs := []string{
		`"` + strings.Repeat("x", 1<<20) + `"`,
		"[" + strings.Repeat("1,", 1<<19) + "1]",
		strings.Repeat("[", 1<<19) + strings.Repeat("]", 1<<19),
		strings.Repeat(" ", 1<<20) + "1",
		"1" + strings.Repeat("0", 1<<20),
		"0." + strings.Repeat("0", 1<<20) + "1",
		`{"` + strings.Repeat("k", 1<<20) + `":1}`,
	}
	for _, in := range inputs {
		for _, at := range []int{1, 3, 10} {
			pauses := 0
			err := CheckJSONPaced([]byte(in), 4<<10, func() error {
				pauses++
				if pauses >= at {
					return stop
				}
				return nil
			})
			require.ErrorIs(t, err, stop, "%.20q", in)
			require.Equal(t, at, pauses, "%.20q", in)
		}
	}
}
