package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPinInterruptHandler(t *testing.T) {
	m, err := Decode(QuickJS())
	require.NoError(t, err)
	stores := func(m *Module, offset uint32) (n int) {
		for _, in := range m.body(1124).Body { // js_evalScript in the pinned build
			if (in.Op == opI32Store || in.Op == 0x37) && in.B == offset {
				n++
			}
		}
		return n
	}
	require.GreaterOrEqual(t, stores(m, 152), 2, "evalScript installs and clears rt->interrupt_handler (offset 152)")
	require.NoError(t, pinInterruptHandler(m))
	require.Zero(t, stores(m, 152))
	require.Error(t, pinInterruptHandler(m), "a second application finds nothing to pin")

	_, err = m.Encode()
	require.NoError(t, err)
}
