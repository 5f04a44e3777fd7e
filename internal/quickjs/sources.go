package quickjs

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Fields of quickjs-ng 0.10.1's structs (wasm32) that DropSources uses.
// Each is checked against the instance before anything is changed.
const (
	// struct JSRuntime: JSMallocFunctions mf (5 pointers), then
	// JSMallocState {malloc_count, malloc_size, malloc_limit, opaque}.
	rtMallocCount = 20
	rtMallocSize  = 24
	// gc_obj_list comes 28 bytes after atom_array (atom_free_index,
	// js_class_id_alloc, class_count, class_array, context_list) and 32
	// before stack_size (gc_zero_ref_count_list, tmp_obj_list, gc_phase,
	// malloc_gc_threshold).
	gcListAfterAtomArray  = 28
	gcListBeforeStackSize = 32
	// mallocOverhead is what js_malloc_rt adds to malloc_size per
	// allocation: MALLOC_OVERHEAD (8) plus js__malloc_usable_size, which
	// is 0 on WASI.
	mallocOverhead = 8

	// struct JSGCObjectHeader: ref_count, then gc_obj_type in the low 4 bits
	// of the next byte; link (a list_head {prev, next}) at 8.
	gcHeaderType = 4
	gcHeaderLink = 8
	gcTypeMask   = 0xf
	// JS_GC_OBJ_TYPE_FUNCTION_BYTECODE.
	gcTypeFunctionBytecode = 1

	// struct JSFunctionBytecode.
	bcByteCodeBuf = 20
	bcByteCodeLen = 24
	bcRealm       = 48
	bcSourceLen   = 76
	bcSource      = 88
	bcSize        = 92
)

// classPrefix starts the source text of a class (its constructor's).
const classPrefix = "class"

// SourceStats says what DropSources freed.
type SourceStats struct {
	Functions int // functions whose source text was dropped
	Bytes     int // bytes of source text freed
}

// functionSource is one function's source text: the JSFunctionBytecode at
// b keeps n bytes at p.
type functionSource struct{ b, p, n uint32 }

// DropSources frees the source text QuickJS keeps for every function
// compiled so far (it serves only Function.prototype.toString, which then
// answers "[native code]" for them, as for a builtin), so that a snapshot
// of the instance does not carry it. Each text must be a piece of from,
// the source those functions were compiled from; functions compiled later
// keep theirs. Classes keep theirs too: their text is how a class is told
// from a function (inspectors, Node's and coderun's, print a class as
// [class X] because its text starts with "class").
//
// It walks the runtime's list of GC objects, and checks the layout of
// every field it uses (the list's links, each function's realm, bytecode
// and source allocations on the malloc heap, the runtime's allocation
// counters) before it changes anything: on any mismatch it changes nothing
// and fails with ErrLayoutMismatch. Any other error is a failed call into
// the instance, which must then be discarded. It must not be called while
// a call into the instance is in progress.
func (in *Instance) DropSources(from string) (SourceStats, error) {
	sources, err := in.findSources(from)
	if err != nil {
		return SourceStats{}, err
	}
	var st SourceStats
	for _, s := range sources {
		in.mem.WriteUint32Le(s.b+bcSource, 0)
		in.mem.WriteUint32Le(s.b+bcSourceLen, 0)
		if err := in.Free(s.p); err != nil {
			return st, fmt.Errorf("quickjs: freeing a function's source: %w", err)
		}
		st.Functions++
		st.Bytes += int(s.n)
	}
	// js_free_rt's accounting, which the direct free skipped.
	count, _ := in.mem.ReadUint32Le(in.rt + rtMallocCount)
	size, _ := in.mem.ReadUint32Le(in.rt + rtMallocSize)
	in.mem.WriteUint32Le(in.rt+rtMallocCount, count-uint32(st.Functions))
	in.mem.WriteUint32Le(in.rt+rtMallocSize, size-uint32(st.Functions)*mallocOverhead)
	return st, nil
}

// findSources returns every function's source text, after checking the
// layout that DropSources relies on.
func (in *Instance) findSources(from string) ([]functionSource, error) {
	mem, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return nil, errors.New("quickjs: reading memory")
	}
	heap, err := walkHeap(mem, in.layout.HeapBase)
	if err != nil {
		return nil, err
	}
	if err := in.checkMallocState(mem); err != nil {
		return nil, err
	}
	l := in.layout
	list := l.StackSize - gcListBeforeStackSize
	if l.AtomArray == 0 || l.StackSize < gcListBeforeStackSize || list != l.AtomArray+gcListAfterAtomArray {
		return nil, mismatch("the GC object list is not where the runtime layout puts it")
	}
	head := in.rt + list
	u32 := func(p uint32) uint32 {
		if p > uint32(len(mem))-4 {
			return 0
		}
		return le32(mem[p:])
	}
	var sources []functionSource
	seen := map[uint32]bool{}
	prev := head
	for node, n := u32(head+4), 0; node != head; node, n = u32(node+4), n+1 {
		if node < gcHeaderLink || u32(node) != prev || n > len(mem)/bcSize {
			return nil, mismatch("the GC object list is broken at %d", node)
		}
		prev = node
		b := node - gcHeaderLink
		if mem[b+gcHeaderType]&gcTypeMask != gcTypeFunctionBytecode {
			continue
		}
		s, err := checkFunction(mem, heap, b, in.jsctx, from)
		if err != nil {
			return nil, err
		}
		if s.p == 0 || bytes.HasPrefix(mem[s.p:s.p+s.n], []byte(classPrefix)) {
			continue
		}
		if seen[s.p] {
			return nil, mismatch("two functions share the source at %d", s.p)
		}
		seen[s.p] = true
		sources = append(sources, s)
	}
	if u32(head) != prev {
		return nil, mismatch("the GC object list does not close")
	}
	return sources, nil
}

// checkMallocState checks that the runtime's allocation counters are where
// rtMallocCount and rtMallocSize say: each allocation adds mallocOverhead
// to the size.
func (in *Instance) checkMallocState(mem []byte) error {
	count, size := le32(mem[in.rt+rtMallocCount:]), le32(mem[in.rt+rtMallocSize:])
	if count == 0 || size != count*mallocOverhead {
		return mismatch("the runtime's allocation counters do not check (%d allocations, %d bytes)", count, size)
	}
	return nil
}

// checkFunction checks the JSFunctionBytecode at b: it is a heap
// allocation of the context ctx whose bytecode lies inside it, and its
// source, when it has one, is a NUL-terminated heap allocation holding a
// piece of from. It returns the source (p 0 when there is none).
func checkFunction(mem []byte, heap heapWalk, b, ctx uint32, from string) (functionSource, error) {
	fail := func(what string) (functionSource, error) {
		return functionSource{}, mismatch("the function bytecode at %d does not check: %s", b, what)
	}
	c, ok := heap.inUseAt(b)
	if !ok || c.usableEnd()-b < bcSize {
		return fail("not a heap allocation")
	}
	if le32(mem[b+bcRealm:]) != ctx {
		return fail("another realm")
	}
	code, codeLen := le32(mem[b+bcByteCodeBuf:]), le32(mem[b+bcByteCodeLen:])
	if code < b+bcSize || code > c.usableEnd() || codeLen > c.usableEnd()-code {
		return fail("bytecode outside the allocation")
	}
	p, n := le32(mem[b+bcSource:]), le32(mem[b+bcSourceLen:])
	if p == 0 {
		if n != 0 {
			return fail("a source length without a source")
		}
		return functionSource{}, nil
	}
	sc, ok := heap.inUseAt(p)
	if !ok || n >= sc.usableEnd()-p || mem[p+n] != 0 {
		return fail("the source is not a heap string")
	}
	if !strings.Contains(from, string(mem[p:p+n])) {
		return fail("the source is not a piece of the given text")
	}
	return functionSource{b: b, p: p, n: n}, nil
}
