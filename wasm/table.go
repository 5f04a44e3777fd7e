package wasm

import "fmt"

// directCalls replaces the module's function table by direct calls. Every
// call_indirect of type T becomes a call of an appended function with T's
// parameters and an i32 table index, which selects by br_table the function
// that the element segment puts at that index and calls it; an index with
// no function of type T (out of range, empty, or of another type) traps, as
// call_indirect does. The table and its element segment are then removed.
//
// wazero builds every instance's table at instantiation, one allocated
// function reference per element (541 in QuickJS-NG, a third of a cold
// run's instantiation). Function pointers in linear memory keep their
// values: they are still table indices, now read by the selectors.
//
// The pass requires one funcref table, neither imported nor exported,
// initialized by active segments of function indices at constant offsets,
// and no instruction other than call_indirect that uses it; otherwise it
// fails and changes nothing.
func directCalls(m *Module) error {
	slots, err := m.tableSlots()
	if err != nil {
		return fmt.Errorf("wasm: direct calls: %w", err)
	}
	var typeOrder []uint32
	sites := map[uint32]bool{}
	for i := range m.Code {
		for _, in := range m.Code[i].Body {
			if in.Op != opCallIndirect {
				continue
			}
			if !sites[in.A] {
				if _, ok := m.typeAt(in.A); !ok {
					return fmt.Errorf("wasm: direct calls: call_indirect of unknown type %d", in.A)
				}
				sites[in.A] = true
				typeOrder = append(typeOrder, in.A)
			}
		}
	}
	selectors := map[uint32]uint32{}
	for _, ti := range typeOrder {
		t, _ := m.typeAt(ti)
		selectors[ti] = m.addSelector(t, slots)
	}
	for i := range m.Code[:len(m.Code)-len(typeOrder)] {
		body := m.Code[i].Body
		for k := range body {
			if body[k].Op == opCallIndirect {
				body[k] = indexed(opCall, selectors[body[k].A])
			}
		}
	}
	m.Tables, m.Elements = nil, nil
	return nil
}

// tableSlots checks that the module's only table can be replaced (see
// directCalls) and returns its initial contents: the function at each index,
// or -1 for an empty slot.
func (m *Module) tableSlots() ([]int64, error) {
	if m.numImported(externTable) != 0 || len(m.Tables) != 1 || m.Tables[0].RefType != funcRef {
		return nil, fmt.Errorf("the module has no single defined funcref table")
	}
	for _, x := range m.Exports {
		if x.Kind == externTable {
			return nil, fmt.Errorf("the table is exported as %q", x.Name)
		}
	}
	for i := range m.Code {
		for _, in := range m.Code[i].Body {
			switch in.Op {
			case opCallIndirect:
				if in.B != 0 {
					return nil, fmt.Errorf("call_indirect of table %d", in.B)
				}
			case opTableGet, opTableSet, opTableGrow, opTableSize, opTableFill, opTableCopy, opTableInit, opElemDrop, opRefFunc:
				return nil, fmt.Errorf("function %d uses the table (%s)", m.numImportedFuncs()+uint32(i), in.Op)
			}
		}
	}
	size := m.Tables[0].Limits.Min
	if size > 1<<16 {
		return nil, fmt.Errorf("the table has %d elements", size)
	}
	slots := make([]int64, size)
	for i := range slots {
		slots[i] = -1
	}
	for _, e := range m.Elements {
		if e.Flags != 0 || len(e.Offset) != 2 || e.Offset[0].Op != opI32Const || e.Offset[1].Op != opEnd {
			return nil, fmt.Errorf("an element segment is not active with a constant offset and function indices")
		}
		off := uint64(uint32(e.Offset[0].i32()))
		if off+uint64(len(e.Funcs)) > uint64(size) {
			return nil, fmt.Errorf("an element segment does not fit in the table")
		}
		for k, f := range e.Funcs {
			slots[off+uint64(k)] = int64(f)
		}
	}
	return slots, nil
}

// addSelector appends the function (params of t..., index i32) -> results
// of t that calls the function of type t at index in slots, or traps.
func (m *Module) addSelector(t FuncType, slots []int64) uint32 {
	// One case per distinct function of type t, in slot order.
	var cases []uint32
	caseOf := map[uint32]uint32{}
	for _, s := range slots {
		if s < 0 {
			continue
		}
		f := uint32(s)
		if ft, ok := m.funcType(f); ok && ft.Equal(t) {
			if _, ok := caseOf[f]; !ok {
				caseOf[f] = uint32(len(cases))
				cases = append(cases, f)
			}
		}
	}
	n := uint32(len(cases))
	labels := make([]uint32, len(slots))
	for i, s := range slots {
		labels[i] = n // the default: trap
		if c, ok := caseOf[uint32(s)]; ok && s >= 0 {
			labels[i] = c
		}
	}
	index := uint32(len(t.Params))
	body := make([]Instr, 0, int(n+1)*(len(t.Params)+4)+2)
	for range n + 1 {
		body = append(body, blockInstr(opBlock, blockEmpty))
	}
	body = append(body, indexed(opLocalGet, index), Instr{Op: opBrTable, Vec: labels, A: n})
	for _, f := range cases {
		body = append(body, simple(opEnd))
		for i := range t.Params {
			body = append(body, indexed(opLocalGet, uint32(i)))
		}
		body = append(body, indexed(opCall, f), simple(opReturn))
	}
	body = append(body, simple(opEnd), simple(opUnreachable), simple(opEnd))
	params := append(append([]ValType(nil), t.Params...), i32)
	return m.addFunc(FuncType{Params: params, Results: t.Results}, nil, body)
}
