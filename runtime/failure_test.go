package runtime

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// A trap that is neither the memory cap nor an exit is reported as the
// engine's fault, so that a model does not hunt for it in its program;
// other instance failures keep their own words.
func TestFailureMessage(t *testing.T) {
	for _, tc := range []struct {
		err  string
		want string
	}{
		{"wasm error: out of bounds memory access\nwasm stack trace:\n\t.JS_CallInternal(...)",
			"worker error: the JavaScript engine faulted (out of bounds memory access); this is an engine bug, not an error in the program"},
		{"wasm error: unreachable\nwasm stack trace:\n\t.free(i32)",
			"worker error: the JavaScript engine faulted (unreachable); this is an engine bug, not an error in the program"},
		{"wasm error: integer divide by zero", "worker error: the JavaScript engine faulted (integer divide by zero); this is an engine bug, not an error in the program"},
		{"quickjs: guest out of memory", "worker error: quickjs: guest out of memory"},
	} {
		require.Equal(t, tc.want, failureMessage(errors.New(tc.err)), tc.err)
	}
}
