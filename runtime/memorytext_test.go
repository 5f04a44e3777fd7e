package runtime

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/budget"
)

// The prelude words a binding argument that does not fit in the run's
// memory as budget words a binding result that does not (Memory.NoRoom):
// the drift test evaluates the prelude's concatenation with the figures the
// host hands it and compares it with budget's text.
func TestPreludeNoRoomMessage(t *testing.T) {
	expr := regexp.MustCompile(`return ("binding argument of "[^;]*);`).FindStringSubmatch(preludeJS)
	require.NotNil(t, expr, "prelude.js words the memory refusal of a binding argument")
	for _, tc := range []struct{ bytes, limit int64 }{{1<<20 + 2, 4 << 20}, {7, 256 << 20}} {
		figures := map[string]int64{"bytes": tc.bytes, "limit": tc.limit}
		var got strings.Builder
		for _, term := range strings.Split(expr[1], " + ") {
			if n, ok := figures[term]; ok {
				got.WriteString(strconv.FormatInt(n, 10))
				continue
			}
			s, err := strconv.Unquote(term)
			require.NoError(t, err, "term %s of the prelude's message", term)
			got.WriteString(s)
		}
		require.Equal(t, budget.NewMemory(budget.Limits{MemoryBytes: tc.limit}).NoRoom("binding argument", tc.bytes), got.String())
	}
}
