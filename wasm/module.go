package wasm

// ValType is a WebAssembly value type, as encoded in the binary format
// ([Value Types]).
//
// [Value Types]: https://webassembly.github.io/spec/core/binary/types.html#value-types
type ValType byte

// Value types.
const (
	i32       ValType = 0x7f
	i64       ValType = 0x7e
	f32       ValType = 0x7d
	f64       ValType = 0x7c
	v128      ValType = 0x7b
	funcRef   ValType = 0x70
	externRef ValType = 0x6f
)

// SectionID identifies a section of a module.
type SectionID byte

// Section identifiers, in the binary format's numbering (see
// https://webassembly.github.io/spec/core/binary/modules.html#sections).
const (
	sectionCustom    SectionID = 0
	sectionType      SectionID = 1
	sectionImport    SectionID = 2
	sectionFunction  SectionID = 3
	sectionTable     SectionID = 4
	sectionMemory    SectionID = 5
	sectionGlobal    SectionID = 6
	sectionExport    SectionID = 7
	sectionStart     SectionID = 8
	sectionElement   SectionID = 9
	sectionCode      SectionID = 10
	sectionData      SectionID = 11
	sectionDataCount SectionID = 12
)

// sectionOrder is the order in which non-custom sections must appear (see
// https://webassembly.github.io/spec/core/binary/modules.html#binary-module).
var sectionOrder = [...]SectionID{
	sectionType, sectionImport, sectionFunction, sectionTable, sectionMemory,
	sectionGlobal, sectionExport, sectionStart, sectionElement,
	sectionDataCount, sectionCode, sectionData,
}

// ExternKind is the kind of an import or export.
type ExternKind byte

// Import and export kinds.
const (
	externFunc   ExternKind = 0
	externTable  ExternKind = 1
	externMemory ExternKind = 2
	ExternGlobal ExternKind = 3
)

// Module is a decoded WebAssembly module. Its fields can be changed freely;
// Encode writes them back. Parts left unchanged keep their original bytes.
type Module struct {
	// Customs holds the custom sections in their original order.
	Customs []CustomSection
	// Types is the type section.
	Types []FuncType
	// Imports is the import section.
	Imports []Import
	// Funcs holds the type index of each function defined in the module,
	// in the order of the function section.
	Funcs []uint32
	// Tables is the table section.
	Tables []Table
	// Memories is the memory section.
	Memories []Limits
	// Globals is the global section.
	Globals []Global
	// Exports is the export section.
	Exports []Export
	// Start is the start function, if any.
	Start *uint32
	// Elements is the element section.
	Elements []Element
	// DataCount is the data count section, if present.
	DataCount *uint32
	// Code holds the body of each defined function, in the order of Funcs.
	Code []Code
	// Data is the data section.
	Data []Data

	// orig holds the original bytes (id, size and payload) of each known
	// section, with the canonical encoding of what was decoded from them.
	orig map[SectionID]rawUnit
}

// rawUnit records the original bytes of a part of a module (a section or a
// function body) and the bytes Encode produces for the value decoded from
// them. When Encode produces enc again, the part is unchanged and orig is
// written instead, which preserves non-canonical encodings byte for byte.
type rawUnit struct {
	orig, enc []byte
}

// CustomSection is a custom section, kept verbatim.
type CustomSection struct {
	// Name is the section's name.
	Name string
	// Payload is the section's content after its name.
	Payload []byte
	// After is the last non-custom section that preceded this one in the
	// original module, or sectionCustom if none did. Encode places the
	// section right after that section's position.
	After SectionID

	raw rawUnit // the original bytes of the whole section
}

// funcType is a function signature.
type FuncType struct {
	// Params are the parameter types.
	Params []ValType
	// Results are the result types.
	Results []ValType
}

// Equal reports whether t and u are the same signature.
func (t FuncType) Equal(u FuncType) bool {
	return string(valTypeBytes(t.Params)) == string(valTypeBytes(u.Params)) &&
		string(valTypeBytes(t.Results)) == string(valTypeBytes(u.Results))
}

func valTypeBytes(v []ValType) []byte {
	b := make([]byte, len(v))
	for i, t := range v {
		b[i] = byte(t)
	}
	return b
}

// Limits are the limits of a memory or table.
type Limits struct {
	// Flags is the limits' flag byte: bit 0 says Max is present, bit 1 marks
	// a shared memory.
	Flags byte
	// Min is the minimum size, in pages or elements.
	Min uint32
	// Max is the maximum size; it is meaningful only when Flags&1 is set.
	Max uint32
}

// hasMax reports whether the limits declare a maximum.
func (l Limits) hasMax() bool { return l.Flags&1 != 0 }

// Table is a table type.
type Table struct {
	// RefType is the table's element type (funcRef or externRef).
	RefType ValType
	// Limits are the table's limits.
	Limits Limits
}

// globalType is the type of a global.
type GlobalType struct {
	// ValType is the global's value type.
	ValType ValType
	// Mutable reports whether the global is mutable.
	Mutable bool
}

// Import is an imported function, table, memory or global.
type Import struct {
	// Module and Name name the import.
	Module, Name string
	// Kind says which of the fields below is meaningful.
	Kind ExternKind
	// TypeIndex is the signature of an imported function.
	TypeIndex uint32
	// Table is the type of an imported table.
	Table Table
	// Memory is the type of an imported memory.
	Memory Limits
	// Global is the type of an imported global.
	Global GlobalType
}

// Global is a global defined by the module.
type Global struct {
	// Type is the global's type.
	Type GlobalType
	// Init is the constant initializer expression, including its final end.
	Init []Instr
}

// Export is an exported item.
type Export struct {
	// Name is the export name.
	Name string
	// Kind is the kind of the exported item.
	Kind ExternKind
	// Index is the item's index in its index space.
	Index uint32
}

// Element is an element segment. Its Flags select one of the eight encodings
// of the binary format ([Element Section]), and with it which fields are
// meaningful.
//
// [Element Section]: https://webassembly.github.io/spec/core/binary/modules.html#element-section
type Element struct {
	// Flags is the segment's flag field (0 to 7). Bit 0: passive or
	// declarative; bit 1: explicit table index (active) or declarative
	// (otherwise); bit 2: elements are expressions rather than indices.
	Flags uint32
	// Table is the table of an active segment.
	Table uint32
	// Offset is the offset expression of an active segment.
	Offset []Instr
	// Kind is the element kind byte (0x00 for funcref) when Flags&4 == 0,
	// or the reference type when Flags&4 != 0. It is absent from the
	// encoding for flags 0 and 4.
	Kind byte
	// Funcs are the function indices, when Flags&4 == 0.
	Funcs []uint32
	// Exprs are the element expressions, when Flags&4 != 0.
	Exprs [][]Instr
}

// active reports whether the segment is active (copied into a table at
// instantiation).
func (e Element) active() bool { return e.Flags&1 == 0 }

// Code is the body of a defined function.
type Code struct {
	// Locals are the local declarations, as (count, type) groups.
	Locals []LocalGroup
	// body is the function's instructions, including the final end.
	Body []Instr

	raw rawUnit // the original entry, with its size prefix
}

// LocalGroup declares Count locals of type Type.
type LocalGroup struct {
	// Count is the number of locals.
	Count uint32
	// Type is their type.
	Type ValType
}

// Data is a data segment.
type Data struct {
	// Flags is 0 (active, memory 0), 1 (passive) or 2 (active, explicit
	// memory).
	Flags uint32
	// Memory is the memory of an active segment.
	Memory uint32
	// Offset is the offset expression of an active segment.
	Offset []Instr
	// Init holds the segment's bytes.
	Init []byte
}

// numImportedFuncs returns how many functions the module imports. Defined
// function i has the absolute function index numImportedFuncs()+i.
func (m *Module) numImportedFuncs() uint32 {
	return m.numImported(externFunc)
}

// numImportedGlobals returns how many globals the module imports.
func (m *Module) numImportedGlobals() uint32 {
	return m.numImported(ExternGlobal)
}

func (m *Module) numImported(k ExternKind) uint32 {
	var n uint32
	for _, im := range m.Imports {
		if im.Kind == k {
			n++
		}
	}
	return n
}

// funcType returns the signature of the function with absolute index idx.
func (m *Module) funcType(idx uint32) (FuncType, bool) {
	var n uint32
	for _, im := range m.Imports {
		if im.Kind != externFunc {
			continue
		}
		if n == idx {
			return m.typeAt(im.TypeIndex)
		}
		n++
	}
	if i := uint64(idx) - uint64(n); idx >= n && i < uint64(len(m.Funcs)) {
		return m.typeAt(m.Funcs[i])
	}
	return FuncType{}, false
}

func (m *Module) typeAt(i uint32) (FuncType, bool) {
	if uint64(i) >= uint64(len(m.Types)) {
		return FuncType{}, false
	}
	return m.Types[i], true
}

// globalType returns the type of the global with absolute index idx.
func (m *Module) globalType(idx uint32) (GlobalType, bool) {
	var n uint32
	for _, im := range m.Imports {
		if im.Kind != ExternGlobal {
			continue
		}
		if n == idx {
			return im.Global, true
		}
		n++
	}
	if i := uint64(idx) - uint64(n); idx >= n && i < uint64(len(m.Globals)) {
		return m.Globals[i].Type, true
	}
	return GlobalType{}, false
}

// body returns the code of the function with absolute index idx, or nil if
// idx is imported or out of range.
func (m *Module) body(idx uint32) *Code {
	n := m.numImportedFuncs()
	if idx < n || uint64(idx-n) >= uint64(len(m.Code)) {
		return nil
	}
	return &m.Code[idx-n]
}

// typeIndex returns the index of a type equal to t, appending t to the type
// section if there is none.
func (m *Module) typeIndex(t FuncType) uint32 {
	for i, u := range m.Types {
		if u.Equal(t) {
			return uint32(i)
		}
	}
	m.Types = append(m.Types, t)
	return uint32(len(m.Types) - 1)
}
