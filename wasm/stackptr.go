package wasm

import "fmt"

// stackPointerExport is the name under which ExportStackPointer exports the
// C shadow-stack pointer.
const stackPointerExport = "__stack_pointer"

// ExportStackPointer exports global 0, the shadow-stack pointer of a module
// built by clang/wasm-ld, as stackPointerExport, so that the host can move
// the stack (for example to a bigger malloc'd block). Global 0 must be a
// mutable i32.
func ExportStackPointer(m *Module) error {
	g, ok := m.globalType(0)
	if !ok {
		return fmt.Errorf("wasm: export stack pointer: the module has no global 0")
	}
	if g != (GlobalType{ValType: i32, Mutable: true}) {
		return fmt.Errorf("wasm: export stack pointer: global 0 is not a mutable i32")
	}
	if err := m.addExport(Export{Name: stackPointerExport, Kind: ExternGlobal, Index: 0}); err != nil {
		return fmt.Errorf("wasm: export stack pointer: %w", err)
	}
	return nil
}
