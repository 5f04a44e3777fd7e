package quickjs

import (
	"bytes"
	"fmt"
	"strings"
)

// Fields of QuickJS-NG 0.16's structs (wasm32) that DropSources uses,
// besides the allocator's (arena.go). Each is checked against the instance
// before anything is changed.
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
	// allocation besides its usable size: MALLOC_OVERHEAD.
	mallocOverhead = 8

	// struct JSGCObjectHeader is only the GC list's link (a list_head
	// {prev, next}) at 0; the GC object type is in the block header.
	// JS_GC_OBJ_TYPE_FUNCTION_BYTECODE:
	gcTypeFunctionBytecode = 1

	// struct JSFunctionBytecode.
	bcByteCodeBuf = 12
	bcByteCodeLen = 16
	bcRealm       = 48
	bcSourceLen   = 68
	bcSource      = 80
	bcSize        = 84
)

// classPrefix starts the source text of a class (its constructor's).
const classPrefix = "class"

// SourceStats says what DropSources freed.
type SourceStats struct {
	Functions int // functions whose source text was dropped
	Bytes     int // bytes of source text freed
}

// functionSource is one function's source text: the JSFunctionBytecode at
// b keeps n bytes in the block src.
type functionSource struct {
	b   uint32
	src block
	n   uint32
}

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
// and source allocations, the engine's small-block arenas on the malloc
// heap, the runtime's allocation counters) before it changes anything: on
// any mismatch it changes nothing and fails with ErrLayoutMismatch. Any
// other error is a failed call into the instance, which must then be
// discarded. It must not be called while a call into the instance is in
// progress.
func (in *Instance) DropSources(from string) (SourceStats, error) {
	sources, err := in.findSources(from)
	if err != nil {
		return SourceStats{}, err
	}
	var st SourceStats
	for _, s := range sources {
		in.mem.WriteUint32Le(s.b+bcSource, 0)
		in.mem.WriteUint32Le(s.b+bcSourceLen, 0)
		if err := in.freeBlock(s.src); err != nil {
			return st, fmt.Errorf("quickjs: freeing a function's source: %w", err)
		}
		st.Functions++
		st.Bytes += int(s.n)
	}
	return st, nil
}

// findSources returns every function's source text, after checking the
// layout that DropSources relies on.
func (in *Instance) findSources(from string) ([]functionSource, error) {
	mem, heap, arenas, err := in.walkMemory()
	if err != nil {
		return nil, err
	}
	l := in.layout
	list := l.StackSize - gcListBeforeStackSize
	if l.AtomArray == 0 || l.StackSize < gcListBeforeStackSize || list != l.AtomArray+gcListAfterAtomArray {
		return nil, mismatch("the GC object list is not where the runtime layout puts it")
	}
	var sources []functionSource
	seen := map[uint32]bool{}
	err = walkList(mem, in.rt+list, 0, func(b uint32) error {
		if b < blockHeader || mem[b-blockHeader+blockGCType]&gcTypeMask != gcTypeFunctionBytecode {
			return nil
		}
		s, err := checkFunction(mem, heap, arenas, b, in.jsctx, from)
		if err != nil {
			return err
		}
		if s.src.p == 0 || bytes.HasPrefix(mem[s.src.p:s.src.p+s.n], []byte(classPrefix)) {
			return nil
		}
		if seen[s.src.p] {
			return mismatch("two functions share the source at %d", s.src.p)
		}
		seen[s.src.p] = true
		sources = append(sources, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sources, nil
}

// checkFunction checks the JSFunctionBytecode at b: it is an allocation in
// use (arenas) of the context ctx whose bytecode lies inside it, and its
// source, when it has one, is a NUL-terminated allocation holding a piece
// of from. It returns the source (src.p 0 when there is none).
func checkFunction(mem []byte, heap heapWalk, arenas arenaWalk, b, ctx uint32, from string) (functionSource, error) {
	fail := func(what string) (functionSource, error) {
		return functionSource{}, mismatch("the function bytecode at %d does not check: %s", b, what)
	}
	fb, ok := arenas.block(mem, heap, b)
	if !ok || fb.end-b < bcSize {
		return fail("not an allocation")
	}
	if le32(mem[b+bcRealm:]) != ctx {
		return fail("another realm")
	}
	code, codeLen := le32(mem[b+bcByteCodeBuf:]), le32(mem[b+bcByteCodeLen:])
	if code < b+bcSize || code > fb.end || codeLen > fb.end-code {
		return fail("bytecode outside the allocation")
	}
	p, n := le32(mem[b+bcSource:]), le32(mem[b+bcSourceLen:])
	if p == 0 {
		if n != 0 {
			return fail("a source length without a source")
		}
		return functionSource{}, nil
	}
	src, ok := arenas.block(mem, heap, p)
	if !ok || n >= src.end-p || mem[p+n] != 0 {
		return fail("the source is not an allocated string")
	}
	if !strings.Contains(from, string(mem[p:p+n])) {
		return fail("the source is not a piece of the given text")
	}
	return functionSource{b: b, src: src, n: n}, nil
}
