package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuickJSPinned(t *testing.T) {
	sum := sha256.Sum256(QuickJS())
	require.Equal(t, QuickJSSHA256, hex.EncodeToString(sum[:]), "the QuickJS-NG artifact changed; every pass and offset must be re-verified")
	require.Equal(t, []byte("\x00asm"), QuickJS()[:4])
}
