package quickjs

import (
	"fmt"
	"slices"
)

// QuickJS-NG keeps its atoms in rt->atom_array, indexed by atom; a free
// slot holds (next << 1) | 1, the index of the next free slot (0 ends the
// list), and rt->atom_free_index is the list's head. A new atom takes the
// head, so after a program has freed atoms the list runs in the reverse of
// their freeing, not by index. The fields sit around atom_array
// (Layout.AtomArray) in JSRuntime, on wasm32:
//
//	int atom_hash_size; int atom_count; int atom_size; int atom_count_resize;
//	uint32_t *atom_hash; JSAtomStruct **atom_array; int atom_free_index;
const (
	rtAtomCountBefore = 16 // atom_count, before atom_array
	rtAtomSizeBefore  = 12 // atom_size, before atom_array
	rtAtomFreeAfter   = 4  // atom_free_index, after atom_array
	atomFreeBit       = 1
)

// SortFreeAtoms relinks the runtime's free atom slots lowest index first,
// so that the atoms made next take the lowest free indices. It matters to
// fuel: writing a function's bytecode (JS_WriteObject, every compilation)
// zeroes a table as long as the highest atom index the function names,
// less the predefined atoms, so a program's new names at high indices cost
// its compilation a step per index. It returns the free slots, in their
// new order.
//
// It checks the atom table first (atom_free_index and every link within
// atom_size, each free slot on the list exactly once, atom_size less the
// list's length equal to atom_count) and changes nothing on a mismatch,
// failing with ErrLayoutMismatch. It must not be called while a call into
// the instance is in progress.
func (in *Instance) SortFreeAtoms() ([]uint32, error) {
	return in.OrderFreeAtoms(nil)
}

// OrderFreeAtoms relinks the free atom slots as first (each of them free,
// none twice), then the others lowest first: the atoms made next take them
// in that order. It returns the free slots in their new order, and checks
// the atom table as SortFreeAtoms does.
func (in *Instance) OrderFreeAtoms(first []uint32) ([]uint32, error) {
	t, err := in.atomTable()
	if err != nil {
		return nil, err
	}
	free, err := freeAtoms(t.slots, t.head, t.size)
	if err != nil {
		return nil, err
	}
	if uint32(len(free)) != t.size-t.count {
		return nil, mismatch("%d free atom slots on the list, %d slots less %d atoms", len(free), t.size, t.count)
	}
	slices.Sort(free)
	isFree := make(map[uint32]bool, len(free))
	for _, f := range free {
		isFree[f] = true
	}
	order := make([]uint32, 0, len(free))
	for _, f := range first {
		if !isFree[f] {
			return nil, mismatch("atom slot %d is not free, or named twice", f)
		}
		isFree[f] = false
		order = append(order, f)
	}
	for _, f := range free {
		if isFree[f] {
			order = append(order, f)
		}
	}
	for i, f := range order {
		next := uint32(0)
		if i+1 < len(order) {
			next = order[i+1]
		}
		putLE32(t.slots[4*f:], next<<1|atomFreeBit)
	}
	head := uint32(0)
	if len(order) > 0 {
		head = order[0]
	}
	in.mem.WriteUint32Le(t.base+rtAtomFreeAfter, head)
	return order, nil
}

// ExistingAtoms reports, for each of names, whether the runtime has it as
// a string atom (JS_ATOM_TYPE_STRING), which making it again finds rather
// than makes.
func (in *Instance) ExistingAtoms(names []string) ([]bool, error) {
	t, err := in.atomTable()
	if err != nil {
		return nil, err
	}
	if in.layout.StringChars == 0 {
		return nil, mismatch("the strings' layout was not found")
	}
	have := map[string]bool{}
	for i := uint32(1); i < t.size; i++ {
		p := le32(t.slots[4*i:])
		if p&atomFreeBit != 0 || p == 0 {
			continue
		}
		hdr, ok1 := in.mem.ReadUint32Le(p + strLenWide)
		kind, ok2 := in.mem.ReadUint32Le(p + strHashAtom)
		if !ok1 || !ok2 {
			return nil, mismatch("atom %d is outside memory", i)
		}
		if kind>>30 != atomTypeString {
			continue
		}
		n, wide := hdr&0x7fffffff, hdr>>31 != 0
		if wide {
			n *= 2
		}
		b, ok := in.mem.Read(p+in.layout.StringChars, n)
		if !ok {
			return nil, mismatch("atom %d is outside memory", i)
		}
		have[decodeChars(b, wide)] = true
	}
	out := make([]bool, len(names))
	for i, n := range names {
		out[i] = have[n]
	}
	return out, nil
}

// atomTable is the runtime's atom table: its fields and its slots (a view
// of the instance's memory).
type atomTable struct {
	base, count, size, head uint32
	slots                   []byte
}

// atomTable reads and checks the atom table's fields.
func (in *Instance) atomTable() (atomTable, error) {
	if in.layout.AtomArray == 0 {
		return atomTable{}, mismatch("the atom table was not found")
	}
	u32 := func(p uint32) (uint32, bool) { return in.mem.ReadUint32Le(p) }
	base := in.rt + in.layout.AtomArray
	count, ok1 := u32(base - rtAtomCountBefore)
	size, ok2 := u32(base - rtAtomSizeBefore)
	array, ok3 := u32(base)
	head, ok4 := u32(base + rtAtomFreeAfter)
	if !ok1 || !ok2 || !ok3 || !ok4 || size == 0 || count > size || uint64(array)+4*uint64(size) > uint64(in.mem.Size()) {
		return atomTable{}, mismatch("the atom table's fields are out of range (%d atoms of %d slots at %d)", count, size, array)
	}
	slots, ok := in.mem.Read(array, 4*size)
	if !ok {
		return atomTable{}, mismatch("the atom table is outside memory")
	}
	return atomTable{base: base, count: count, size: size, head: head, slots: slots}, nil
}

// freeAtoms follows the free list from head through slots, the atom
// array of size entries, and returns its indices, after checking that it
// ends, stays within the array, visits no slot twice, and that no free
// slot is left off it.
func freeAtoms(slots []byte, head, size uint32) ([]uint32, error) {
	onList := make([]bool, size)
	var free []uint32
	for i := head; i != 0; {
		if i >= size || onList[i] {
			return nil, mismatch("the free atom list is broken at slot %d", i)
		}
		v := le32(slots[4*i:])
		if v&atomFreeBit == 0 {
			return nil, mismatch("the free atom list names slot %d, which holds an atom", i)
		}
		onList[i] = true
		free = append(free, i)
		i = v >> 1
	}
	for i := uint32(1); i < size; i++ {
		if le32(slots[4*i:])&atomFreeBit != 0 && !onList[i] {
			return nil, mismatch("the free atom slot %d is not on the free list", i)
		}
	}
	return free, nil
}

// BytecodeAtom is an entry of a bytecode's atom table.
type BytecodeAtom struct {
	Name string
	// String is false for a symbol's description (a new atom whatever its
	// name).
	String bool
}

// BytecodeAtoms returns bytecode's atom table (Compile's output), but for
// QuickJS's predefined atoms, which it holds by number, in the table's
// order, which is the order in which evaluating the bytecode makes the
// atoms it does not find: a function's name, its locals' and closure
// variables' names, its nested functions' (depth first), then the names
// its own code uses. It fails, wrapping ErrLayoutMismatch, when the
// bytecode is not in the format of the pinned build.
func BytecodeAtoms(bytecode []byte) ([]BytecodeAtom, error) {
	atoms := []BytecodeAtom{}
	s := &bcStripper{in: bytecode, readOnly: true, table: &atoms}
	if err := s.atoms(); err != nil {
		return nil, fmt.Errorf("%w: %w at byte %d", ErrLayoutMismatch, err, s.pos)
	}
	return atoms, nil
}
