package wasm

import (
	"bytes"
	"errors"
	"fmt"
)

var magicVersion = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// errMalformed is wrapped by every error Decode returns for input that is
// not a well-formed module (within the subset this package supports).
var errMalformed = errors.New("malformed wasm module")

// Decode decodes a WebAssembly binary module. Function bodies are decoded
// to instructions; an instruction outside the supported set (MVP,
// sign-extension, and the 0xFC saturating-truncation and bulk-memory
// families) is an error naming its opcode and offset. Decode never panics
// on malformed input. The returned module keeps references into src, which
// must not be modified while the module is in use.
func Decode(src []byte) (*Module, error) {
	m, err := decode(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMalformed, err)
	}
	return m, nil
}

func decode(src []byte) (*Module, error) {
	if len(src) < len(magicVersion) || !bytes.Equal(src[:len(magicVersion)], magicVersion) {
		return nil, errors.New("not a version 1 wasm binary")
	}
	m := &Module{orig: map[SectionID]rawUnit{}}
	r := &reader{b: src, pos: len(magicVersion)}
	last := -1 // position in sectionOrder of the last non-custom section
	after := sectionCustom
	var funcCount *uint32
	for !r.done() {
		start := r.pos
		id, _ := r.byte("section id")
		size, err := r.u32("section size")
		if err != nil {
			return nil, err
		}
		payload, err := r.bytes(int(size), fmt.Sprintf("section %d", id))
		if err != nil {
			return nil, err
		}
		raw := src[start:r.pos:r.pos]
		sr := &reader{b: payload, base: r.pos - len(payload)}
		if SectionID(id) == sectionCustom {
			c, err := decodeCustom(sr)
			if err != nil {
				return nil, err
			}
			c.After = after
			c.raw = rawUnit{orig: raw, enc: appendCustom(nil, c)}
			m.Customs = append(m.Customs, c)
			continue
		}
		pos := orderOf(SectionID(id))
		if pos < 0 {
			return nil, fmt.Errorf("offset %#x: unknown section id %d", start, id)
		}
		if pos <= last {
			return nil, fmt.Errorf("offset %#x: section %d out of order or repeated", start, id)
		}
		last, after = pos, SectionID(id)
		if err := m.decodeSection(SectionID(id), sr, &funcCount); err != nil {
			return nil, err
		}
		if !sr.done() {
			return nil, sr.errorf("%d bytes left at the end of section %d", len(sr.b)-sr.pos, id)
		}
		m.orig[SectionID(id)] = rawUnit{orig: raw}
	}
	if funcCount != nil && int(*funcCount) != len(m.Code) {
		return nil, fmt.Errorf("function section declares %d functions but the code section has %d bodies", *funcCount, len(m.Code))
	}
	if len(m.Funcs) != len(m.Code) {
		return nil, fmt.Errorf("function section declares %d functions but the code section has %d bodies", len(m.Funcs), len(m.Code))
	}
	for id, u := range m.orig {
		u.enc = m.appendSection(nil, id)
		m.orig[id] = u
	}
	return m, nil
}

func orderOf(id SectionID) int {
	for i, s := range sectionOrder {
		if s == id {
			return i
		}
	}
	return -1
}

func decodeCustom(r *reader) (CustomSection, error) {
	name, err := r.name("custom section name")
	if err != nil {
		return CustomSection{}, err
	}
	return CustomSection{Name: name, Payload: r.b[r.pos:len(r.b):len(r.b)]}, nil
}

func (m *Module) decodeSection(id SectionID, r *reader, funcCount **uint32) error {
	switch id {
	case sectionType:
		return m.decodeTypes(r)
	case sectionImport:
		return m.decodeImports(r)
	case sectionFunction:
		v, err := r.u32s("function type index")
		m.Funcs = v
		n := uint32(len(v))
		*funcCount = &n
		return err
	case sectionTable:
		return decodeVec(r, "table", 3, &m.Tables, decodeTable)
	case sectionMemory:
		return decodeVec(r, "memory", 2, &m.Memories, func(r *reader) (Limits, error) { return r.limits("memory") })
	case sectionGlobal:
		return decodeVec(r, "global", 3, &m.Globals, decodeGlobal)
	case sectionExport:
		return decodeVec(r, "export", 3, &m.Exports, decodeExport)
	case sectionStart:
		v, err := r.u32("start function")
		m.Start = &v
		return err
	case sectionElement:
		return decodeVec(r, "element segment", 2, &m.Elements, decodeElement)
	case sectionDataCount:
		v, err := r.u32("data count")
		m.DataCount = &v
		return err
	case sectionCode:
		return decodeVec(r, "code entry", 2, &m.Code, decodeCode)
	case sectionData:
		return decodeVec(r, "data segment", 2, &m.Data, decodeData)
	}
	return r.errorf("unknown section %d", id)
}

// decodeVec decodes a vector whose elements take at least minSize bytes.
func decodeVec[T any](r *reader, what string, minSize int, dst *[]T, f func(*reader) (T, error)) error {
	n, err := r.count(what+" count", minSize)
	if err != nil {
		return err
	}
	v := make([]T, n)
	for i := range v {
		if v[i], err = f(r); err != nil {
			return fmt.Errorf("%s %d: %w", what, i, err)
		}
	}
	*dst = v
	return nil
}

func (m *Module) decodeTypes(r *reader) error {
	return decodeVec(r, "type", 3, &m.Types, func(r *reader) (FuncType, error) {
		var t FuncType
		form, err := r.byte("type form")
		if err != nil {
			return t, err
		}
		if form != 0x60 {
			return t, r.errorf("unsupported type form %#x", form)
		}
		if t.Params, err = r.valTypes("parameter"); err != nil {
			return t, err
		}
		t.Results, err = r.valTypes("result")
		return t, err
	})
}

func (m *Module) decodeImports(r *reader) error {
	return decodeVec(r, "import", 4, &m.Imports, func(r *reader) (Import, error) {
		var im Import
		var err error
		if im.Module, err = r.name("import module"); err != nil {
			return im, err
		}
		if im.Name, err = r.name("import name"); err != nil {
			return im, err
		}
		k, err := r.byte("import kind")
		if err != nil {
			return im, err
		}
		im.Kind = ExternKind(k)
		switch im.Kind {
		case externFunc:
			im.TypeIndex, err = r.u32("import type index")
		case externTable:
			im.Table, err = decodeTable(r)
		case externMemory:
			im.Memory, err = r.limits("memory")
		case ExternGlobal:
			im.Global, err = decodeGlobalType(r)
		default:
			err = r.errorf("unsupported import kind %#x", k)
		}
		return im, err
	})
}

func decodeTable(r *reader) (Table, error) {
	var t Table
	var err error
	if t.RefType, err = r.refType("table element type"); err != nil {
		return t, err
	}
	t.Limits, err = r.limits("table")
	return t, err
}

func decodeGlobalType(r *reader) (GlobalType, error) {
	var g GlobalType
	var err error
	if g.ValType, err = r.valType("global type"); err != nil {
		return g, err
	}
	mut, err := r.byte("global mutability")
	if err != nil {
		return g, err
	}
	if mut > 1 {
		return g, r.errorf("invalid global mutability %#x", mut)
	}
	g.Mutable = mut == 1
	return g, nil
}

func decodeGlobal(r *reader) (Global, error) {
	var g Global
	var err error
	if g.Type, err = decodeGlobalType(r); err != nil {
		return g, err
	}
	g.Init, err = r.expr(2)
	return g, err
}

func decodeExport(r *reader) (Export, error) {
	var e Export
	var err error
	if e.Name, err = r.name("export name"); err != nil {
		return e, err
	}
	k, err := r.byte("export kind")
	if err != nil {
		return e, err
	}
	if k > byte(ExternGlobal) {
		return e, r.errorf("unsupported export kind %#x", k)
	}
	e.Kind = ExternKind(k)
	e.Index, err = r.u32("export index")
	return e, err
}

func decodeElement(r *reader) (Element, error) {
	var e Element
	var err error
	if e.Flags, err = r.u32("element flags"); err != nil {
		return e, err
	}
	if e.Flags > 7 {
		return e, r.errorf("invalid element segment flags %d", e.Flags)
	}
	if e.Flags&3 == 2 { // active with an explicit table
		if e.Table, err = r.u32("element table"); err != nil {
			return e, err
		}
	}
	if e.active() {
		if e.Offset, err = r.expr(2); err != nil {
			return e, err
		}
	}
	if e.Flags&3 != 0 { // flags 0 and 4 have no kind byte
		if e.Kind, err = r.byte("element kind"); err != nil {
			return e, err
		}
	}
	if e.Flags&4 == 0 {
		if e.Flags&3 != 0 && e.Kind != 0 {
			return e, r.errorf("unsupported element kind %#x", e.Kind)
		}
		e.Funcs, err = r.u32s("element function index")
		return e, err
	}
	if e.Flags&3 == 0 {
		e.Kind = byte(funcRef)
	} else if t := ValType(e.Kind); t != funcRef && t != externRef {
		return e, r.errorf("invalid element reference type %#x", e.Kind)
	}
	n, err := r.count("element expression count", 2)
	if err != nil {
		return e, err
	}
	e.Exprs = make([][]Instr, n)
	for i := range e.Exprs {
		if e.Exprs[i], err = r.expr(2); err != nil {
			return e, err
		}
	}
	return e, nil
}

func decodeData(r *reader) (Data, error) {
	var d Data
	var err error
	if d.Flags, err = r.u32("data flags"); err != nil {
		return d, err
	}
	if d.Flags > 2 {
		return d, r.errorf("invalid data segment flags %d", d.Flags)
	}
	if d.Flags == 2 {
		if d.Memory, err = r.u32("data memory"); err != nil {
			return d, err
		}
	}
	if d.Flags != 1 {
		if d.Offset, err = r.expr(2); err != nil {
			return d, err
		}
	}
	n, err := r.u32("data length")
	if err != nil {
		return d, err
	}
	d.Init, err = r.bytes(int(n), "data bytes")
	return d, err
}

func decodeCode(r *reader) (Code, error) {
	var c Code
	start := r.pos
	size, err := r.u32("body size")
	if err != nil {
		return c, err
	}
	body, err := r.bytes(int(size), "body")
	if err != nil {
		return c, err
	}
	br := &reader{b: body, base: r.offset() - len(body)}
	if c.Locals, err = decodeVecLocals(br); err != nil {
		return c, err
	}
	if c.Body, err = br.expr(2); err != nil {
		return c, err
	}
	if !br.done() {
		return c, br.errorf("%d bytes after the end of the function body", len(br.b)-br.pos)
	}
	c.raw.orig = r.b[start:r.pos:r.pos]
	c.raw.enc = appendCodeCanonical(nil, &c)
	return c, nil
}

func decodeVecLocals(r *reader) ([]LocalGroup, error) {
	var v []LocalGroup
	err := decodeVec(r, "local group", 2, &v, func(r *reader) (LocalGroup, error) {
		var g LocalGroup
		var err error
		if g.Count, err = r.u32("local count"); err != nil {
			return g, err
		}
		g.Type, err = r.valType("local type")
		return g, err
	})
	return v, err
}
