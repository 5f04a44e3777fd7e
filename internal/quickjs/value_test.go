package quickjs

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFloat64RoundTrip(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 1e8, 3 << 30, 4 << 30, math.MaxFloat64, -math.SmallestNonzeroFloat64, math.Inf(1)} {
		v := Float64(f)
		require.Equal(t, tagFloat64, v.Tag(), "%v", f)
		got, ok := v.Number()
		require.True(t, ok)
		require.Equal(t, f, got)
	}
}
