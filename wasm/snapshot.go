package wasm

import (
	"errors"
	"fmt"
)

// snapshotGap is how many zero bytes may separate two non-zero runs of the
// memory image before they become separate data segments. Every
// instantiation evaluates each segment's offset expression (wazero
// interprets it, allocating) before it copies the bytes, so a segment
// costs about as much as copying a kilobyte: gaps shorter than that are
// cheaper to copy than to split at.
const snapshotGap = 1024

// Snapshot makes m start from a captured state (Wizer-style
// pre-initialization): its data segments are replaced by the non-zero parts
// of memory (the whole linear memory of an instance that ran its
// initialization), the memory's minimum size becomes len(memory) in pages,
// and each mutable global gets the value in globals (indexed like the
// module's defined globals; immutable globals keep their initializers). An
// instance of the result is, as soon as it is instantiated, in the state
// the captured instance was in, with no start work left.
//
// Only active data segments are supported (passive ones could be copied
// again by memory.init, which an image cannot express).
func Snapshot(m *Module, memory []byte, globals []uint64) error {
	if err := snapshot(m, memory, globals); err != nil {
		return fmt.Errorf("wasm: snapshot: %w", err)
	}
	return nil
}

func snapshot(m *Module, memory []byte, globals []uint64) error {
	if len(m.Memories) != 1 || m.numImported(externMemory) != 0 {
		return errors.New("the module must define exactly one memory")
	}
	if len(memory)%65536 != 0 {
		return errors.New("the memory image is not a whole number of pages")
	}
	pages := uint32(len(memory) / 65536)
	if mem := m.Memories[0]; mem.Flags&1 != 0 && pages > mem.Max {
		return fmt.Errorf("the image has %d pages, more than the memory's maximum %d", pages, mem.Max)
	}
	for _, d := range m.Data {
		if d.Flags == 1 {
			return errors.New("the module has a passive data segment")
		}
	}
	if len(globals) != len(m.Globals) {
		return fmt.Errorf("%d global values for %d globals", len(globals), len(m.Globals))
	}
	for i, g := range m.Globals {
		if !g.Type.Mutable {
			continue
		}
		switch g.Type.ValType {
		case i32:
			m.Globals[i].Init = []Instr{i32Const(int32(globals[i])), simple(opEnd)}
		case i64:
			m.Globals[i].Init = []Instr{i64Const(int64(globals[i])), simple(opEnd)}
		default:
			return fmt.Errorf("global %d has a type the snapshot cannot set", i)
		}
	}
	m.Memories[0].Min = pages
	m.Data = imageSegments(memory)
	if m.DataCount != nil {
		n := uint32(len(m.Data))
		m.DataCount = &n
	}
	return nil
}

// imageSegments returns active data segments covering the non-zero bytes of
// memory; zero pages (most of a reserved stack, say) cost nothing.
func imageSegments(memory []byte) []Data {
	var segs []Data
	i := 0
	for i < len(memory) {
		for i < len(memory) && memory[i] == 0 {
			i++
		}
		if i == len(memory) {
			break
		}
		start, end := i, i
		for i < len(memory) {
			if memory[i] != 0 {
				i++
				end = i
				continue
			}
			j := i
			for j < len(memory) && memory[j] == 0 && j-end < snapshotGap {
				j++
			}
			if j == len(memory) || memory[j] == 0 {
				break
			}
			i = j
		}
		segs = append(segs, Data{Offset: []Instr{i32Const(int32(start)), simple(opEnd)}, Init: memory[start:end:end]})
		i = end
	}
	return segs
}
