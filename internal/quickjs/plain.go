package quickjs

import (
	"math"
	"strconv"
)

// Plain values read in place.
//
// appendPlainJSON prints a small lossless value by reading QuickJS's heap
// directly: plain objects and dense arrays of numbers, 8-bit strings,
// booleans and null. It runs no JavaScript, so nothing the program did can
// interfere, and it accepts only what is unambiguous; for everything else
// (getters, proxies, prototypes other than the two plain ones, symbol,
// integer-like or non-enumerable keys, wide strings, -0, NaN, deep or large
// values, ...) it declines, and the guest's printer decides.
//
// The offsets below are those of QuickJS-NG 0.16's structs on wasm32 (our
// build: the reference count and GC type live in the allocator's block
// header, before the struct). discoverObjects checks them against probe
// values at Init; when a check fails, the Layout fields that enable this
// path stay zero and every value is printed by the guest.
const (
	objHead   = 8  // uint8 flags (is_prototype, extensible, free_mark, is_exotic, fast_array, ...), uint8, uint16 class_id
	objShape  = 12 // JSShape *shape
	objProp   = 16 // JSProperty *prop: one 8-byte JSValue per shape property
	arrValues = 28 // JSValue *u.array.u.values
	arrCount  = 32 // uint32_t u.array.count

	flagIsExotic  = 1 << 3
	flagFastArray = 1 << 4

	shapeHashMask  = 16 // uint32_t prop_hash_mask
	shapePropCount = 24 // int prop_count, deleted properties included
	shapeDeleted   = 28 // int deleted_prop_count
	shapeProto     = 36 // JSObject *proto
	shapeHashTable = 40 // uint32_t hash_table[prop_hash_mask+1], then JSShapeProperty prop[]: {hash_next:26, flags:6}, JSAtom

	propEnumerable = 1 << 2
	propTypeMask   = 3 << 4 // JS_PROP_TMASK: getter/setter, var ref, lazy

	strLenWide     = 0 // uint32_t len:31, is_wide_char:1
	strHashAtom    = 4 // uint32_t hash:28, kind:2, atom_type:2
	atomTypeString = 1
	atomTaggedInt  = 1 << 31

	// plainAtomArraySearch is how far into JSRuntime discoverObjects looks
	// for atom_array (after the allocator's and the arena's state).
	plainAtomArraySearch = 2048

	// shapeMaxHashMask bounds the hash table read past: a larger mask is
	// not a shape this path reads.
	shapeMaxHashMask = 1 << 20
)

// Limits of appendPlainJSON: bigger or deeper values go to the guest.
const (
	plainMaxDepth = 32
	plainMaxNodes = 4096
)

// appendPlainJSON appends the compact JSON text of v to dst, as the guest's
// lossless printer would print it, and returns true; or it returns false
// when v must be printed by the guest (see above). dst is then to be
// discarded.
func (in *Instance) appendPlainJSON(dst []byte, v Value) ([]byte, bool) {
	return in.appendPlain(dst, v, plainMaxNodes, math.MaxInt)
}

// AppendPlainJSONUpTo is appendPlainJSON bounded by the length of dst
// rather than by the number of nodes: it declines v when its text would
// make dst longer than maxLen, and stops reading soon after dst passes it.
// The host reads a program's value this way, up to a size it prints in a
// few milliseconds.
func (in *Instance) AppendPlainJSONUpTo(dst []byte, v Value, maxLen int) ([]byte, bool) {
	return in.appendPlain(dst, v, maxLen, maxLen)
}

func (in *Instance) appendPlain(dst []byte, v Value, maxNodes, maxLen int) ([]byte, bool) {
	if in.layout.AtomArray == 0 {
		return dst, false
	}
	atoms, ok := in.mem.ReadUint32Le(in.rt + in.layout.AtomArray)
	if !ok {
		return dst, false
	}
	p := plainPrinter{in: in, atoms: atoms, maxNodes: maxNodes, maxLen: maxLen}
	dst, ok = p.value(dst, v, 0)
	return dst, ok && len(dst) <= maxLen
}

type plainPrinter struct {
	in       *Instance
	atoms    uint32 // rt->atom_array
	nodes    int
	maxNodes int // values read, containers included (keys are not values)
	maxLen   int // of dst
}

func (p *plainPrinter) u32(addr uint32) (uint32, bool) { return p.in.mem.ReadUint32Le(addr) }

// shapeProps returns where the JSShapeProperty array of the shape at shape
// starts: after its property hash table.
func (in *Instance) shapeProps(shape uint32) (uint32, bool) {
	mask, ok := in.mem.ReadUint32Le(shape + shapeHashMask)
	if !ok || mask >= shapeMaxHashMask {
		return 0, false
	}
	return shape + shapeHashTable + 4*(mask+1), true
}

func (p *plainPrinter) value(dst []byte, v Value, depth int) ([]byte, bool) {
	if p.nodes++; p.nodes > p.maxNodes || len(dst) > p.maxLen {
		return dst, false
	}
	switch v.Tag() {
	case tagInt:
		return strconv.AppendInt(dst, int64(int32(uint32(v))), 10), true
	case tagFloat64:
		f, _ := v.Number()
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 && math.Signbit(f) {
			return dst, false
		}
		return appendNumber(dst, f), true
	case tagBool:
		if uint32(v) != 0 {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case tagNull:
		return append(dst, "null"...), true
	case TagString:
		return p.string(dst, uint32(v))
	case tagObject:
		if depth < plainMaxDepth {
			return p.object(dst, uint32(v), depth)
		}
	}
	return dst, false
}

// valueAt appends the JSValue stored at addr (an array element or a
// property's value).
func (p *plainPrinter) valueAt(dst []byte, addr uint32, depth int) ([]byte, bool) {
	v, ok := p.in.mem.ReadUint64Le(addr)
	if !ok {
		return dst, false
	}
	return p.value(dst, Value(v), depth)
}

// startsWithDigit reports whether the JSString at s starts with an ASCII
// digit (false for a wide string, which the caller declines anyway).
func (p *plainPrinter) startsWithDigit(s uint32) (digit, ok bool) {
	hdr, ok := p.u32(s + strLenWide)
	if !ok || hdr>>31 != 0 || hdr == 0 || !p.in.plainString(s) {
		return false, ok
	}
	c, ok := p.in.mem.ReadByte(s + p.in.layout.StringChars)
	return c >= '0' && c <= '9', ok
}

// plainString reports whether the JSString at s keeps its characters
// after its header (JS_STRING_KIND_NORMAL), not in another string (a slice)
// or elsewhere (indirect).
func (in *Instance) plainString(s uint32) bool {
	w, ok := in.mem.ReadUint32Le(s + strHashAtom)
	return ok && (w>>28)&3 == 0
}

// string appends the JSString at s if it has 8-bit characters.
func (p *plainPrinter) string(dst []byte, s uint32) ([]byte, bool) {
	hdr, ok := p.u32(s + strLenWide)
	if !ok || hdr>>31 != 0 || !p.in.plainString(s) {
		return dst, false
	}
	n := hdr & (1<<31 - 1)
	if uint64(len(dst))+uint64(n) > uint64(p.maxLen) {
		return dst, false
	}
	b, ok := p.in.mem.Read(s+p.in.layout.StringChars, n)
	if !ok {
		return dst, false
	}
	return appendLatin1String(dst, b), true
}

func (p *plainPrinter) object(dst []byte, o uint32, depth int) ([]byte, bool) {
	l := &p.in.layout
	head, ok1 := p.u32(o + objHead) // flags, class_id
	shape, ok2 := p.u32(o + objShape)
	props, ok3 := p.u32(o + objProp)
	proto, ok4 := p.u32(shape + shapeProto)
	count, ok5 := p.u32(shape + shapePropCount)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return dst, false
	}
	flags, class := byte(head), uint16(head>>16)
	switch {
	case class == l.ClassArray:
		// A dense array: fast, with the plain prototype and no property but
		// length, whose value is the element count.
		n, ok1 := p.u32(o + arrCount)
		values, ok2 := p.u32(o + arrValues)
		length, ok3 := p.in.mem.ReadUint64Le(props)
		if !ok1 || !ok2 || !ok3 || proto != l.ArrayProto || flags&flagFastArray == 0 || count != 1 ||
			Value(length) != Int(int32(n)) || uint64(n) > uint64(p.maxNodes) {
			return dst, false
		}
		dst = append(dst, '[')
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = p.valueAt(dst, values+8*i, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case class == l.ClassObject:
		// A plain object: no deleted property, every property an
		// enumerable data property with a string key (an integer key is
		// declined below).
		sprops, ok1 := p.in.shapeProps(shape)
		deleted, ok2 := p.u32(shape + shapeDeleted)
		if !ok1 || !ok2 || proto != l.ObjectProto && proto != 0 || flags&flagIsExotic != 0 ||
			deleted != 0 || uint64(count) > uint64(p.maxNodes) {
			return dst, false
		}
		dst = append(dst, '{')
		for i := range count {
			word, ok1 := p.u32(sprops + 8*i)
			atom, ok2 := p.u32(sprops + 8*i + 4)
			if !ok1 || !ok2 || (word>>26)&propEnumerable == 0 || (word>>26)&propTypeMask != 0 ||
				atom == 0 || atom&atomTaggedInt != 0 {
				return dst, false
			}
			key, ok1 := p.u32(p.atoms + 4*atom)
			kind, ok2 := p.u32(key + strHashAtom)
			if !ok1 || !ok2 || kind>>30 != atomTypeString {
				return dst, false // a symbol
			}
			// Array indices up to 2^32-2 come first in own-key order, but
			// only those below 2^31 are integer atoms: decline every key that
			// starts with a digit, as the guest's printer is the one to order
			// them.
			if digit, ok := p.startsWithDigit(key); !ok || digit {
				return dst, false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = p.string(dst, key); !ok {
				return dst, false
			}
			dst = append(dst, ':')
			if dst, ok = p.valueAt(dst, props+8*i, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// Probes for discoverObjects.
const (
	objectProbe     = `({coderunProbeKey: 19088743, coderunProbeB: "s"})`
	objectProbeKey  = "coderunProbeKey"
	objectProbeJSON = `{"coderunProbeKey":19088743,"coderunProbeB":"s"}`
	arrayProbe      = `[19088743, 2, 3]`
	probeInt        = 19088743
)

// discoverObjects fills the layout fields that enable appendPlainJSON: it
// checks the offsets above on probe values, finds rt->atom_array, and
// prints the probes. It leaves the fields zero when anything differs.
func (in *Instance) discoverObjects() error {
	var vals []Value
	defer func() {
		for _, v := range vals {
			_ = in.FreeValue(v)
		}
	}()
	eval := func(src string) (uint32, bool, error) {
		v, err := in.Eval(src, "coderun:probe", EvalGlobal)
		if err != nil {
			return 0, false, err
		}
		vals = append(vals, v)
		return uint32(v), v.Tag() == tagObject, nil
	}
	var ptrs [4]uint32
	for i, src := range []string{"Object.prototype", "Array.prototype", objectProbe, arrayProbe} {
		p, ok, err := eval(src)
		if err != nil || !ok {
			return err
		}
		ptrs[i] = p
	}
	objProto, arrProto, obj, arr := ptrs[0], ptrs[1], ptrs[2], ptrs[3]
	u32 := func(addr uint32) uint32 { v, _ := in.mem.ReadUint32Le(addr); return v }

	// The probe object: its class, shape, and its first property.
	shape, props := u32(obj+objShape), u32(obj+objProp)
	first, _ := in.mem.ReadUint64Le(props)
	sprops, ok := in.shapeProps(shape)
	if !ok || u32(shape+shapeProto) != objProto || u32(shape+shapePropCount) != 2 || u32(shape+shapeDeleted) != 0 ||
		(u32(sprops)>>26)&(propEnumerable|propTypeMask) != propEnumerable || Value(first) != Int(probeInt) {
		return nil
	}
	// rt->atom_array: the pointer in JSRuntime through which the first
	// key's atom leads to its string.
	atom := u32(sprops + 4)
	atomArray := uint32(0)
	for off := uint32(0); off < plainAtomArraySearch; off += 4 {
		s := u32(u32(in.rt+off) + 4*atom)
		if s == 0 || u32(s+strLenWide) != uint32(len(objectProbeKey)) || u32(s+strHashAtom)>>30 != atomTypeString {
			continue
		}
		if b, ok := in.mem.Read(s+in.layout.StringChars, uint32(len(objectProbeKey))); ok && string(b) == objectProbeKey {
			atomArray = off
			break
		}
	}
	// The probe array.
	ashape := u32(arr + objShape)
	elem, _ := in.mem.ReadUint64Le(u32(arr + arrValues))
	flags, _ := in.mem.ReadByte(arr + objHead)
	if atomArray == 0 || u32(ashape+shapeProto) != arrProto || u32(ashape+shapePropCount) != 1 ||
		u32(arr+arrCount) != 3 || Value(elem) != Int(probeInt) || flags&flagFastArray == 0 {
		return nil
	}
	l := in.layout
	l.ObjectProto, l.ArrayProto, l.AtomArray = objProto, arrProto, atomArray
	l.ClassObject, l.ClassArray = uint16(u32(obj+objHead)>>16), uint16(u32(arr+objHead)>>16)
	saved := in.layout
	in.layout = l
	o, ok1 := in.appendPlainJSON(nil, vals[2])
	a, ok2 := in.appendPlainJSON(nil, vals[3])
	if !ok1 || !ok2 || string(o) != objectProbeJSON || string(a) != "[19088743,2,3]" {
		in.layout = saved
	}
	return nil
}
