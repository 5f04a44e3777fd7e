package wasm

import (
	"encoding/binary"
	"fmt"
)

// blockType is the type of a block, loop or if: blockEmpty, a value type
// (as its negative single-byte encoding, e.g. -1 for i32) or, when
// non-negative, a type index.
type blockType int64

// blockEmpty is the block type of a block with no parameters and results.
const blockEmpty blockType = -64

// valueBlock returns the block type of a block with one result of type t.
func valueBlock(t ValType) blockType { return blockType(int64(t) - 0x80) }

// Instr is one instruction with its immediates. Which fields are used
// depends on Op:
//
//   - block, loop, if: C holds the blockType.
//   - br, br_if, call, local.*, global.*, table.get/set, ref.func,
//     data.drop, elem.drop, table.grow/size/fill, memory.init: A is the
//     index (label, function, local, global, table, data or element).
//   - br_table: Vec holds the targets, A the default target.
//   - call_indirect: A is the type index, B the table index.
//   - loads and stores: A is the alignment exponent, B the offset.
//   - table.init: A is the element index, B the table; table.copy: A is
//     the destination table, B the source.
//   - i32.const and i64.const: C holds the value (an i32 sign-extended);
//     f32.const and f64.const: C holds the IEEE bits.
//   - select with types: Vec holds the value types; ref.null: A is the
//     reference type.
//
// Reserved memory-index bytes are always zero and are not stored.
type Instr struct {
	Op  Opcode
	A   uint32
	B   uint32
	C   uint64
	Vec []uint32
}

// i32 returns the value of an i32.const.
func (in Instr) i32() int32 { return int32(in.C) }

// block returns the block type of a block, loop or if.
func (in Instr) block() blockType { return blockType(in.C) }

// i32Const returns an i32.const instruction.
func i32Const(v int32) Instr { return Instr{Op: opI32Const, C: uint64(int64(v))} }

// i64Const returns an i64.const instruction.
func i64Const(v int64) Instr { return Instr{Op: opI64Const, C: uint64(v)} }

// indexed returns an instruction whose only immediate is an index, such as
// call, local.get or global.set.
func indexed(op Opcode, idx uint32) Instr { return Instr{Op: op, A: idx} }

// simple returns an instruction without immediates that are not reserved
// zero bytes, such as i64.sub, end, memory.grow or memory.copy.
func simple(op Opcode) Instr { return Instr{Op: op} }

// blockInstr returns a block, loop or if instruction with type bt.
func blockInstr(op Opcode, bt blockType) Instr { return Instr{Op: op, C: uint64(bt)} }

// decodeInstr decodes one instruction at the start of b. base is the module
// offset of b, for error messages.
func decodeInstr(b []byte, base int) (Instr, int, error) {
	if len(b) == 0 {
		return Instr{}, 0, fmt.Errorf("offset %#x: %w", base, errEOF)
	}
	op := Opcode(b[0])
	n := 1
	if b[0] == prefixMisc {
		sub, k, err := readUleb(b[1:], 32)
		if err != nil {
			return Instr{}, 0, fmt.Errorf("offset %#x: 0xfc sub-opcode: %w", base, err)
		}
		n += k
		if sub > 0xff || miscImmKind(uint32(sub)) == immInvalid {
			return Instr{}, 0, fmt.Errorf("offset %#x: unsupported opcode 0xfc %d", base, sub)
		}
		op = prefixMisc<<8 | Opcode(sub)
	}
	in := Instr{Op: op}
	kind := immKindOf(op)
	if kind == immInvalid {
		return Instr{}, 0, fmt.Errorf("offset %#x: unsupported opcode %s", base, op)
	}
	fail := func(what string, err error) (Instr, int, error) {
		return Instr{}, 0, fmt.Errorf("offset %#x: opcode %s: %s: %w", base, op, what, err)
	}
	u32 := func(what string) (uint32, error) {
		v, k, err := readUleb(b[n:], 32)
		if err != nil {
			return 0, lebError(what, err)
		}
		n += k
		return uint32(v), nil
	}
	zero := func() error {
		if n >= len(b) {
			return errEOF
		}
		if b[n] != 0 {
			return fmt.Errorf("memory index %d (only 0 is supported)", b[n])
		}
		n++
		return nil
	}
	var err error
	switch kind {
	case immNone:
	case immBlock:
		v, k, e := readSleb(b[n:], 33)
		if e != nil {
			return fail("block type", e)
		}
		if v < 0 && v != int64(blockEmpty) && !isValType(byte(v&0x7f)) {
			return fail("block type", fmt.Errorf("invalid block type %d", v))
		}
		in.C = uint64(v)
		n += k
	case immIndex:
		in.A, err = u32("index")
	case immBrTable:
		var cnt uint32
		if cnt, err = u32("label count"); err != nil {
			break
		}
		if uint64(cnt) > uint64(len(b)-n) { // each label takes at least a byte
			err = fmt.Errorf("label count %d: %w", cnt, errEOF)
			break
		}
		in.Vec = make([]uint32, cnt)
		for i := range in.Vec {
			if in.Vec[i], err = u32("label"); err != nil {
				break
			}
		}
		if err == nil {
			in.A, err = u32("default label")
		}
	case immCallInd:
		if in.A, err = u32("type index"); err == nil {
			in.B, err = u32("table index")
		}
	case immMemarg:
		if in.A, err = u32("alignment"); err == nil {
			in.B, err = u32("offset")
		}
	case immZeroByte:
		err = zero()
	case immZero2:
		if err = zero(); err == nil {
			err = zero()
		}
	case immI32:
		v, k, e := readSleb(b[n:], 32)
		in.C, n, err = uint64(v), n+k, e
	case immI64:
		v, k, e := readSleb(b[n:], 64)
		in.C, n, err = uint64(v), n+k, e
	case immF32:
		if len(b)-n < 4 {
			err = errEOF
			break
		}
		in.C = uint64(binary.LittleEndian.Uint32(b[n:]))
		n += 4
	case immF64:
		if len(b)-n < 8 {
			err = errEOF
			break
		}
		in.C = binary.LittleEndian.Uint64(b[n:])
		n += 8
	case immSelectT:
		var cnt uint32
		if cnt, err = u32("type count"); err != nil {
			break
		}
		if uint64(cnt) > uint64(len(b)-n) {
			err = fmt.Errorf("type count %d: %w", cnt, errEOF)
			break
		}
		in.Vec = make([]uint32, cnt)
		for i := range in.Vec {
			t := b[n]
			if !isValType(t) {
				err = fmt.Errorf("invalid value type %#x", t)
				break
			}
			in.Vec[i] = uint32(t)
			n++
		}
	case immRefType:
		if n >= len(b) {
			err = errEOF
			break
		}
		if t := ValType(b[n]); t != funcRef && t != externRef {
			err = fmt.Errorf("invalid reference type %#x", b[n])
			break
		}
		in.A = uint32(b[n])
		n++
	case immIndexZero:
		if in.A, err = u32("index"); err == nil {
			err = zero()
		}
	case immIndex2:
		if in.A, err = u32("first index"); err == nil {
			in.B, err = u32("second index")
		}
	}
	if err != nil {
		return fail("immediate", err)
	}
	return in, n, nil
}

// isValType reports whether t encodes a value type.
func isValType(t byte) bool {
	switch ValType(t) {
	case i32, i64, f32, f64, v128, funcRef, externRef:
		return true
	}
	return false
}

// appendInstr appends the canonical encoding of in to b.
func appendInstr(b []byte, in Instr) []byte {
	if in.Op>>8 == prefixMisc {
		b = append(b, prefixMisc)
		b = AppendUleb(b, uint64(in.Op&0xff))
	} else {
		b = append(b, byte(in.Op))
	}
	switch immKindOf(in.Op) {
	case immBlock:
		b = AppendSleb(b, int64(in.C))
	case immIndex:
		b = AppendUleb(b, uint64(in.A))
	case immBrTable:
		b = AppendUleb(b, uint64(len(in.Vec)))
		for _, l := range in.Vec {
			b = AppendUleb(b, uint64(l))
		}
		b = AppendUleb(b, uint64(in.A))
	case immCallInd, immMemarg, immIndex2:
		b = AppendUleb(b, uint64(in.A))
		b = AppendUleb(b, uint64(in.B))
	case immZeroByte:
		b = append(b, 0)
	case immZero2:
		b = append(b, 0, 0)
	case immI32:
		b = AppendSleb(b, int64(int32(in.C)))
	case immI64:
		b = AppendSleb(b, int64(in.C))
	case immF32:
		b = binary.LittleEndian.AppendUint32(b, uint32(in.C))
	case immF64:
		b = binary.LittleEndian.AppendUint64(b, in.C)
	case immSelectT:
		b = AppendUleb(b, uint64(len(in.Vec)))
		for _, t := range in.Vec {
			b = append(b, byte(t))
		}
	case immRefType:
		b = append(b, byte(in.A))
	case immIndexZero:
		b = AppendUleb(b, uint64(in.A))
		b = append(b, 0)
	}
	return b
}

// decodeExpr decodes instructions from b up to and including the end that
// closes the expression. It returns the instructions and the bytes used;
// capHint is the expected number of instructions.
func decodeExpr(b []byte, base, capHint int) ([]Instr, int, error) {
	out := make([]Instr, 0, capHint)
	depth := 0
	for n := 0; ; {
		if n >= len(b) {
			return nil, 0, fmt.Errorf("offset %#x: expression without end: %w", base+n, errEOF)
		}
		in, k, err := decodeInstr(b[n:], base+n)
		if err != nil {
			return nil, 0, err
		}
		n += k
		out = append(out, in)
		switch in.Op {
		case opBlock, opLoop, opIf:
			depth++
		case opEnd:
			if depth == 0 {
				return out, n, nil
			}
			depth--
		}
	}
}

// appendExpr appends the canonical encoding of the instructions to b.
func appendExpr(b []byte, body []Instr) []byte {
	for _, in := range body {
		b = appendInstr(b, in)
	}
	return b
}
