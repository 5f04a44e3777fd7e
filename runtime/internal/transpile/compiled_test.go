package transpile

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompiledIsBounded(t *testing.T) {
	p, err := Compile("return 1")
	require.NoError(t, err)
	_, ok := p.Compiled("tools")
	require.False(t, ok)

	require.False(t, p.SetCompiled("big", Bytecode{Code: make([]byte, maxCompiledBytes+1)}), "bytecode over the size bound")
	_, ok = p.Compiled("big")
	require.False(t, ok)

	for i := range maxCompiled {
		require.True(t, p.SetCompiled("k"+strconv.Itoa(i), Bytecode{Code: []byte{byte(i)}, Fuel: uint64(i)}))
	}
	require.False(t, p.SetCompiled("one more", Bytecode{Code: []byte{9}}), "a key over the count bound")
	_, ok = p.Compiled("one more")
	require.False(t, ok)
	require.True(t, p.SetCompiled("k1", Bytecode{Code: []byte{7}, Fuel: 7}), "a key already held")
	b, ok := p.Compiled("k1")
	require.True(t, ok)
	require.Equal(t, Bytecode{Code: []byte{1}, Fuel: 1}, b, "the first bytecode stored for a key stays")
}
