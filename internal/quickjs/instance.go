package quickjs

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/coderun/coderun/internal/linearmem"
	"github.com/coderun/coderun/wasm"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Eval flags (quickjs.h).
const (
	EvalGlobal = 0
	evalStrict = 1 << 3
)

// argvSize is the size of the argument vector Call keeps (8 values).
const argvSize = 64

// Instance is one instantiated QuickJS module with its runtime and context.
// It is not safe for concurrent use, and is used for one run only.
type Instance struct {
	ctx  context.Context
	ref  *hostRef
	mod  api.Module
	mem  api.Memory
	host Host

	// calls holds the module's wasm.DispatchExport, one api.Function per
	// nesting level (a host function that calls back into the instance
	// nests): a wazero call engine runs every call on the same native stack
	// from its top, so it must not be re-entered. Every call goes through
	// the dispatcher, so a run needs one call engine (and one stack to
	// grow), two when the host calls back, instead of one per export.
	calls []api.Function
	depth int
	// warmOp is the warm-up the instance had (see Warm), made again when
	// ReleaseStack dropped its call engines.
	warmOp wasm.DispatchOp
	// op is the operation of the outermost call in progress (see
	// Interrupt).
	op wasm.DispatchOp

	stackPointer api.MutableGlobal
	stackMark    api.MutableGlobal // wasm.StackMarkExport, nil without it
	fuel         api.MutableGlobal
	stop         api.MutableGlobal // wasm.StopGlobalExport, nil without it
	// linear is the instance's linear memory as the allocator made it.
	linear *linearmem.Memory

	qjs, rt, jsctx uint32
	// stackBase is the start of the block Init moved the C stack to (0
	// when it did not, or the instance was restored from a snapshot).
	stackBase uint32

	// Guest buffers reused across calls: Call's argument vector (argvSize
	// bytes, in use while argvBusy) and ParseJSON's text (textCap bytes).
	argv, text, textCap uint32
	argvBusy            bool
	layout              Layout
	stack               [8]uint64
}

// Instantiate makes a fresh instance whose imports are served by host. ctx is
// used for instantiation only; calls into the instance use the context given
// to Instance.Bind.
func (e *Engine) Instantiate(ctx context.Context, host Host) (*Instance, error) {
	return e.InstantiateCapped(ctx, host, 0)
}

// InstantiateCapped is Instantiate with the instance's linear memory capped
// at maxBytes (rounded down to whole 64 KiB pages), below the engine's own
// cap (Options.MemoryLimitPages); 0 leaves the engine's. A memory.grow past
// the cap fails, as one past the engine's does, so that one Engine can
// serve users with different memory budgets.
func (e *Engine) InstantiateCapped(ctx context.Context, host Host, maxBytes uint64) (*Instance, error) {
	in := &Instance{host: host}
	in.ref = &hostRef{host: host, in: in}
	in.ctx = context.WithValue(context.Background(), hostKey{}, in.ref)
	// Linear memory is a reserved region committed on growth: growing never
	// copies the heap, and pages the guest never touches stay unresident.
	ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(func(cap, max uint64) experimental.LinearMemory {
		if capped := maxBytes &^ (wasmPageSize - 1); capped > 0 && capped < max {
			max = capped
		}
		lm := e.alloc.Allocate(cap, max)
		in.linear, _ = lm.(*linearmem.Memory)
		return lm
	}))
	mod, err := e.rt.InstantiateModule(ctx, e.compiled, e.config)
	if err != nil {
		return nil, fmt.Errorf("quickjs: instantiating: %w", err)
	}
	in.mod, in.mem = mod, mod.Memory()
	f := mod.ExportedFunction(wasm.DispatchExport)
	if f == nil {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("quickjs: module lacks export %q", wasm.DispatchExport)
	}
	in.calls = append(make([]api.Function, 0, 2), f)
	if g, ok := mod.ExportedGlobal("__stack_pointer").(api.MutableGlobal); ok {
		in.stackPointer = g
	}
	if g, ok := mod.ExportedGlobal("coderun_fuel").(api.MutableGlobal); ok {
		in.fuel = g
	}
	if g, ok := mod.ExportedGlobal(wasm.StackMarkExport).(api.MutableGlobal); ok {
		in.stackMark = g
	}
	if g, ok := mod.ExportedGlobal(wasm.StopGlobalExport).(api.MutableGlobal); ok {
		in.stop = g
	}
	return in, nil
}

// SetHost hands the instance to another Host (an instance made ahead of
// time gets the Host of the run that takes it). It must not be called while
// a call into the instance is in progress.
func (in *Instance) SetHost(h Host) {
	in.host = h
	in.ref.host = h
}

// StackPointer returns the guest's C stack pointer (0 when the module does
// not export it). Between calls into the instance it is the stack's top.
func (in *Instance) StackPointer() uint32 {
	if in.stackPointer == nil {
		return 0
	}
	return uint32(in.stackPointer.Get())
}

// SetStackMark sets the mark below which the stack pointer calls the
// Host's StackLow (see StackWatcher); 0 disarms it. It reports false when
// the module has no mark (it was not rewritten by wasm.stackWatch).
func (in *Instance) SetStackMark(mark uint32) bool {
	if in.stackMark == nil {
		return false
	}
	in.stackMark.Set(uint64(mark))
	return true
}

// SetGrowHook makes every later growth of the linear memory ask f first
// (see linearmem.Memory.SetGrowHook): when f returns false, the
// memory.grow fails, which in a module rewritten by wasm.growTrap traps
// (IsMemoryTrap). f runs on the goroutine calling into the instance and
// must not call into it. It reports false when the memory was not made by
// coderun's allocator.
func (in *Instance) SetGrowHook(f func(from, to uint64) bool) bool {
	if in.linear == nil {
		return false
	}
	in.linear.SetGrowHook(f)
	return true
}

// Close ends the instance.
func (in *Instance) Close(ctx context.Context) error { return in.mod.Close(ctx) }

// CloseScrubLater ends the instance as Close does, but leaves its memory's
// scrub to the next instance given that memory (linearmem.Memory.ScrubLater),
// so that it returns at once: for a caller waiting to get control back. A
// memory that does not come from a pool is freed as usual.
func (in *Instance) CloseScrubLater(ctx context.Context) error {
	if in.linear != nil {
		in.linear.ScrubLater()
	}
	return in.mod.Close(ctx)
}

// Memory is the instance's linear memory.
func (in *Instance) Memory() api.Memory { return in.mem }

// Fuel returns the module's fuel global, or nil when the module is not metered.
func (in *Instance) Fuel() api.MutableGlobal { return in.fuel }

// Interrupt asks the guest to unwind itself instead of being ended by a
// panic; a Host calls it from the FuelYield that the interrupt handler's
// fuel charge made. It sets the module's stop global (see wasm.Fuel), so
// that the handler returns non-zero and QuickJS throws its uncatchable
// "interrupted" error; the call into the instance then returns normally,
// with that exception pending. It also sets the context's
// error_prepare_stack to undefined and its error_stack_trace_limit to 0
// (what they referenced is leaked, in an instance never used again), so
// that neither that error nor any made after it gets a stack: making one
// would cost more than the rest of the unwinding, and could run code of the
// program (its prepareStackTrace, a stackTraceLimit's valueOf). The stop
// stays set, every later poll throws again, and the instance is fit only
// to be closed.
//
// It reports false, and changes nothing, when the guest cannot be
// interrupted this way: the module has no stop global, the context's
// layout is unknown, the call in progress is not one that runs JavaScript
// and hands an exception back (Call, Eval, EvalBytecode, RunJobs), or a
// host function called back into the instance, whose caller would go on as
// if nothing had happened. The Host must then panic as before.
func (in *Instance) Interrupt() bool {
	if in.stop == nil || in.layout.ErrorStack == 0 || in.depth != 1 {
		return false
	}
	switch in.op {
	case wasm.DispatchCall, wasm.DispatchEval, wasm.DispatchRunJobs:
	default:
		return false
	}
	in.mem.WriteUint64Le(in.jsctx+in.layout.ErrorStack, uint64(Undefined))
	in.mem.WriteUint64Le(in.jsctx+in.layout.ErrorStack+8, uint64(Int(0)))
	in.stop.Set(1)
	return true
}

// WithStackTraceLimit calls f with the context's Error.stackTraceLimit set to
// n, and puts back what the program had set when f returns or panics: an
// Error that f has the guest make gets up to n frames whatever the limit
// was, and no code of the program runs for it (a limit that is an object
// has its valueOf called when an Error is made). The program's value is
// kept as it is, in no other place, for the time f runs. It reports false,
// and does not call f, when the context's layout is unknown.
func (in *Instance) WithStackTraceLimit(n int32, f func()) bool {
	if in.layout.ErrorStack == 0 {
		return false
	}
	at := in.jsctx + in.layout.ErrorStack + 8
	was, ok := in.mem.ReadUint64Le(at)
	if !ok || !in.mem.WriteUint64Le(at, uint64(Int(n))) {
		return false
	}
	defer in.mem.WriteUint64Le(at, was)
	f()
	return true
}

// Context returns the JSContext pointer.
func (in *Instance) Context() uint32 { return in.jsctx }

// invoke calls the export op selects with args (at most five), through the
// dispatcher, and returns its result (0 when it has none).
func (in *Instance) invoke(op wasm.DispatchOp, args ...uint64) (uint64, error) {
	if len(in.calls) == 0 && in.warmOp != 0 && op != in.warmOp {
		// ReleaseStack dropped the warm stack: warm a new one first.
		if _, err := in.invoke(in.warmOp, 0); err != nil {
			return 0, err
		}
	}
	if in.depth == len(in.calls) {
		in.calls = append(in.calls, in.mod.ExportedFunction(wasm.DispatchExport))
	}
	f := in.calls[in.depth]
	// The stack is shared by every level: a call reads its arguments when
	// it starts and writes its result when it returns, so a nested call in
	// between does not disturb it.
	s := in.stack[:]
	s[0] = uint64(op)
	copy(s[1:], args)
	if in.depth == 0 {
		in.op = op
	}
	in.depth++
	err := f.CallWithStack(in.ctx, s)
	in.depth--
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

// Warm grows the native stack that wazero runs the instance's calls on, by
// a call that reads and writes no guest state of a function whose frame
// does not fit in wazero's initial 10 KiB: to 40 KiB (wasm.DispatchWarm),
// or with deep to 80 KiB (wasm.DispatchWarmDeep) (TestWarmStackSize).
// Every instance must be warmed before its first other call: it fixes how
// that stack grows, and so the depth at which it overflows.
//
// wazero grows a stack to twice its size plus the frame that did not fit,
// and traps once it is beyond 50 MB: the ceiling is the first size past
// that, anywhere between 50 and 100 MB depending on which frames happened
// to trigger the first growths. A deep recursion of JS_CallInternal frames
// (6–7 KB each) that begins on the 40 KiB stack ends at 84–96 MB (about
// 13,700 frames of a simple function), where QuickJS's own limit, which the
// guest stack sets, fires at about 7,000. Without a warm-up the ceiling
// fell below 7,000 frames in runs whose first growths came from the
// parser, and deep recursion trapped instead of throwing RangeError.
// runtime's TestDeepRecursionRaisesRangeError checks that QuickJS's limit
// fires first from both sizes.
//
// 40 KiB holds a run that nests few JavaScript calls; the prelude's start
// of a run with bindings alone needs more, and growing the stack during
// the run copies it and re-links every frame on it. The deep warm-up costs
// twice the allocation instead, which a run that stays shallow does not
// need.
func (in *Instance) Warm(deep bool) error {
	op := wasm.DispatchWarm
	if deep {
		op = wasm.DispatchWarmDeep
	}
	in.warmOp = op
	_, err := in.invoke(op, 0)
	return err
}

// ReleaseStack drops the instance's call engines, and with them the native
// stacks wazero grew for them (80 KiB after a deep Warm, up to wazero's
// ceiling after a deep recursion), so that the garbage collector can take
// them back while the instance has nothing to run. The next call makes a new
// call engine and warms it first as Warm did, so its stack grows the same
// way and overflows at the same depth as before. It does nothing while a
// call is in progress, or on an instance that was never warmed.
func (in *Instance) ReleaseStack() {
	if in.depth != 0 || in.warmOp == 0 {
		return
	}
	clear(in.calls)
	in.calls = in.calls[:0]
}

// malloc allocates n bytes of guest memory.
func (in *Instance) malloc(n uint32) (uint32, error) {
	p, err := in.invoke(wasm.DispatchMalloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if uint32(p) == 0 {
		return 0, errors.New("quickjs: guest out of memory")
	}
	return uint32(p), nil
}

// Free releases guest memory from Malloc.
func (in *Instance) Free(p uint32) error {
	_, err := in.invoke(wasm.DispatchFree, uint64(p))
	return err
}

// CString copies s into guest memory with a NUL terminator. The caller
// frees it.
func (in *Instance) CString(s string) (uint32, error) {
	p, err := in.malloc(uint32(len(s)) + 1)
	if err != nil {
		return 0, err
	}
	buf, ok := in.mem.Read(p, uint32(len(s))+1)
	if !ok {
		return 0, errors.New("quickjs: allocation outside memory")
	}
	copy(buf, s)
	buf[len(s)] = 0
	return p, nil
}

// FreeValue drops a reference.
func (in *Instance) FreeValue(v Value) error {
	if !v.hasRefCount() {
		return nil
	}
	// What JS_FreeValue does when other references remain (a delivered
	// result is held by the promise it resolved): decrement the count that
	// the allocator's header keeps just before every reference-counted
	// cell. Only the last reference needs the call, which frees the cell.
	if in.layout.StringChars != 0 {
		at := uint32(v) + refCountAt
		if rc, ok := in.mem.ReadUint32Le(at); ok && int32(rc) > 1 {
			in.mem.WriteUint32Le(at, rc-1)
			return nil
		}
	}
	_, err := in.invoke(wasm.DispatchFreeValue, uint64(in.jsctx), uint64(v))
	return err
}

// Eval evaluates src as a global script and returns its completion value.
// A JavaScript exception is returned as the Exception marker; take it with
// TakeException. err is set only when the instance failed (a trap, or a host
// panic).
func (in *Instance) Eval(src, filename string, flags int) (Value, error) {
	if src == "" {
		src = ";" // an empty source would make QJS_Eval load a file
	}
	code, err := in.CString(src)
	if err != nil {
		return 0, err
	}
	defer in.Free(code)
	v, err := in.evalOption(wasm.DispatchEval, code, 0, 0, filename, flags)
	return Value(v), err
}

// Compile compiles src as a global script, without running it, and
// returns its bytecode as JS_WriteObject writes it, for EvalBytecode in
// any instance of the same module. ok is false when compilation threw:
// the exception is pending (take it with TakeException).
func (in *Instance) Compile(src, filename string, flags int) (bytecode []byte, ok bool, err error) {
	if src == "" {
		src = ";"
	}
	code, err := in.CString(src)
	if err != nil {
		return nil, false, err
	}
	defer in.Free(code)
	packedPtr, err := in.evalOption(wasm.DispatchCompile, code, 0, 0, filename, flags)
	if err != nil || uint32(packedPtr) == 0 {
		return nil, false, err
	}
	packed, okRead := in.mem.ReadUint64Le(uint32(packedPtr))
	if err := in.Free(uint32(packedPtr)); err != nil {
		return nil, false, err
	}
	p, n := uint32(packed>>32), uint32(packed)
	b, okRead2 := in.mem.Read(p, n)
	if !okRead || !okRead2 {
		return nil, false, errors.New("quickjs: bytecode out of bounds")
	}
	bytecode = bytes.Clone(b)
	if err := in.Free(p); err != nil {
		return nil, false, err
	}
	return bytecode, true, nil
}

// EvalBytecode reads bytecode from Compile and evaluates it as Eval would
// its source.
func (in *Instance) EvalBytecode(bytecode []byte, flags int) (Value, error) {
	if len(bytecode) == 0 {
		return 0, errors.New("quickjs: empty bytecode")
	}
	p, err := in.malloc(uint32(len(bytecode)))
	if err != nil {
		return 0, err
	}
	defer in.Free(p)
	buf, _ := in.mem.Read(p, uint32(len(bytecode)))
	copy(buf, bytecode)
	v, err := in.evalOption(wasm.DispatchEval, 0, p, uint32(len(bytecode)), "", flags)
	return Value(v), err
}

// evalOption calls op (QJS_Eval or QJS_Compile2) with the options
// QJS_CreateEvalOption makes of its arguments.
func (in *Instance) evalOption(op wasm.DispatchOp, code, bytecode, bytecodeLen uint32, filename string, flags int) (uint64, error) {
	var name uint32
	if filename != "" {
		p, err := in.CString(filename)
		if err != nil {
			return 0, err
		}
		defer in.Free(p)
		name = p
	}
	opt, err := in.invoke(wasm.DispatchEvalOptions, uint64(code), uint64(bytecode), uint64(bytecodeLen), uint64(name), uint64(flags))
	if err != nil {
		return 0, err
	}
	if uint32(opt) == 0 {
		return 0, errors.New("quickjs: guest out of memory")
	}
	defer in.Free(uint32(opt))
	return in.invoke(op, uint64(in.jsctx), opt)
}

// RunJobs runs every pending job (js_std_loop, which polls nothing more:
// the hardened module has no qjs:os, see wasm.dropStdModules), and reports
// whether a job left an exception pending.
func (in *Instance) RunJobs() (bool, error) {
	if _, err := in.invoke(wasm.DispatchRunJobs, uint64(in.jsctx)); err != nil {
		return false, err
	}
	// JS_HasException, read in place: rt->current_exception is set.
	tag, ok := in.mem.ReadUint32Le(in.rt + in.layout.CurrentException + 4)
	if !ok {
		return false, errors.New("quickjs: JSRuntime out of bounds")
	}
	return int32(tag) != tagUninitialized, nil
}

// Call calls fn with this and args. Pending jobs are not run.
func (in *Instance) Call(fn, this Value, args ...Value) (Value, error) {
	var argv uint32
	if len(args) > 0 {
		// QuickJS may read the arguments from argv for as long as the call
		// runs, so a nested Call gets an allocation of its own.
		size := uint32(len(args)) * 8
		if !in.argvBusy && size <= argvSize {
			if in.argv == 0 {
				p, err := in.malloc(argvSize)
				if err != nil {
					return 0, err
				}
				in.argv = p
			}
			argv = in.argv
			in.argvBusy = true
			defer func() { in.argvBusy = false }()
		} else {
			p, err := in.malloc(size)
			if err != nil {
				return 0, err
			}
			defer in.Free(p)
			argv = p
		}
		buf, _ := in.mem.Read(argv, size)
		for i, a := range args {
			putLeUint64(buf[i*8:], uint64(a))
		}
	}
	v, err := in.invoke(wasm.DispatchCall, uint64(in.jsctx), uint64(fn), uint64(this), uint64(len(args)), uint64(argv))
	return Value(v), err
}

// TakeException returns the pending exception and clears it.
func (in *Instance) TakeException() (Value, error) {
	v, err := in.invoke(wasm.DispatchGetException, uint64(in.jsctx))
	return Value(v), err
}

// ParseJSON parses text (which must not contain NUL bytes) into a new value.
func (in *Instance) ParseJSON(text []byte) (Value, error) {
	n := uint32(len(text)) + 1
	if n > in.textCap {
		// The buffer is kept for the next call: parsing runs no JavaScript,
		// so calls never nest.
		if in.text != 0 {
			if err := in.Free(in.text); err != nil {
				return 0, err
			}
			in.text, in.textCap = 0, 0
		}
		size := max(n, 256)
		p, err := in.malloc(size)
		if err != nil {
			return 0, err
		}
		in.text, in.textCap = p, size
	}
	buf, _ := in.mem.Read(in.text, n)
	copy(buf, text)
	buf[len(text)] = 0
	v, err := in.invoke(wasm.DispatchParseJSON, uint64(in.jsctx), uint64(in.text))
	return Value(v), err
}

// ViewString converts v to a string in guest memory and passes its WTF-8
// bytes to f without copying them into Go; f must not retain them.
func (in *Instance) ViewString(v Value, f func([]byte)) error {
	if b, ok := in.asciiChars(v); ok {
		f(b)
		return nil
	}
	return in.ViewConverted(v, f)
}

// ViewConverted is ViewString without its shortcut for ASCII strings: the
// guest always converts v, spending fuel rather than the host's time, which
// suits a long string known not to be ASCII (see Latin1Chars).
func (in *Instance) ViewConverted(v Value, f func([]byte)) error {
	packedPtr, err := in.invoke(wasm.DispatchToCString, uint64(in.jsctx), uint64(v))
	if err != nil {
		return err
	}
	if uint32(packedPtr) == 0 {
		return errors.New("quickjs: string conversion failed")
	}
	packed, ok := in.mem.ReadUint64Le(uint32(packedPtr))
	if err := in.Free(uint32(packedPtr)); err != nil {
		return err
	}
	if !ok {
		return errors.New("quickjs: string conversion out of bounds")
	}
	ptr, n := uint32(packed>>32), uint32(packed)
	b, ok := in.mem.Read(ptr, n)
	if !ok {
		return errors.New("quickjs: string out of bounds")
	}
	f(b)
	_, err = in.invoke(wasm.DispatchFreeCString, uint64(in.jsctx), uint64(ptr))
	return err
}

// asciiChars returns the characters of v, read in place, when v is a string
// stored with 8-bit characters that are all ASCII (so they are already its
// WTF-8 bytes). Binding arguments and results are, as a rule: this saves
// three calls into the instance and an allocation in it.
func (in *Instance) asciiChars(v Value) ([]byte, bool) {
	b, ok := in.Latin1Chars(v)
	if !ok {
		return nil, false
	}
	for _, c := range b {
		if c >= 0x80 {
			return nil, false // Latin-1: needs converting
		}
	}
	return b, true
}

// Latin1Chars returns the characters of v, read in place, when v is a
// string stored with 8-bit characters, which are its WTF-8 bytes if all are
// ASCII. Unlike ViewString it reads none of them: a caller with a long
// string checks them itself, in pieces.
func (in *Instance) Latin1Chars(v Value) ([]byte, bool) {
	if in.layout.StringChars == 0 || v.Tag() != TagString {
		return nil, false
	}
	p := uint32(v)
	hdr, ok1 := in.mem.ReadUint32Le(p)
	kind, ok2 := in.mem.ReadUint32Le(p + 4)
	if !ok1 || !ok2 || hdr>>31 != 0 || kind>>28&3 != 0 {
		return nil, false // a wide string, or a slice of another
	}
	return in.mem.Read(p+in.layout.StringChars, hdr&(1<<31-1))
}

// String converts v to a Go string (WTF-8 bytes).
func (in *Instance) String(v Value) (string, error) {
	var s string
	err := in.ViewString(v, func(b []byte) { s = string(b) })
	return s, err
}

// NewFunctionProxy returns a JavaScript function whose calls reach
// Host.Call; see the package documentation of wasm for its argument layout.
func (in *Instance) NewFunctionProxy(id int64) (Value, error) {
	v, err := in.invoke(wasm.DispatchNewFunction, uint64(in.jsctx))
	return Value(v), err
}

func putLeUint64(b []byte, v uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	b[4], b[5], b[6], b[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}
