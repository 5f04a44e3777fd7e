package quickjs

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendNumber(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {5, "5"}, {-42, "-42"}, {1.5, "1.5"},
		{0.1, "0.1"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"}, {123e18, "123000000000000000000"},
		{1 << 60, "1152921504606847000"}, {1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"},
		{-2.5e-10, "-2.5e-10"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {9007199254740993, "9007199254740992"}, {0.000123, "0.000123"},
		{123456789.125, "123456789.125"}, {1.2345678901234567e21, "1.2345678901234568e+21"},
	} {
		require.Equal(t, c.want, string(appendNumber(nil, c.f)), "%v", c.f)
	}
}

// evalString evaluates src in a fresh instance and returns its string value.
func evalString(t *testing.T, src string) string {
	t.Helper()
	in := newInstance(t, &nopHost{})
	v, err := in.Eval(src, "t.js", EvalGlobal)
	require.NoError(t, err)
	require.Equal(t, TagString, v.Tag(), src)
	s, err := in.String(v)
	require.NoError(t, err)
	return s
}

// appendNumber agrees with QuickJS's String(x) on edge cases and on numbers
// of every magnitude.
func TestAppendNumberMatchesEngine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var nums []float64
	add := func(fs ...float64) {
		for _, f := range fs {
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				nums = append(nums, f)
			}
		}
	}
	for e := -330; e <= 310; e++ {
		p := math.Pow(10, float64(e))
		add(p, 1.5*p, -7*p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)))
	}
	for range 3000 {
		add(math.Float64frombits(r.Uint64()), r.Float64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	var src strings.Builder
	src.WriteString("[")
	for i, f := range nums {
		if i > 0 {
			src.WriteString(",")
		}
		src.WriteString(strconv.FormatFloat(f, 'g', -1, 64)) // exact
	}
	src.WriteString(`].map(String).join("\n")`)
	want := strings.Split(evalString(t, src.String()), "\n")
	require.Len(t, want, len(nums))
	for i, f := range nums {
		require.Equal(t, want[i], string(appendNumber(nil, f)), "%b", f)
	}
}

// appendLatin1String prints every 8-bit character as JSON.stringify does.
func TestAppendLatin1StringMatchesEngine(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	want := evalString(t, `let s = ""; for (let i = 0; i < 256; i++) s += String.fromCharCode(i); JSON.stringify(s) + JSON.stringify("plain") + JSON.stringify("")`)
	got := appendLatin1String(nil, all)
	got = appendLatin1String(got, []byte("plain"))
	got = appendLatin1String(got, nil)
	require.Equal(t, want, string(got))
}
