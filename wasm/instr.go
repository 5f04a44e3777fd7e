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
	op, n, err := decodeOpcode(b, base)
	if err != nil {
		return Instr{}, 0, err
	}
	r := immReader{b: b, n: n}
	in, err := r.immediates(op)
	if err != nil {
		return Instr{}, 0, fmt.Errorf("offset %#x: opcode %s: %w", base, op, err)
	}
	return in, r.n, nil
}

// decodeOpcode decodes the opcode at the start of b (a 0xFC prefix and its
// sub-opcode included) and returns it with the bytes it takes. It refuses
// an opcode whose immediates are not known.
func decodeOpcode(b []byte, base int) (Opcode, int, error) {
	if len(b) == 0 {
		return 0, 0, fmt.Errorf("offset %#x: %w", base, errEOF)
	}
	op := Opcode(b[0])
	n := 1
	if b[0] == prefixMisc {
		sub, k, err := readUleb(b[1:], 32)
		if err != nil {
			return 0, 0, fmt.Errorf("offset %#x: 0xfc sub-opcode: %w", base, err)
		}
		n += k
		if sub > 0xff || miscImmKind(uint32(sub)) == immInvalid {
			return 0, 0, fmt.Errorf("offset %#x: unsupported opcode 0xfc %d", base, sub)
		}
		op = prefixMisc<<8 | Opcode(sub)
	}
	if immKindOf(op) == immInvalid {
		return 0, 0, fmt.Errorf("offset %#x: unsupported opcode %s", base, op)
	}
	return op, n, nil
}

// immReader reads the immediates of one instruction from b, from offset n
// on; n ends after the last byte read.
type immReader struct {
	b []byte
	n int
}

// immediates reads the immediates of op, whose shape immKindOf gives, into
// an Instr. A switch rather than a table of functions keeps r on the stack:
// a call through a function value would make it escape, one allocation per
// instruction.
func (r *immReader) immediates(op Opcode) (Instr, error) {
	in := Instr{Op: op}
	var err error
	switch immKindOf(op) {
	case immBlock:
		if in.C, err = r.blockType(); err != nil {
			return Instr{}, fmt.Errorf("block type: %w", err)
		}
	case immIndex:
		in.A, err = r.u32("index")
	case immBrTable:
		in.Vec, in.A, err = r.labels()
	case immCallInd:
		in.A, in.B, err = r.u32Pair("type index", "table index")
	case immMemarg:
		in.A, in.B, err = r.u32Pair("alignment", "offset")
	case immZeroByte:
		err = r.zero()
	case immZero2:
		if err = r.zero(); err == nil {
			err = r.zero()
		}
	case immI32:
		in.C, err = r.sleb(32)
	case immI64:
		in.C, err = r.sleb(64)
	case immF32:
		in.C, err = r.fixed(4)
	case immF64:
		in.C, err = r.fixed(8)
	case immSelectT:
		in.Vec, err = r.valTypes()
	case immRefType:
		in.A, err = r.refType()
	case immIndexZero:
		if in.A, err = r.u32("index"); err == nil {
			err = r.zero()
		}
	case immIndex2:
		in.A, in.B, err = r.u32Pair("first index", "second index")
	}
	if err != nil {
		return Instr{}, fmt.Errorf("immediate: %w", err)
	}
	return in, nil
}

// u32 reads an unsigned 32-bit LEB128 number; what names it in an error.
func (r *immReader) u32(what string) (uint32, error) {
	v, k, err := readUleb(r.b[r.n:], 32)
	if err != nil {
		return 0, lebError(what, err)
	}
	r.n += k
	return uint32(v), nil
}

// u32Pair reads two unsigned 32-bit LEB128 numbers, named first and second.
func (r *immReader) u32Pair(first, second string) (uint32, uint32, error) {
	a, err := r.u32(first)
	if err != nil {
		return 0, 0, err
	}
	b, err := r.u32(second)
	return a, b, err
}

// zero reads a reserved memory-index byte, which must be zero.
func (r *immReader) zero() error {
	if r.n >= len(r.b) {
		return errEOF
	}
	if r.b[r.n] != 0 {
		return fmt.Errorf("memory index %d (only 0 is supported)", r.b[r.n])
	}
	r.n++
	return nil
}

// blockType reads the block type of a block, loop or if (an s33).
func (r *immReader) blockType() (uint64, error) {
	v, k, err := ReadSleb(r.b[r.n:], 33)
	if err != nil {
		return 0, err
	}
	if v < 0 && v != int64(blockEmpty) && !isValType(byte(v&0x7f)) {
		return 0, fmt.Errorf("invalid block type %d", v)
	}
	r.n += k
	return uint64(v), nil
}

// sleb reads a signed LEB128 number of at most bits bits, sign-extended.
func (r *immReader) sleb(bits uint) (uint64, error) {
	v, k, err := ReadSleb(r.b[r.n:], bits)
	r.n += k
	return uint64(v), err
}

// fixed reads a little-endian number of size bytes (4 or 8: the bits of
// an f32 or f64).
func (r *immReader) fixed(size int) (uint64, error) {
	if len(r.b)-r.n < size {
		return 0, errEOF
	}
	var v uint64
	if size == 4 {
		v = uint64(binary.LittleEndian.Uint32(r.b[r.n:]))
	} else {
		v = binary.LittleEndian.Uint64(r.b[r.n:])
	}
	r.n += size
	return v, nil
}

// labels reads the immediates of a br_table: the targets, then the default.
func (r *immReader) labels() ([]uint32, uint32, error) {
	cnt, err := r.u32("label count")
	if err != nil {
		return nil, 0, err
	}
	if uint64(cnt) > uint64(len(r.b)-r.n) { // each label takes at least a byte
		return nil, 0, fmt.Errorf("label count %d: %w", cnt, errEOF)
	}
	vec := make([]uint32, cnt)
	for i := range vec {
		if vec[i], err = r.u32("label"); err != nil {
			return nil, 0, err
		}
	}
	def, err := r.u32("default label")
	return vec, def, err
}

// valTypes reads the value types of a typed select.
func (r *immReader) valTypes() ([]uint32, error) {
	cnt, err := r.u32("type count")
	if err != nil {
		return nil, err
	}
	if uint64(cnt) > uint64(len(r.b)-r.n) {
		return nil, fmt.Errorf("type count %d: %w", cnt, errEOF)
	}
	vec := make([]uint32, cnt)
	for i := range vec {
		t := r.b[r.n]
		if !isValType(t) {
			return nil, fmt.Errorf("invalid value type %#x", t)
		}
		vec[i] = uint32(t)
		r.n++
	}
	return vec, nil
}

// refType reads the reference type of a ref.null.
func (r *immReader) refType() (uint32, error) {
	if r.n >= len(r.b) {
		return 0, errEOF
	}
	if t := ValType(r.b[r.n]); t != funcRef && t != externRef {
		return 0, fmt.Errorf("invalid reference type %#x", r.b[r.n])
	}
	r.n++
	return uint32(r.b[r.n-1]), nil
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
