package quickjs

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// freeList follows in's free atom list and returns its slots in order.
func freeList(t *testing.T, in *Instance) []uint32 {
	t.Helper()
	base := in.rt + in.layout.AtomArray
	array, ok1 := in.mem.ReadUint32Le(base)
	head, ok2 := in.mem.ReadUint32Le(base + rtAtomFreeAfter)
	size, ok3 := in.mem.ReadUint32Le(base - rtAtomSizeBefore)
	require.True(t, ok1 && ok2 && ok3)
	var list []uint32
	for i := head; i != 0; {
		require.Less(t, i, size)
		require.LessOrEqual(t, len(list), int(size))
		list = append(list, i)
		v, ok := in.mem.ReadUint32Le(array + 4*i)
		require.True(t, ok)
		require.Equal(t, uint32(atomFreeBit), v&atomFreeBit, "slot %d on the free list holds an atom", i)
		i = v >> 1
	}
	return list
}

// churnAtoms makes 40 atoms (property names) and frees them in the order
// they were made, so that the free list runs from the last freed down.
func churnAtoms(t *testing.T, in *Instance) {
	t.Helper()
	v, err := in.Eval(`{ const o = {}; for (let i = 0; i < 40; i++) o["churn" + i] = i;
		for (let i = 0; i < 40; i++) delete o["churn" + i]; }`, "churn.js", EvalGlobal)
	require.NoError(t, err)
	require.False(t, v.IsException())
	require.NoError(t, in.FreeValue(v))
}

// SortFreeAtoms relinks the free atom slots lowest first, keeping every
// one of them, and the atoms made next take the lowest.
func TestSortFreeAtoms(t *testing.T) {
	in := newInstance(t, &nopHost{})
	churnAtoms(t, in)
	before := freeList(t, in)
	require.False(t, slices.IsSorted(before), "freeing in making order leaves the list unsorted")
	sorted, err := in.SortFreeAtoms()
	require.NoError(t, err)
	after := freeList(t, in)
	require.Equal(t, sorted, after)
	require.True(t, slices.IsSorted(after))
	require.ElementsMatch(t, before, after)

	v, err := in.Eval(`globalThis.aNameNoAtomHas = 1`, "new.js", EvalGlobal)
	require.NoError(t, err)
	require.NoError(t, in.FreeValue(v))
	// The script's file name may take the lowest slot and give it back; the
	// property's name keeps the next.
	now := freeList(t, in)
	require.False(t, slices.Contains(now, after[0]) && slices.Contains(now, after[1]), "a new atom took one of the two lowest slots")
}

// SortFreeAtoms changes nothing when the free list does not check: a link
// to a slot that holds an atom, or a free slot left off the list.
func TestSortFreeAtomsRefusesABrokenList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(in *Instance, array uint32, free []uint32)
	}{
		{"a link to an atom", func(in *Instance, array uint32, free []uint32) {
			in.mem.WriteUint32Le(array+4*free[0], 1<<1|atomFreeBit) // atom 1 is predefined, in use
		}},
		{"a free slot off the list", func(in *Instance, array uint32, free []uint32) {
			in.mem.WriteUint32Le(array+4*free[0], 0<<1|atomFreeBit) // the list ends at its head
		}},
		{"a link past the table", func(in *Instance, array uint32, free []uint32) {
			in.mem.WriteUint32Le(array+4*free[0], 1<<30|atomFreeBit)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstance(t, &nopHost{})
			churnAtoms(t, in)
			free := freeList(t, in)
			require.Greater(t, len(free), 1)
			array, _ := in.mem.ReadUint32Le(in.rt + in.layout.AtomArray)
			tc.corrupt(in, array, free)
			before := memory(t, in)
			_, err := in.SortFreeAtoms()
			require.ErrorIs(t, err, ErrLayoutMismatch)
			require.Equal(t, before, memory(t, in), "nothing changed")
		})
	}
}

// OrderFreeAtoms puts the slots it is given first, in that order, and the
// others after them lowest first; it refuses a slot that holds an atom.
func TestOrderFreeAtoms(t *testing.T) {
	in := newInstance(t, &nopHost{})
	churnAtoms(t, in)
	sorted, err := in.SortFreeAtoms()
	require.NoError(t, err)
	first := []uint32{sorted[5], sorted[2], sorted[9]}
	order, err := in.OrderFreeAtoms(first)
	require.NoError(t, err)
	require.Equal(t, first, order[:3])
	require.True(t, slices.IsSorted(order[3:]))
	require.ElementsMatch(t, sorted, order)
	require.Equal(t, order, freeList(t, in))

	before := memory(t, in)
	_, err = in.OrderFreeAtoms([]uint32{1})
	require.ErrorIs(t, err, ErrLayoutMismatch, "atom 1 is predefined, in use")
	_, err = in.OrderFreeAtoms([]uint32{sorted[0], sorted[0]})
	require.ErrorIs(t, err, ErrLayoutMismatch, "a slot twice")
	require.Equal(t, before, memory(t, in), "nothing changed")

	have, err := in.ExistingAtoms([]string{"length", "churn3", "aNameNoAtomHas", "Object"})
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, false, true}, have, "predefined, freed, never made, a builtin's")
}

// BytecodeAtoms lists a script's names in its atom table's order: a
// function's name, its locals', then the names its code uses; QuickJS's
// predefined atoms (length, prototype) are left out.
func TestBytecodeAtoms(t *testing.T) {
	in := newInstance(t, &nopHost{})
	bc, ok, err := in.Compile(`function alpha(beta) { const gamma = "delta ü"; return beta.length + gamma.epsilon + beta.prototype }`, "n.js", EvalGlobal)
	require.NoError(t, err)
	require.True(t, ok)
	atoms, err := BytecodeAtoms(bc)
	require.NoError(t, err)
	var want, names []string
	for _, a := range atoms {
		require.True(t, a.String, a.Name)
		names = append(names, a.Name)
		if slices.Contains([]string{"alpha", "beta", "gamma", "delta ü", "epsilon", "length", "prototype"}, a.Name) {
			want = append(want, a.Name)
		}
	}
	require.Equal(t, []string{"alpha", "beta", "gamma", "delta ü", "epsilon"}, want)
	require.Contains(t, names, "n.js", "the file name")

	_, err = BytecodeAtoms(bc[:len(bc)/4])
	require.ErrorIs(t, err, ErrLayoutMismatch)
	_, err = BytecodeAtoms(append([]byte{bcVersion + 1}, bc[1:]...))
	require.ErrorIs(t, err, ErrLayoutMismatch)
}
