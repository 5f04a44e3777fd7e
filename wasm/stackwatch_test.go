package wasm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// Every write of the stack pointer but an epilogue's (local.get, a
// non-negative i32.const, i32.add) is followed by the check, which calls
// the hook only when the new stack pointer is below the mark; every write
// whose value an i32.sub made, a frame's allocation, is among them.
func TestStackWatchInstruments(t *testing.T) {
	orig := decodeQuickJS(t)
	var sets, epilogues, allocations int
	for _, c := range orig.Code {
		for k, in := range c.Body {
			if in.Op != opGlobalSet || in.A != 0 {
				continue
			}
			sets++
			b := c.Body
			if k >= 3 && b[k-1].Op == opI32Add && b[k-2].Op == opI32Const && b[k-2].i32() >= 0 && b[k-3].Op == opLocalGet {
				epilogues++
			}
			if b[k-1].Op == opI32Sub || (b[k-1].Op == opLocalTee && b[k-2].Op == opI32Sub) {
				allocations++
			}
		}
	}
	m := decodeQuickJS(t)
	require.NoError(t, stackWatch(m))
	hook := m.numImportedFuncs() - 1
	imp := m.Imports[len(m.Imports)-1]
	require.Equal(t, [2]string{stackWatchImportModule, stackWatchImportName}, [2]string{imp.Module, imp.Name})
	var checked, checkedAllocations int
	for _, c := range m.Code {
		for k, in := range c.Body {
			if in.Op != opGlobalSet || in.A != 0 {
				continue
			}
			if k+6 < len(c.Body) && c.Body[k+6].Op == opCall && c.Body[k+6].A == hook {
				checked++
				if b := c.Body; b[k-1].Op == opI32Sub || (b[k-1].Op == opLocalTee && b[k-2].Op == opI32Sub) {
					checkedAllocations++
				}
			}
		}
	}
	require.Greater(t, sets, 500, "QuickJS has many functions with shadow frames")
	require.Greater(t, epilogues, sets/3, "most functions give their frame back by adding its size")
	require.Equal(t, sets-epilogues, checked)
	require.Equal(t, allocations, checkedAllocations)
	require.ErrorContains(t, stackWatch(m), "already exists")
}

// The hook sees the stack go down in steps of the host's choosing, and a
// mark of 0 never calls it.
func TestStackWatchHook(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	cm := compile(t, rt, hardened(t))
	const step = 4096
	for _, armed := range []bool{false, true} {
		var calls int
		var lowest uint32
		hook := func(sp uint32) uint32 {
			calls++
			lowest = sp
			return sp - step
		}
		v := newVMContext(context.WithValue(context.Background(), stackHookKey{}, hook), t, rt, cm, nil)
		sp := v.mod.ExportedGlobal(stackPointerExport)
		top := uint32(sp.Get())
		mark := v.mod.ExportedGlobal(StackMarkExport)
		require.NotNil(t, mark)
		require.Zero(t, mark.Get())
		if armed {
			mark.(interface{ Set(uint64) }).Set(uint64(top))
		}
		s, err := v.evalString(`function f(n) { return n ? f(n - 1) + 1 : 0 } f(100)`)
		require.NoError(t, err)
		require.Equal(t, "100", s)
		if !armed {
			require.Zero(t, calls)
			continue
		}
		depth := top - lowest
		require.Greater(t, depth, uint32(100*200), "100 interpreter frames")
		require.LessOrEqual(t, calls, int(depth/step)+1, "one call per step, not per frame")
		require.Greater(t, calls, 1)
		require.Equal(t, uint64(lowest-step), mark.Get())
	}
}
