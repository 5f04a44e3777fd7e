package wasm

import (
	"fmt"
	"math"
)

// addFunc appends a defined function with signature t and returns its
// absolute index.
func (m *Module) addFunc(t FuncType, locals []LocalGroup, body []Instr) uint32 {
	m.Funcs = append(m.Funcs, m.typeIndex(t))
	m.Code = append(m.Code, Code{Locals: locals, Body: body})
	return m.numImportedFuncs() + uint32(len(m.Funcs)-1)
}

// addGlobal appends a defined global and returns its absolute index.
func (m *Module) addGlobal(g Global) uint32 {
	m.Globals = append(m.Globals, g)
	return m.numImportedGlobals() + uint32(len(m.Globals)-1)
}

// addExport appends an export, failing if the name is taken.
func (m *Module) addExport(e Export) error {
	for _, x := range m.Exports {
		if x.Name == e.Name {
			return fmt.Errorf("export %q already exists", e.Name)
		}
	}
	m.Exports = append(m.Exports, e)
	return nil
}

// numLocals returns the number of parameters and declared locals of the
// defined function with absolute index idx.
func (m *Module) numLocals(idx uint32) (uint64, error) {
	t, ok := m.funcType(idx)
	c := m.body(idx)
	if !ok || c == nil {
		return 0, fmt.Errorf("function %d is not a defined function with a valid type", idx)
	}
	n := uint64(len(t.Params))
	for _, g := range c.Locals {
		n += uint64(g.Count)
	}
	return n, nil
}

// addLocal declares one more local of type t in the defined function with
// absolute index idx and returns the new local's index.
func (m *Module) addLocal(idx uint32, t ValType) (uint32, error) {
	n, err := m.numLocals(idx)
	if err != nil {
		return 0, err
	}
	if n >= math.MaxUint32 {
		return 0, fmt.Errorf("function %d has too many locals", idx)
	}
	c := m.body(idx)
	if k := len(c.Locals); k > 0 && c.Locals[k-1].Type == t && c.Locals[k-1].Count < math.MaxUint32 {
		c.Locals[k-1].Count++
	} else {
		c.Locals = append(c.Locals, LocalGroup{Count: 1, Type: t})
	}
	return uint32(n), nil
}

// insertFuncImport appends a function import after the existing imports.
// Every defined function's index grows by one; all references to them
// (calls, ref.func, element segments, exports, start) are updated. It
// returns the new function's index. A custom "name" section, whose function
// indices would be stale, is dropped.
func (m *Module) insertFuncImport(module, name string, t FuncType) uint32 {
	idx := m.numImportedFuncs()
	shift := func(i *uint32) {
		if *i >= idx {
			*i++
		}
	}
	shiftExpr := func(e []Instr) {
		for k := range e {
			if e[k].Op == opCall || e[k].Op == opRefFunc {
				shift(&e[k].A)
			}
		}
	}
	for i := range m.Code {
		shiftExpr(m.Code[i].Body)
	}
	for i := range m.Globals {
		shiftExpr(m.Globals[i].Init)
	}
	for i := range m.Elements {
		e := &m.Elements[i]
		shiftExpr(e.Offset)
		for k := range e.Funcs {
			shift(&e.Funcs[k])
		}
		for _, x := range e.Exprs {
			shiftExpr(x)
		}
	}
	for i := range m.Data {
		shiftExpr(m.Data[i].Offset)
	}
	for i := range m.Exports {
		if m.Exports[i].Kind == externFunc {
			shift(&m.Exports[i].Index)
		}
	}
	if m.Start != nil {
		s := *m.Start
		shift(&s)
		m.Start = &s
	}
	customs := m.Customs[:0:0]
	for _, c := range m.Customs {
		if c.Name != "name" {
			customs = append(customs, c)
		}
	}
	m.Customs = customs
	m.Imports = append(m.Imports, Import{Module: module, Name: name, Kind: externFunc, TypeIndex: m.typeIndex(t)})
	return idx
}
