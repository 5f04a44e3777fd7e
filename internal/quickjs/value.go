package quickjs

import "math"

// Value is a QuickJS JSValue as the wasm32 build represents it: NaN-boxed in
// an i64, with the tag in the high 32 bits.
type Value uint64

// Tags of the NaN-boxed representation (quickjs.h, JS_NAN_BOXING).
const (
	tagBigInt        int32 = -9
	tagSymbol        int32 = -8
	TagString        int32 = -7
	tagStringRope    int32 = -6 // a concatenation not yet flattened
	tagObject        int32 = -1
	tagInt           int32 = 0
	tagBool          int32 = 1
	tagNull          int32 = 2
	tagUndefined     int32 = 3
	tagUninitialized int32 = 4
	tagException     int32 = 6
	tagFloat64       int32 = 8
)

// float64TagAddend is JS_FLOAT64_TAG_ADDEND: 0x7ff80000 - JS_TAG_FIRST + 1.
const float64TagAddend = 0x7ff80000 - (-9) + 1

// Undefined, Null and the exception marker.
const (
	Undefined Value = Value(uint64(uint32(tagUndefined)) << 32)
	null      Value = Value(uint64(uint32(tagNull)) << 32)
	Exception Value = Value(uint64(uint32(tagException)) << 32)
)

// Tag returns the value's tag; every float64 reports tagFloat64.
func (v Value) Tag() int32 {
	t := int32(uint64(v) >> 32)
	if uint32(t-(-9)) >= uint32(tagFloat64-(-9)) {
		return tagFloat64
	}
	return t
}

// IsString reports whether v is a string: a flat one (TagString) or a
// rope, which QuickJS-NG makes of long concatenations and flattens when
// its characters are read (ViewString does).
func (v Value) IsString() bool {
	t := v.Tag()
	return t == TagString || t == tagStringRope
}

// IsException reports whether v is the exception marker.
func (v Value) IsException() bool { return int32(uint64(v)>>32) == tagException }

// Int returns a small integer value.
func Int(i int32) Value { return Value(uint64(uint32(i))) }

// Float64 returns a number value holding f (a NaN may not keep its bits).
func Float64(f float64) Value {
	return Value(math.Float64bits(f) - uint64(float64TagAddend)<<32)
}

// Bool returns a boolean value.
func Bool(b bool) Value {
	if b {
		return Value(uint64(uint32(tagBool))<<32 | 1)
	}
	return Value(uint64(uint32(tagBool)) << 32)
}

// Number returns the numeric value of an int or float64 JSValue, and false
// for any other tag.
func (v Value) Number() (float64, bool) {
	switch v.Tag() {
	case tagInt:
		return float64(int32(uint32(v))), true
	case tagFloat64:
		return math.Float64frombits(uint64(v) + uint64(float64TagAddend)<<32), true
	}
	return 0, false
}

// hasRefCount reports whether the value holds a reference that must be freed.
func (v Value) hasRefCount() bool {
	t := int32(uint64(v) >> 32)
	return t < 0 && t >= -9
}

// refCountAt is where a reference-counted cell's count is, relative to the
// cell: QuickJS-NG's allocator keeps it in the 8-byte block header before
// every allocation (JSMallocBlockHeader.ref_count), checked at Init by
// discoverString, which FreeValue's shortcut depends on.
const refCountAt = ^uint32(3) // -4
