package hostcalls

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every number of the protocol has one name, and the prelude's declaration
// gives each its value.
func TestPreludeConstants(t *testing.T) {
	decl := PreludeConstants()
	require.Regexp(t, `^const [A-Z_]+ = -?\d+(, [A-Z_]+ = -?\d+)*;$`, decl)
	seen := map[string]bool{}
	for _, c := range Protocol() {
		require.False(t, seen[c.Name], "%s is named twice", c.Name)
		seen[c.Name] = true
		require.Regexp(t, regexp.MustCompile(`(^const |, )`+c.Name+` = `+regexp.QuoteMeta(strconv.Itoa(c.Value))+`[,;]`), decl)
	}
}

// Within each group the guest tells apart, the numbers are distinct.
func TestProtocolGroupsDistinct(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []int
	}{
		{"ops", []int{OpLog, OpCall, OpTimer, OpClear, OpDone, OpCallValue, OpDoneValue, OpRefusal, OpPosition}},
		{"done kinds", []int{DoneValue, DoneNone, DoneThrow, DoneInvalid, DoneUnrenderable}},
		{"api ops", []int{APIStart, APIDeliver, APIRender}},
		{"event kinds", []int{EvResolve, EvReject, EvTimer, EvGoexit}},
		{"call codes (all negative: never an id)", []int{CallRefused, CallNeedsText, CallTooBig, CallNoMemory, CallInterrupted}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[int]bool{}
			for _, v := range tc.values {
				require.False(t, seen[v], "%d appears twice", v)
				seen[v] = true
			}
		})
	}
	for _, code := range []int{CallRefused, CallNeedsText, CallTooBig, CallNoMemory, CallInterrupted} {
		require.Negative(t, code)
	}
}
