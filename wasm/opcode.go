package wasm

import "fmt"

// Opcode is an instruction opcode. Single-byte opcodes are their byte value;
// 0xFC-prefixed ones are 0xFC00 | sub-opcode (sub-opcodes above 0xFF are not
// used by any supported instruction).
type Opcode uint16

// Control, parametric, variable and a few memory and numeric opcodes that
// the passes and tests use by name. Others are written as Opcode(0x..).
const (
	opUnreachable   Opcode = 0x00
	opNop           Opcode = 0x01
	opBlock         Opcode = 0x02
	opLoop          Opcode = 0x03
	opIf            Opcode = 0x04
	opElse          Opcode = 0x05
	opEnd           Opcode = 0x0b
	opBr            Opcode = 0x0c
	opBrIf          Opcode = 0x0d
	opBrTable       Opcode = 0x0e
	opReturn        Opcode = 0x0f
	opCall          Opcode = 0x10
	opCallIndirect  Opcode = 0x11
	opDrop          Opcode = 0x1a
	opSelect        Opcode = 0x1b
	opSelectT       Opcode = 0x1c
	opLocalGet      Opcode = 0x20
	opLocalSet      Opcode = 0x21
	opLocalTee      Opcode = 0x22
	opGlobalGet     Opcode = 0x23
	opGlobalSet     Opcode = 0x24
	opTableGet      Opcode = 0x25
	opTableSet      Opcode = 0x26
	opI32Load       Opcode = 0x28
	opI64Load       Opcode = 0x29
	opI32Store      Opcode = 0x36
	opMemorySize    Opcode = 0x3f
	opMemoryGrow    Opcode = 0x40
	opI32Const      Opcode = 0x41
	opI64Const      Opcode = 0x42
	opF32Const      Opcode = 0x43
	opF64Const      Opcode = 0x44
	opI32Eqz        Opcode = 0x45
	opI32Eq         Opcode = 0x46
	opI32LtU        Opcode = 0x49
	opI32GtU        Opcode = 0x4b
	opI64LtS        Opcode = 0x53
	opI32Add        Opcode = 0x6a
	opI32Sub        Opcode = 0x6b
	opI32And        Opcode = 0x71
	opI32ShrU       Opcode = 0x76
	opI64Sub        Opcode = 0x7d
	opI64GtU        Opcode = 0x56
	opI64Add        Opcode = 0x7c
	opI64Xor        Opcode = 0x85
	opI64Shl        Opcode = 0x86
	opI64ShrU       Opcode = 0x88
	opI32WrapI64    Opcode = 0xa7
	opI64ExtendI32U Opcode = 0xad
	opRefNull       Opcode = 0xd0
	opRefIsNull     Opcode = 0xd1
	opRefFunc       Opcode = 0xd2

	opMemoryInit Opcode = 0xfc08
	opDataDrop   Opcode = 0xfc09
	opMemoryCopy Opcode = 0xfc0a
	opMemoryFill Opcode = 0xfc0b
	opTableInit  Opcode = 0xfc0c
	opElemDrop   Opcode = 0xfc0d
	opTableCopy  Opcode = 0xfc0e
	opTableGrow  Opcode = 0xfc0f
	opTableSize  Opcode = 0xfc10
	opTableFill  Opcode = 0xfc11
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
