package quickjs

import (
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/coderun/coderun/wasm"
)

// Layout holds the offsets of the JSRuntime fields coderun writes, found by
// a checked discovery at instance start (see discover).
type Layout struct {
	StackSize        uint32 // uintptr_t stack_size
	StackLimit       uint32 // uintptr_t stack_limit
	CurrentException uint32 // JSValue current_exception
	InterruptHandler uint32 // JSInterruptHandler *interrupt_handler
	// StringChars is where an 8-bit JSString's characters start, relative
	// to the string (0 when discovery failed: strings are then read through
	// QJS_ToCString).
	StringChars uint32
	// Plain values are read in place (appendPlainJSON) when AtomArray is
	// non-zero: Object.prototype and Array.prototype, the offset of
	// atom_array in JSRuntime, and the class ids of plain objects and arrays.
	ObjectProto, ArrayProto, AtomArray uint32
	ClassObject, ClassArray            uint16
	// ErrorStack is the offset in JSContext of error_prepare_stack, which
	// error_stack_trace_limit follows (0 when discovery failed: see
	// discoverErrorStack and Instance.Interrupt).
	ErrorStack uint32
	// StackBase and HeapBase are the linker's original stack region,
	// [StackBase, HeapBase), where the C heap starts (the module's
	// __data_end, rounded up to 16, and __heap_base).
	StackBase, HeapBase uint32
}

// discoveryMagic is passed as max_stack_size to coderun_new, which stores it in
// rt->stack_size; it has no other effect on WASI.
const discoveryMagic = 0x5eedc0de

// InitOptions configure Init.
type InitOptions struct {
	// StackBytes, when non-zero and the module exports __stack_pointer, moves
	// the guest's C stack to a fresh region of that size.
	StackBytes uint32
	// StackMargin is the room kept below QuickJS's stack limit for C code
	// that does not check the limit (error construction, builtins).
	StackMargin uint32
	// GCThreshold, when non-zero, is QuickJS's malloc_gc_threshold: the
	// cycle collector runs when the engine's heap grows past it. NoCycleGC
	// turns the collector off.
	GCThreshold uint32
}

// NoCycleGC is a GCThreshold the engine's heap never exceeds on wasm32: the
// cycle collector never runs, and reference counting alone frees memory.
const NoCycleGC = 0xffffffff

// Init creates the QuickJS runtime and context, discovers the JSRuntime
// layout, and applies opts.
func (in *Instance) Init(opts InitOptions) error {
	q, err := in.invoke(wasm.DispatchNew, 0, discoveryMagic, 0, uint64(opts.GCThreshold))
	if err != nil {
		return fmt.Errorf("quickjs: coderun_new: %w", err)
	}
	if uint32(q) == 0 {
		return errors.New("quickjs: coderun_new failed")
	}
	in.qjs = uint32(q)
	rt, ok := in.mem.ReadUint32Le(in.qjs)
	if !ok || rt == 0 {
		return errors.New("quickjs: no JSRuntime")
	}
	in.rt = rt
	c, err := in.invoke(wasm.DispatchContext, q)
	if err != nil {
		return err
	}
	in.jsctx = uint32(c)
	if in.layout, err = in.discover(); err != nil {
		return err
	}
	if in.layout.StringChars, err = in.discoverString(); err != nil {
		return err
	}
	if in.layout.StringChars != 0 {
		if err := in.discoverObjects(); err != nil {
			return err
		}
	}
	if in.layout.ErrorStack, err = in.discoverErrorStack(); err != nil {
		return err
	}
	if err := in.discoverRegions(); err != nil {
		return err
	}
	base := in.layout.StackBase
	if opts.StackBytes > 0 && in.stackPointer != nil {
		p, err := in.malloc(opts.StackBytes)
		if err != nil {
			return fmt.Errorf("quickjs: allocating the guest stack: %w", err)
		}
		base, in.stackBase = p, p
		in.stackPointer.Set(uint64((p + opts.StackBytes) &^ 15))
	}
	in.mem.WriteUint32Le(in.rt+in.layout.StackLimit, base+opts.StackMargin)
	return nil
}

// discoverRegions reads where the linker put the stack and the heap from
// the module's exported __data_end and __heap_base.
func (in *Instance) discoverRegions() error {
	dataEnd, ok1 := in.GlobalValue("__data_end")
	heapBase, ok2 := in.GlobalValue("__heap_base")
	stack := (uint32(dataEnd) + 15) &^ 15
	if !ok1 || !ok2 || stack >= uint32(heapBase) {
		return errors.New("quickjs: the module does not export a plausible __data_end and __heap_base")
	}
	in.layout.StackBase, in.layout.HeapBase = stack, uint32(heapBase)
	return nil
}

// discover finds rt->stack_size by the magic New_QJS stored there, then
// checks the fields around it against QuickJS-NG's struct JSRuntime:
// stack_size, stack_top, stack_limit (0 on WASI), current_exception
// (JS_UNINITIALIZED, 8-byte aligned), three bools, current_stack_frame
// (NULL outside a call), interrupt_handler (the glue's, set).
func (in *Instance) discover() (Layout, error) {
	const scan = 4096
	b, ok := in.mem.Read(in.rt, scan)
	if !ok {
		return Layout{}, errors.New("quickjs: JSRuntime out of bounds")
	}
	found := -1
	for off := 0; off+4 <= scan; off += 4 {
		if le32(b[off:]) == discoveryMagic {
			if found >= 0 {
				return Layout{}, errors.New("quickjs: JSRuntime layout discovery is ambiguous")
			}
			found = off
		}
	}
	if found < 0 {
		return Layout{}, errors.New("quickjs: JSRuntime layout discovery failed: stack_size not found")
	}
	l := Layout{StackSize: uint32(found), StackLimit: uint32(found) + 8}
	l.CurrentException = (l.StackLimit + 4 + 7) &^ 7
	frame := (l.CurrentException + 8 + 3 + 3) &^ 3
	l.InterruptHandler = frame + 4
	if int(l.InterruptHandler)+8 > scan {
		return Layout{}, errors.New("quickjs: JSRuntime layout discovery failed: out of range")
	}
	top := le32(b[found+4:])
	switch {
	case le32(b[l.StackLimit:]) != 0:
		return Layout{}, errors.New("quickjs: JSRuntime layout check failed: stack_limit is not 0")
	case top == 0 || top > 1<<20:
		return Layout{}, errors.New("quickjs: JSRuntime layout check failed: implausible stack_top")
	case le32(b[l.CurrentException+4:]) != uint32(tagUninitialized):
		return Layout{}, errors.New("quickjs: JSRuntime layout check failed: current_exception is not uninitialized")
	case le32(b[frame:]) != 0 || le32(b[l.InterruptHandler:]) == 0:
		return Layout{}, errors.New("quickjs: JSRuntime layout check failed: a frame is set, or no interrupt handler")
	}
	return l, nil
}

// String probes for discoverString: an 8-bit and a wide string.
const (
	stringProbe     = "coderun: JSString layout probe"
	wideStringProbe = `coderun: \u20ac` // JavaScript source: 10 UTF-16 code units
	wideProbeLen    = 10
)

// discoverString finds where struct JSString keeps an 8-bit string's
// characters: after a word holding len (31 bits) and is_wide_char (the top
// bit), a word holding hash (28 bits), kind (2 bits, 0 for a string that
// holds its own characters) and atom_type (2 bits), and the links. It
// evaluates the two probes and checks both words, and that the reference
// count sits in the allocator's header just before the string (refCountAt);
// when they do not match, it returns 0 and strings are read the slow way.
func (in *Instance) discoverString() (uint32, error) {
	probe := func(src string) ([]byte, uint32, error) {
		v, err := in.Eval(src, "coderun:probe", EvalGlobal)
		if err != nil {
			return nil, 0, err
		}
		defer in.FreeValue(v)
		if v.Tag() != TagString {
			return nil, 0, nil
		}
		b, _ := in.mem.Read(uint32(v), 64)
		rc, _ := in.mem.ReadUint32Le(uint32(v) + refCountAt)
		return append([]byte(nil), b...), rc, nil
	}
	b, rc, err := probe(`"` + stringProbe + `"`)
	if err != nil || b == nil {
		return 0, err
	}
	w, _, err := probe(`"` + wideStringProbe + `"`)
	if err != nil || w == nil {
		return 0, err
	}
	if le32(b) != uint32(len(stringProbe)) || le32(w) != 1<<31|wideProbeLen ||
		le32(b[4:])>>28&3 != 0 || rc != 1 {
		return 0, nil
	}
	for off := 8; off+len(stringProbe) <= len(b); off += 4 {
		if string(b[off:off+len(stringProbe)]) == stringProbe {
			return uint32(off), nil
		}
	}
	return 0, nil
}

// errorStackProbe is a stack trace limit no JSContext field holds by chance;
// defaultStackTraceLimit is QuickJS's own.
const (
	errorStackProbe        = 0x5eedc0d
	defaultStackTraceLimit = 10
)

// discoverErrorStack finds JSContext.error_stack_trace_limit by setting
// Error.stackTraceLimit to a probe and looking for the only field holding
// it, then checks it against QuickJS-NG's struct JSContext: the
// field before it, error_prepare_stack, is undefined in a new context, and
// the limit reads back as QuickJS's default once that is set again. It
// returns the offset of error_prepare_stack, or 0 when the checks fail.
func (in *Instance) discoverErrorStack() (uint32, error) {
	setLimit := func(n int) error {
		v, err := in.Eval(fmt.Sprintf("Error.stackTraceLimit = %d", n), "coderun:probe", EvalGlobal)
		if err == nil && v.IsException() {
			err = errors.New("quickjs: setting Error.stackTraceLimit threw")
		}
		return err
	}
	if err := setLimit(errorStackProbe); err != nil {
		return 0, err
	}
	off, findErr := in.FindContextU64(uint64(Int(errorStackProbe)))
	if err := setLimit(defaultStackTraceLimit); err != nil {
		return 0, err
	}
	if findErr != nil || off < 8 {
		return 0, nil
	}
	prepare, ok1 := in.mem.ReadUint64Le(in.jsctx + off - 8)
	limit, ok2 := in.mem.ReadUint64Le(in.jsctx + off)
	if !ok1 || !ok2 || Value(prepare) != Undefined || Value(limit) != Int(defaultStackTraceLimit) {
		return 0, nil
	}
	return off - 8, nil
}

// Layout returns the discovered JSRuntime layout.
func (in *Instance) Layout() Layout { return in.layout }

func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// State is what the host must know about an initialized instance to drive
// it: the QuickJS runtime and context pointers and the JSRuntime layout. An
// instance of a snapshot taken from an initialized instance has the same
// State.
type State struct {
	QJS, Runtime, Context uint32
	Layout                Layout
}

// State returns the instance's state, for Restore on snapshot instances.
func (in *Instance) State() State {
	return State{QJS: in.qjs, Runtime: in.rt, Context: in.jsctx, Layout: in.layout}
}

// Restore adopts the state of the instance a snapshot was taken from,
// instead of Init.
func (in *Instance) Restore(st State) {
	in.qjs, in.rt, in.jsctx, in.layout = st.QJS, st.Runtime, st.Context, st.Layout
}

// contextScan is how much of struct JSContext FindContextU64 searches.
const contextScan = 1024

// FindContextU64 returns the offset of the only 8-byte-aligned field of the
// JSContext holding v, or an error when there is none or more than one.
func (in *Instance) FindContextU64(v uint64) (uint32, error) {
	b, ok := in.mem.Read(in.jsctx, contextScan)
	if !ok {
		return 0, errors.New("quickjs: JSContext out of bounds")
	}
	found := -1
	for off := 0; off+8 <= contextScan; off += 8 {
		if leUint64(b[off:]) == v {
			if found >= 0 {
				return 0, errors.New("quickjs: JSContext field discovery is ambiguous")
			}
			found = off
		}
	}
	if found < 0 {
		return 0, errors.New("quickjs: JSContext field not found")
	}
	return uint32(found), nil
}

// StoreContextU32 stores v at off in the JSContext, atomically, from any
// goroutine, also while the guest runs (linearmem.Memory.StoreUint32): it
// is how another goroutine can nudge a running guest. It reports false, and
// stores nothing, when the instance's memory is not a reserved mapping, or
// once the instance is closed.
func (in *Instance) StoreContextU32(off uint32, v uint32) bool {
	if in.linear == nil {
		return false
	}
	return in.linear.StoreUint32(uint64(in.jsctx)+uint64(off), v)
}

// LoadContextU32 loads the 32 bits at off in the JSContext as
// StoreContextU32 stores them, from any goroutine.
func (in *Instance) LoadContextU32(off uint32) (uint32, bool) {
	if in.linear == nil {
		return 0, false
	}
	return in.linear.LoadUint32(uint64(in.jsctx) + uint64(off))
}

// SetContextU64 writes v into the JSContext at off.
func (in *Instance) SetContextU64(off uint32, v uint64) bool {
	return in.mem.WriteUint64Le(in.jsctx+off, v)
}

// GlobalValue returns the value of an exported global.
func (in *Instance) GlobalValue(name string) (uint64, bool) {
	g := in.mod.ExportedGlobal(name)
	if g == nil {
		return 0, false
	}
	return g.Get(), true
}

// SetGlobalValue sets an exported mutable global; it reports false when
// there is no such global.
func (in *Instance) SetGlobalValue(name string, v uint64) bool {
	g, ok := in.mod.ExportedGlobal(name).(api.MutableGlobal)
	if !ok {
		return false
	}
	g.Set(v)
	return true
}
