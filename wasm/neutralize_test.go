package wasm

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Defined-function positions of the functions the engine-bug passes patch,
// in the pinned build (m.Code index, not a function index).
const (
	asyncGenResolveCode = 728 // js_async_generator_resolve_function
	proxyOwnKeysCode    = 673 // js_proxy_get_own_property_names
)

// changedBodies returns the m.Code positions whose body differs between a
// and b.
func changedBodies(a, b *Module) []int {
	var out []int
	for i := range a.Code {
		if !slices.EqualFunc(a.Code[i].Body, b.Code[i].Body, func(x, y Instr) bool {
			return x.Op == y.Op && x.A == y.A && x.B == y.B && x.C == y.C && slices.Equal(x.Vec, y.Vec)
		}) {
			out = append(out, i)
		}
	}
	return out
}

func TestGuardAsyncGeneratorResume(t *testing.T) {
	orig := decodeQuickJS(t)
	m := decodeQuickJS(t)
	require.NoError(t, guardAsyncGeneratorResume(m))
	require.Equal(t, []int{asyncGenResolveCode}, changedBodies(orig, m), "only js_async_generator_resolve_function changes")

	before, after := orig.Code[asyncGenResolveCode].Body, m.Code[asyncGenResolveCode].Body
	require.Len(t, after, len(before)+8)
	// The guard sits right before the throw_flag store of the "restart
	// after await" branch: if (s->state != EXECUTING) return JS_UNDEFINED.
	at, s, ok := asyncGenResumeSite(before)
	require.True(t, ok)
	require.Equal(t, []Instr{
		indexed(opLocalGet, s), {Op: opI32Load, A: 2, B: 4},
		i32Const(3), simple(opI32Ne),
		blockInstr(opIf, blockEmpty), i64Const(3 << 32), simple(opReturn), simple(opEnd),
	}, after[at:at+8])
	require.Equal(t, before[at:], after[at+8:])

	require.Error(t, guardAsyncGeneratorResume(m), "a second application finds no unguarded site")
	_, err := m.Encode()
	require.NoError(t, err)
}

func TestGuardProxyOwnKeysSize(t *testing.T) {
	orig := decodeQuickJS(t)
	m := decodeQuickJS(t)
	require.NoError(t, guardProxyOwnKeysSize(m))
	require.Equal(t, []int{proxyOwnKeysCode}, changedBodies(orig, m), "only js_proxy_get_own_property_names changes")

	before, after := orig.Code[proxyOwnKeysCode].Body, m.Code[proxyOwnKeysCode].Body
	require.Len(t, after, len(before)+5)
	k := slices.IndexFunc(before, func(in Instr) bool { return in.Op == opI32Shl })
	for before[k+1].Op != opLocalTee || before[k-1].i32() != 3 {
		next := slices.IndexFunc(before[k+1:], func(in Instr) bool { return in.Op == opI32Shl })
		require.GreaterOrEqual(t, next, 0)
		k += 1 + next
	}
	length := before[k-2].A
	require.Equal(t, []Instr{i32Const(-1), indexed(opLocalGet, length), i32Const(1 << 29), simple(opI32LtU), simple(opSelect)},
		after[k+1:k+6], "the size saturates at 0xffffffff from len = 2^29 on")
	require.Equal(t, before[k+1:], after[k+6:])

	require.Error(t, guardProxyOwnKeysSize(m), "a second application finds the size computation changed")
	_, err := m.Encode()
	require.NoError(t, err)
}

// The string a pass looks for must occur exactly once.
func TestCString(t *testing.T) {
	m := decodeQuickJS(t)
	addr, err := m.cString(proxyKeysMessage)
	require.NoError(t, err)
	require.Positive(t, addr)
	_, err = m.cString("no such string in the module")
	require.ErrorContains(t, err, "occurs 0 times")
}
