package quickjs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/coderun/coderun/internal/linearmem"
)

// Host receives what an instance asks of the outside world. Its methods run
// on the goroutine that called into the instance. A method may end the
// instance at once by panicking with an error value: the panic unwinds the
// guest and the call into the instance returns that error.
type Host interface {
	// Call handles a call of the guest's raw host function. args are the
	// JavaScript arguments; the result must be a Value the guest owns (an
	// int, a boolean, undefined, or a value created in this instance).
	Call(in *Instance, args []Value) Value
	// Write receives one write of the guest to fd 1 or 2. p aliases guest
	// memory and must not be retained.
	Write(fd uint32, p []byte)
	// Sleep waits for d (guest sleeps and timers of the C library).
	Sleep(d time.Duration)
	// Exit is told that the guest called proc_exit; the instance is then
	// ended with an *ExitError.
	Exit(code uint32)
	// FuelYield is called by the fuel-metered module when its fuel global
	// went negative; it returns the new value of the global.
	FuelYield(in *Instance, left int64) int64
}

// StackWatcher is implemented by a Host that watches how deep the guest's
// C stack goes (for modules rewritten by wasm.stackWatch): StackLow is
// called when the stack pointer went below the mark that
// Instance.SetStackMark set, with the new stack pointer, and returns the
// next mark (0: never again). A Host without it is never called again.
type StackWatcher interface {
	StackLow(in *Instance, sp uint32) uint32
}

// clock is implemented by a Host that serves the guest's clocks itself
// (coderun's snapshot instance runs on a fixed clock so that its image is
// the same in every process). ClockNanos returns the time of WASI clock id,
// or false to use the real clock.
type clock interface {
	ClockNanos(id uint32) (int64, bool)
}

// ExitError is the error of a call during which the guest called proc_exit.
type ExitError struct{ Code uint32 }

func (e *ExitError) Error() string { return fmt.Sprintf("guest exited with code %d", e.Code) }

type hostKey struct{}

type hostRef struct {
	host Host
	in   *Instance
}

func hostFrom(ctx context.Context) Host {
	if r, ok := ctx.Value(hostKey{}).(*hostRef); ok {
		return r.host
	}
	return nil
}

func refFrom(ctx context.Context) *hostRef {
	r, _ := ctx.Value(hostKey{}).(*hostRef)
	return r
}

// Options configure an Engine.
type Options struct {
	// Wasm is the module to compile: the pristine QuickJS build or a
	// rewritten one.
	Wasm []byte
	// MemoryLimitPages caps every instance's linear memory (64 KiB pages);
	// Engine.InstantiateCapped caps one instance's lower.
	MemoryLimitPages uint32
	// Cache, if set, is used for compilation.
	Cache wazero.CompilationCache
	// Interpreter selects wazero's interpreter instead of its compiler:
	// much faster to compile, much slower to run. coderun uses it for the
	// one instance whose initialized state becomes the snapshot.
	Interpreter bool
	// ScrubOnAllocate scrubs a freed linear memory when an instantiation
	// reuses it rather than when its instance is closed (see
	// linearmem.PoolOptions): for a user that instantiates ahead of time,
	// off its critical path, and closes on it.
	ScrubOnAllocate bool
	// ShareImage makes every instance share the memory the module's
	// active data segments write, instead of copying it into each: the
	// engine takes those bytes out of the segments and maps them
	// copy-on-write from one memory file (linearmem.Image), so that an
	// instance's memory holds its own copy of a page only once it writes
	// it. Where that is not supported (an OS other than Linux, or a module
	// that is not what splitImage reads), every instance copies them as
	// usual.
	ShareImage bool
}

// Engine is one wazero runtime with the module compiled once. It is safe for
// concurrent use: every Instantiate makes an independent instance.
type Engine struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	alloc    experimental.MemoryAllocator
	// image is the shared start of every instance's memory
	// (Options.ShareImage), nil if none.
	image *linearmem.Image
	// config instantiates every instance: no name, no start functions,
	// and a random source given, since wazero otherwise seeds a math/rand
	// source (about 5 KB) per instance for a random_get that the module
	// does not import.
	config wazero.ModuleConfig
	// growFrame is how wazero names the checked-grow function in a trap's
	// stack trace, or "" when the module has none.
	growFrame string
}

// wasmPageSize is the size of a WebAssembly memory page.
const wasmPageSize = 64 << 10

// PopulateAfter is how much an instance's memory grows before the engine
// makes its growth resident at once (linearmem.PoolOptions.PopulateAfter):
// room for the heap of a typical program, which then holds resident only
// the pages it writes. Beyond it, a program that grows a lot gets its
// pages populated in bulk.
const PopulateAfter = 512 << 10

// NewEngine compiles opts.Wasm and defines the host modules it imports.
func NewEngine(ctx context.Context, opts Options) (*Engine, error) {
	cfg := wazero.NewRuntimeConfigCompiler()
	if opts.Interpreter {
		cfg = wazero.NewRuntimeConfigInterpreter()
	}
	// No DWARF: the module carries .debug_* sections, and with them every
	// trap or host panic (each ended run) would resolve source lines for
	// its whole wasm stack trace, about 0.7 ms on the abort path.
	cfg = cfg.WithCloseOnContextDone(false).WithDebugInfoEnabled(false)
	if opts.MemoryLimitPages > 0 {
		cfg = cfg.WithMemoryLimitPages(opts.MemoryLimitPages)
	}
	if opts.Cache != nil {
		cfg = cfg.WithCompilationCache(opts.Cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	module, image := opts.Wasm, (*linearmem.Image)(nil)
	if opts.ShareImage {
		module, image = sharedImage(opts.Wasm)
	}
	e := &Engine{
		rt: rt,
		// The pool serves this module only, whose data segments wazero
		// writes into every memory it hands out: scrubbing need not clear
		// the pages they cover.
		alloc: linearmem.NewPool(linearmem.PoolOptions{PopulateGrowth: true, PopulateAfter: PopulateAfter, ScrubOnAllocate: opts.ScrubOnAllocate,
			Overwritten: dataSpans(module), Image: image}),
		image:  image,
		config: wazero.NewModuleConfig().WithName("").WithStartFunctions().WithRandSource(rand.Reader),
	}
	if err := e.init(ctx, module); err != nil {
		_ = e.Close(ctx)
		return nil, err
	}
	return e, nil
}

// sharedImage returns the module to compile and the image its instances
// share (see Options.ShareImage): the bytes its active data segments write,
// up to the end of the page that holds the last of them, taken out of the
// module. It returns src and nil when there are none or sharing is not
// possible.
func sharedImage(src []byte) ([]byte, *linearmem.Image) {
	var end uint64
	for _, s := range dataSpans(src) {
		end = max(end, s.Off+s.Len)
	}
	page := uint64(os.Getpagesize())
	n := (end + page - 1) / page * page
	if n == 0 {
		return src, nil
	}
	rest, image, ok := splitImage(src, n)
	if !ok {
		return src, nil
	}
	im, err := linearmem.NewImage(image)
	if err != nil {
		return src, nil
	}
	return rest, im
}

// Shared reports how many bytes at the start of every instance's memory
// are shared (Options.ShareImage); 0 when none are.
func (e *Engine) Shared() uint64 {
	if e.image == nil {
		return 0
	}
	return e.image.Len()
}

func (e *Engine) init(ctx context.Context, wasm []byte) error {
	if err := instantiateWASI(ctx, e.rt); err != nil {
		return fmt.Errorf("quickjs: defining wasi imports: %w", err)
	}
	_, err := e.rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(jsFunctionProxy), []api.ValueType{i32, i64, i32, i32}, []api.ValueType{i64}).
		Export("jsFunctionProxy").Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("quickjs: defining env imports: %w", err)
	}
	_, err = e.rt.NewHostModuleBuilder("coderun").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(fuelYield), []api.ValueType{i64}, []api.ValueType{i64}).
		Export("fuel_yield").
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(stackLow), []api.ValueType{i32}, []api.ValueType{i32}).
		Export(stackLowImport).Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("quickjs: defining coderun imports: %w", err)
	}
	e.compiled, err = e.rt.CompileModule(ctx, wasm)
	if err != nil {
		return fmt.Errorf("quickjs: compiling module: %w", err)
	}
	if f, ok := e.compiled.ExportedFunctions()[growExport]; ok {
		e.growFrame = fmt.Sprintf("\n\t.$%d(", f.Index())
	}
	return nil
}

// growExport is wasm.growTrapExport (not imported to keep this package free
// of the rewriter).
const growExport = "coderun_grow_checked"

// IsMemoryTrap reports whether err is the trap of a memory.grow that failed
// at the memory cap: its innermost frame is the checked-grow function.
func (e *Engine) IsMemoryTrap(err error) bool {
	if e.growFrame == "" || err == nil {
		return false
	}
	s := err.Error()
	i := strings.Index(s, "\nwasm stack trace:")
	return i >= 0 && strings.HasPrefix(s[i+len("\nwasm stack trace:"):], e.growFrame)
}

// PoolStats returns the counters of the pool that serves the instances'
// memories (zero without one).
func (e *Engine) PoolStats() linearmem.PoolStats {
	if p, ok := e.alloc.(*linearmem.Pool); ok {
		return p.Stats()
	}
	return linearmem.PoolStats{}
}

// Close releases the runtime and every instance still open.
func (e *Engine) Close(ctx context.Context) error {
	err := e.rt.Close(ctx)
	if p, ok := e.alloc.(*linearmem.Pool); ok {
		p.Close() // after the instances have given their memories back
	}
	if e.image != nil {
		_ = e.image.Close() // after the pool: no memory maps it any more
	}
	return err
}

// jsFunctionProxy is env.jsFunctionProxy(ctx, this, argc, argv): the C proxy
// passes (fnID, ctxID, isAsync, promise, ...args) in argv.
func jsFunctionProxy(ctx context.Context, m api.Module, s []uint64) {
	r := refFrom(ctx)
	if r == nil {
		s[0] = uint64(Undefined)
		return
	}
	argc, argv := uint32(s[2]), uint32(s[3])
	if argc < 4 || argc > 64 {
		s[0] = uint64(Undefined)
		return
	}
	n := argc - 4
	raw, ok := m.Memory().Read(argv+4*8, n*8)
	if !ok {
		s[0] = uint64(Undefined)
		return
	}
	var buf [8]Value
	args := buf[:0]
	for i := uint32(0); i < n; i++ {
		args = append(args, Value(leUint64(raw[i*8:])))
	}
	s[0] = uint64(r.host.Call(r.in, args))
}

func fuelYield(ctx context.Context, _ api.Module, s []uint64) {
	r := refFrom(ctx)
	if r == nil {
		panic(errors.New("quickjs: fuel hook called outside a run"))
	}
	s[0] = uint64(r.host.FuelYield(r.in, int64(s[0])))
}

// stackLowImport is wasm.stackWatchImportName.
const stackLowImport = "stack_low"

func stackLow(ctx context.Context, _ api.Module, s []uint64) {
	r := refFrom(ctx)
	if r == nil {
		s[0] = 0
		return
	}
	w, ok := r.host.(StackWatcher)
	if !ok {
		s[0] = 0
		return
	}
	s[0] = uint64(w.StackLow(r.in, uint32(s[0])))
}

func leUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
