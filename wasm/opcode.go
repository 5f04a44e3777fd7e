package wasm

import "fmt"

// Opcode is an instruction opcode. Single-byte opcodes are their byte value;
// 0xFC-prefixed ones are 0xFC00 | sub-opcode (sub-opcodes above 0xFF are not
// used by any supported instruction).
type Opcode uint16

// Control, parametric, variable and a few memory and numeric opcodes that
// the passes and tests use by name. Others are written as Opcode(0x..).
const (
	OpUnreachable   Opcode = 0x00
	OpNop           Opcode = 0x01
	OpBlock         Opcode = 0x02
	OpLoop          Opcode = 0x03
	OpIf            Opcode = 0x04
	OpElse          Opcode = 0x05
	OpEnd           Opcode = 0x0b
	OpBr            Opcode = 0x0c
	OpBrIf          Opcode = 0x0d
	OpBrTable       Opcode = 0x0e
	OpReturn        Opcode = 0x0f
	OpCall          Opcode = 0x10
	OpCallIndirect  Opcode = 0x11
	OpDrop          Opcode = 0x1a
	OpSelect        Opcode = 0x1b
	OpSelectT       Opcode = 0x1c
	OpLocalGet      Opcode = 0x20
	OpLocalSet      Opcode = 0x21
	OpLocalTee      Opcode = 0x22
	OpGlobalGet     Opcode = 0x23
	OpGlobalSet     Opcode = 0x24
	OpTableGet      Opcode = 0x25
	OpTableSet      Opcode = 0x26
	OpI32Load       Opcode = 0x28
	OpI64Load       Opcode = 0x29
	OpI32Store      Opcode = 0x36
	OpMemorySize    Opcode = 0x3f
	OpMemoryGrow    Opcode = 0x40
	OpI32Const      Opcode = 0x41
	OpI64Const      Opcode = 0x42
	OpF32Const      Opcode = 0x43
	OpF64Const      Opcode = 0x44
	OpI32Eqz        Opcode = 0x45
	OpI32Eq         Opcode = 0x46
	OpI32LtU        Opcode = 0x49
	OpI32GtU        Opcode = 0x4b
	OpI64LtS        Opcode = 0x53
	OpI32Add        Opcode = 0x6a
	OpI32Sub        Opcode = 0x6b
	OpI32And        Opcode = 0x71
	OpI32ShrU       Opcode = 0x76
	OpI64Sub        Opcode = 0x7d
	OpI64GtU        Opcode = 0x56
	OpI64Add        Opcode = 0x7c
	OpI64Shl        Opcode = 0x86
	OpI64ShrU       Opcode = 0x88
	OpI32WrapI64    Opcode = 0xa7
	OpI64ExtendI32U Opcode = 0xad
	OpRefNull       Opcode = 0xd0
	OpRefIsNull     Opcode = 0xd1
	OpRefFunc       Opcode = 0xd2

	OpMemoryInit Opcode = 0xfc08
	OpDataDrop   Opcode = 0xfc09
	OpMemoryCopy Opcode = 0xfc0a
	OpMemoryFill Opcode = 0xfc0b
	OpTableInit  Opcode = 0xfc0c
	OpElemDrop   Opcode = 0xfc0d
	OpTableCopy  Opcode = 0xfc0e
	OpTableGrow  Opcode = 0xfc0f
	OpTableSize  Opcode = 0xfc10
	OpTableFill  Opcode = 0xfc11
)

// prefixMisc is the prefix byte of the saturating-truncation and bulk-memory
// instructions.
const prefixMisc = 0xfc

// immKind classifies an instruction's immediates.
type immKind uint8

const (
	immInvalid   immKind = iota // not a supported opcode
	immNone                     // no immediates
	immBlock                    // block type (s33)
	immIndex                    // one u32 index into A
	immBrTable                  // vec(label) into Vec, default label into A
	immCallInd                  // type index into A, table index into B
	immMemarg                   // align into A, offset into B
	immZeroByte                 // one reserved 0x00 byte (memory index)
	immZero2                    // two reserved 0x00 bytes
	immI32                      // s32 into C
	immI64                      // s64 into C
	immF32                      // 4 bytes into C
	immF64                      // 8 bytes into C
	immSelectT                  // vec(valtype) into Vec
	immRefType                  // one reference type byte into A
	immIndexZero                // u32 index into A, then a reserved 0x00 byte
	immIndex2                   // two u32 indices into A and B
)

// immKinds gives the immediates of every supported single-byte opcode.
var immKinds = func() (t [256]immKind) {
	for _, op := range []byte{0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1} {
		t[op] = immNone
	}
	for _, op := range []byte{0x02, 0x03, 0x04} {
		t[op] = immBlock
	}
	for _, op := range []byte{0x0c, 0x0d, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xd2} {
		t[op] = immIndex
	}
	t[0x0e] = immBrTable
	t[0x11] = immCallInd
	t[0x1c] = immSelectT
	for op := 0x28; op <= 0x3e; op++ {
		t[op] = immMemarg
	}
	t[0x3f], t[0x40] = immZeroByte, immZeroByte
	t[0x41], t[0x42], t[0x43], t[0x44] = immI32, immI64, immF32, immF64
	for op := 0x45; op <= 0xc4; op++ { // numeric, conversions, sign extension
		t[op] = immNone
	}
	t[0xd0] = immRefType
	return t
}()

// miscImmKind gives the immediates of a 0xFC-prefixed sub-opcode.
func miscImmKind(sub uint32) immKind {
	switch {
	case sub <= 7: // saturating truncations
		return immNone
	case sub == 8: // memory.init dataidx 0x00
		return immIndexZero
	case sub == 9, sub == 13, sub == 15, sub == 16, sub == 17: // data.drop, elem.drop, table.grow/size/fill
		return immIndex
	case sub == 10: // memory.copy 0x00 0x00
		return immZero2
	case sub == 11: // memory.fill 0x00
		return immZeroByte
	case sub == 12, sub == 14: // table.init elemidx tableidx, table.copy dst src
		return immIndex2
	}
	return immInvalid
}

// immKindOf returns the immediate kind of op.
func immKindOf(op Opcode) immKind {
	if op>>8 == prefixMisc {
		return miscImmKind(uint32(op & 0xff))
	}
	if op > 0xff {
		return immInvalid
	}
	return immKinds[op]
}

// String returns the opcode's hexadecimal encoding, such as "0x03" or
// "0xfc 10".
func (op Opcode) String() string {
	if op>>8 == prefixMisc {
		return fmt.Sprintf("0xfc %d", op&0xff)
	}
	return fmt.Sprintf("0x%02x", uint16(op))
}
