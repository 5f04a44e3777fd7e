package transpile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// countdownContext is done from its flip-th call of Err on; it counts the calls.
type countdownContext struct {
	context.Context
	flip, calls int
}

func (c *countdownContext) Err() error {
	c.calls++
	if c.calls >= c.flip {
		return context.Canceled
	}
	return nil
}

// TestScanStops: the scan looks at the context before each of its passes and, within the long
// ones, every pollEvery tokens. A context done before a pass (or in the middle of one) stops the
// scan there: the next look returns the error, and no later pass starts.
func TestScanStops(t *testing.T) {
	src := strings.Repeat("x = -a.b.c;\n", 256<<10/12)
	// A full scan, counting the looks before each pass.
	full := &countdownContext{Context: context.Background(), flip: math.MaxInt}
	lookedBefore := map[scanPass]int{}
	c := compilation{poll: newPoller(full), src: src, opts: Options{onScanPass: func(p scanPass) { lookedBefore[p] = full.calls }}}
	_, _, err := c.scan()
	require.NoError(t, err)
	tokens := len(c.tokens.toks)
	require.Len(t, lookedBefore, int(passBlank)+1)
	for p := passTokenize; p < passBlank; p++ {
		require.Less(t, lookedBefore[p], lookedBefore[p+1])
	}
	// The long passes look within: at least once per pollEvery tokens.
	for _, p := range []scanPass{passTokenize, passCheck, passDiagnostics} {
		require.GreaterOrEqual(t, lookedBefore[p+1]-lookedBefore[p], tokens/pollEvery, "pass %d", p)
	}

	type stop struct {
		name     string
		flip     int      // the look that sees the context done
		passes   scanPass // the passes started
		tokenize bool     // tokenize stopped early
	}
	var stops []stop
	for p := passTokenize; p <= passBlank; p++ {
		stops = append(stops, stop{name: fmt.Sprintf("before pass %d", p), flip: lookedBefore[p], passes: p})
	}
	for _, p := range []scanPass{passTokenize, passCheck, passDiagnostics} {
		stops = append(stops, stop{name: fmt.Sprintf("inside pass %d", p), flip: (lookedBefore[p] + lookedBefore[p+1]) / 2,
			passes: p + 1, tokenize: p == passTokenize})
	}
	for _, tt := range stops {
		t.Run(tt.name, func(t *testing.T) {
			ctx := &countdownContext{Context: context.Background(), flip: tt.flip}
			var started []scanPass
			c := compilation{poll: newPoller(ctx), src: src, opts: Options{onScanPass: func(p scanPass) { started = append(started, p) }}}
			input, refused, err := c.scan()
			require.ErrorIs(t, err, context.Canceled)
			require.False(t, errors.As(err, new(*Error)), "not a compile error, which would be cached")
			require.Empty(t, input)
			require.Nil(t, refused)
			require.Len(t, started, int(tt.passes), "no pass starts after the stop")
			// The look that saw it was the last one (context.Cause looks once more).
			require.LessOrEqual(t, ctx.calls, tt.flip+1)
			// Steps counted after that look (each makes left negative): the pass returned at once.
			require.GreaterOrEqual(t, c.poll.left, -1, "steps taken after the stop")
			if tt.tokenize {
				require.Less(t, len(c.tokens.toks), tokens, "tokenize stopped early")
			}
		})
	}
}
