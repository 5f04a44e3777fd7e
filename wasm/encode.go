package wasm

import (
	"bytes"
	"fmt"
)

// Encode returns the binary encoding of m. Sections and function bodies
// whose content is unchanged since Decode are written with their original
// bytes, so decoding and encoding a module reproduces it exactly; everything
// else is written with canonical LEB128 numbers.
func (m *Module) Encode() ([]byte, error) {
	if len(m.Funcs) != len(m.Code) {
		return nil, fmt.Errorf("wasm: %d function declarations but %d bodies", len(m.Funcs), len(m.Code))
	}
	out := append([]byte(nil), magicVersion...)
	out = m.appendCustoms(out, sectionCustom)
	for _, id := range sectionOrder {
		if m.present(id) {
			enc := m.appendSection(nil, id)
			if u, ok := m.orig[id]; ok && bytes.Equal(enc, u.enc) {
				out = append(out, u.orig...)
			} else {
				out = append(out, enc...)
			}
		}
		out = m.appendCustoms(out, id)
	}
	return out, nil
}

// present reports whether section id is written: it was in the original
// module or has content now.
func (m *Module) present(id SectionID) bool {
	if _, ok := m.orig[id]; ok {
		return true
	}
	switch id {
	case sectionType:
		return len(m.Types) > 0
	case sectionImport:
		return len(m.Imports) > 0
	case sectionFunction:
		return len(m.Funcs) > 0
	case sectionTable:
		return len(m.Tables) > 0
	case sectionMemory:
		return len(m.Memories) > 0
	case sectionGlobal:
		return len(m.Globals) > 0
	case sectionExport:
		return len(m.Exports) > 0
	case sectionStart:
		return m.Start != nil
	case sectionElement:
		return len(m.Elements) > 0
	case sectionDataCount:
		return m.DataCount != nil
	case sectionCode:
		return len(m.Code) > 0
	case sectionData:
		return len(m.Data) > 0
	}
	return false
}

func (m *Module) appendCustoms(out []byte, after SectionID) []byte {
	for i := range m.Customs {
		c := &m.Customs[i]
		if c.After != after {
			continue
		}
		enc := appendCustom(nil, *c)
		if bytes.Equal(enc, c.raw.enc) {
			out = append(out, c.raw.orig...)
		} else {
			out = append(out, enc...)
		}
	}
	return out
}

func appendCustom(out []byte, c CustomSection) []byte {
	p := appendName(nil, c.Name)
	p = append(p, c.Payload...)
	return appendSectionBytes(out, sectionCustom, p)
}

func appendSectionBytes(out []byte, id SectionID, payload []byte) []byte {
	out = append(out, byte(id))
	out = AppendUleb(out, uint64(len(payload)))
	return append(out, payload...)
}

func appendName(b []byte, s string) []byte {
	b = AppendUleb(b, uint64(len(s)))
	return append(b, s...)
}

func appendValTypes(b []byte, v []ValType) []byte {
	b = AppendUleb(b, uint64(len(v)))
	for _, t := range v {
		b = append(b, byte(t))
	}
	return b
}

func appendLimits(b []byte, l Limits) []byte {
	b = append(b, l.Flags)
	b = AppendUleb(b, uint64(l.Min))
	if l.hasMax() {
		b = AppendUleb(b, uint64(l.Max))
	}
	return b
}

func appendTable(b []byte, t Table) []byte {
	return appendLimits(append(b, byte(t.RefType)), t.Limits)
}

func appendGlobalType(b []byte, g GlobalType) []byte {
	mut := byte(0)
	if g.Mutable {
		mut = 1
	}
	return append(b, byte(g.ValType), mut)
}

// appendSection appends section id (header and payload) to out.
func (m *Module) appendSection(out []byte, id SectionID) []byte {
	var p []byte
	switch id {
	case sectionType:
		p = AppendUleb(p, uint64(len(m.Types)))
		for _, t := range m.Types {
			p = append(p, 0x60)
			p = appendValTypes(p, t.Params)
			p = appendValTypes(p, t.Results)
		}
	case sectionImport:
		p = AppendUleb(p, uint64(len(m.Imports)))
		for _, im := range m.Imports {
			p = appendImport(p, im)
		}
	case sectionFunction:
		p = AppendUleb(p, uint64(len(m.Funcs)))
		for _, f := range m.Funcs {
			p = AppendUleb(p, uint64(f))
		}
	case sectionTable:
		p = AppendUleb(p, uint64(len(m.Tables)))
		for _, t := range m.Tables {
			p = appendTable(p, t)
		}
	case sectionMemory:
		p = AppendUleb(p, uint64(len(m.Memories)))
		for _, l := range m.Memories {
			p = appendLimits(p, l)
		}
	case sectionGlobal:
		p = AppendUleb(p, uint64(len(m.Globals)))
		for _, g := range m.Globals {
			p = appendGlobalType(p, g.Type)
			p = appendExpr(p, g.Init)
		}
	case sectionExport:
		p = AppendUleb(p, uint64(len(m.Exports)))
		for _, e := range m.Exports {
			p = appendName(p, e.Name)
			p = append(p, byte(e.Kind))
			p = AppendUleb(p, uint64(e.Index))
		}
	case sectionStart:
		if m.Start != nil {
			p = AppendUleb(p, uint64(*m.Start))
		}
	case sectionElement:
		p = AppendUleb(p, uint64(len(m.Elements)))
		for _, e := range m.Elements {
			p = appendElement(p, e)
		}
	case sectionDataCount:
		if m.DataCount != nil {
			p = AppendUleb(p, uint64(*m.DataCount))
		}
	case sectionCode:
		p = AppendUleb(p, uint64(len(m.Code)))
		for i := range m.Code {
			p = appendCode(p, &m.Code[i])
		}
	case sectionData:
		p = AppendUleb(p, uint64(len(m.Data)))
		for _, d := range m.Data {
			p = appendData(p, d)
		}
	}
	return appendSectionBytes(out, id, p)
}

// appendImport appends one entry of the import section.
func appendImport(p []byte, im Import) []byte {
	p = appendName(p, im.Module)
	p = appendName(p, im.Name)
	p = append(p, byte(im.Kind))
	switch im.Kind {
	case externFunc:
		p = AppendUleb(p, uint64(im.TypeIndex))
	case externTable:
		p = appendTable(p, im.Table)
	case externMemory:
		p = appendLimits(p, im.Memory)
	case ExternGlobal:
		p = appendGlobalType(p, im.Global)
	}
	return p
}

// appendData appends one segment of the data section.
func appendData(p []byte, d Data) []byte {
	p = AppendUleb(p, uint64(d.Flags))
	if d.Flags == 2 {
		p = AppendUleb(p, uint64(d.Memory))
	}
	if d.Flags != 1 {
		p = appendExpr(p, d.Offset)
	}
	p = AppendUleb(p, uint64(len(d.Init)))
	return append(p, d.Init...)
}

// appendCode appends one entry of the code section: its original bytes
// when its canonical encoding is unchanged since Decode.
func appendCode(p []byte, c *Code) []byte {
	enc := appendCodeCanonical(nil, c)
	if bytes.Equal(enc, c.raw.enc) {
		return append(p, c.raw.orig...)
	}
	return append(p, enc...)
}

func appendElement(p []byte, e Element) []byte {
	p = AppendUleb(p, uint64(e.Flags))
	if e.Flags&3 == 2 {
		p = AppendUleb(p, uint64(e.Table))
	}
	if e.active() {
		p = appendExpr(p, e.Offset)
	}
	if e.Flags&3 != 0 {
		p = append(p, e.Kind)
	}
	if e.Flags&4 == 0 {
		p = AppendUleb(p, uint64(len(e.Funcs)))
		for _, f := range e.Funcs {
			p = AppendUleb(p, uint64(f))
		}
		return p
	}
	p = AppendUleb(p, uint64(len(e.Exprs)))
	for _, x := range e.Exprs {
		p = appendExpr(p, x)
	}
	return p
}

// appendCodeCanonical appends the canonical encoding of a code entry, with
// its size prefix.
func appendCodeCanonical(out []byte, c *Code) []byte {
	body := AppendUleb(nil, uint64(len(c.Locals)))
	for _, g := range c.Locals {
		body = AppendUleb(body, uint64(g.Count))
		body = append(body, byte(g.Type))
	}
	body = appendExpr(body, c.Body)
	out = AppendUleb(out, uint64(len(body)))
	return append(out, body...)
}
