package runtime

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/coderun/coderun/runtime/quickjs"
	"github.com/coderun/coderun/wasm"
)

// snapshotSources are the files whose content decides what a snapshot
// holds; they are part of its cache key.
//
//go:embed snapshot.go prelude.js engine.go
var snapshotSources embed.FS

// snapshot is a pre-initialized module and what the host must know to drive
// its instances. Every run instantiates module: a brand-new instance whose
// QuickJS runtime, context, guest stack, interrupt handler and whole prelude
// (console, inspect, lossless JSON, event loop, binding machinery) are
// already set up, so nothing is left to do before the program runs.
type snapshot struct {
	module []byte
	state  snapshotState
	// trim says what trimImage took out of the image (zero when the
	// snapshot was read from the cache).
	trim imageTrim
}

// snapshotState is stored next to a cached snapshot module.
type snapshotState struct {
	Instance quickjs.State
	// API is the prelude's api function (a JSValue the image keeps alive).
	API quickjs.Value
	// RandomState is the offset in JSContext of Math.random's state, which
	// every run reseeds so that no two runs share a sequence.
	RandomState uint32
}

// The snapshot instance runs on a fixed clock, so that its image, and with
// it the snapshot module, is the same in every process (and wazero's
// compilation cache hits). QuickJS seeds Math.random from the realtime
// clock in microseconds; that value is how its state is found.
const (
	snapshotRealtime  = 1_700_000_000_123_456_789
	snapshotMonotonic = 1_000_000
)

// cycleGC turns QuickJS's cycle collector off. The pinned build's collector
// frees a suspended async function or generator that is reachable only
// through a closure over (or the arguments of) its own frame (upstream
// 7955cfd, fixed in 0.16.0), and a FinalizationRegistry in a cycle (78494db):
// the program then runs on freed memory. Without it, reference counting
// still frees all acyclic garbage at once; cyclic garbage stays until the
// run ends (every run has a fresh instance), within MemoryBytes like any
// other allocation. docs/engine-bugs.md records what that costs.
const cycleGC = quickjs.NoCycleGC

// snapshotFormat changes whenever what the snapshot's state records
// changes outside this package (quickjs.State, quickjs.Layout), so that a
// cached state without the new fields is never used.
const snapshotFormat = "layout 2: plain-value fields"

// snapshotKey identifies a snapshot built by this code from this module.
func snapshotKey(hardened []byte, prelude string) string {
	h := sha256.New()
	h.Write(hardened)
	h.Write([]byte(prelude))
	h.Write([]byte(snapshotFormat))
	h.Write([]byte(quickjs.ImageCodeDigest()))
	for _, name := range []string{"snapshot.go", "prelude.js", "engine.go"} {
		b, _ := snapshotSources.ReadFile(name)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// loadSnapshot returns the snapshot for hardened, from cacheDir when it is
// there, else built (and then cached when cacheDir is set).
func loadSnapshot(ctx context.Context, hardened []byte, prelude, cacheDir string) (*snapshot, error) {
	var wasmPath, statePath string
	if cacheDir != "" {
		key := snapshotKey(hardened, prelude)
		wasmPath = filepath.Join(cacheDir, "snapshot-"+key+".wasm")
		statePath = filepath.Join(cacheDir, "snapshot-"+key+".json")
		if s, err := readSnapshot(wasmPath, statePath); err == nil {
			return s, nil
		}
	}
	s, err := buildSnapshot(ctx, hardened, prelude)
	if err != nil {
		return nil, err
	}
	if cacheDir != "" {
		state, _ := json.Marshal(s.state)
		if err := writeAtomic(statePath, state); err != nil {
			return nil, fmt.Errorf("coderun: caching snapshot: %w", err)
		}
		if err := writeAtomic(wasmPath, s.module); err != nil {
			return nil, fmt.Errorf("coderun: caching snapshot: %w", err)
		}
	}
	return s, nil
}

func readSnapshot(wasmPath, statePath string) (*snapshot, error) {
	state, err := os.ReadFile(statePath)
	if err != nil {
		return nil, err
	}
	module, err := os.ReadFile(wasmPath)
	if err != nil {
		return nil, err
	}
	s := &snapshot{module: module}
	if err := json.Unmarshal(state, &s.state); err != nil || len(module) < 8 || string(module[:4]) != "\x00asm" {
		return nil, errors.New("coderun: corrupt cached snapshot")
	}
	return s, nil
}

// buildSnapshot initializes one instance of hardened (on wazero's
// interpreter: it runs once, so compiling it would cost more than it saves)
// and captures its memory and globals into a new module.
func buildSnapshot(ctx context.Context, hardened []byte, prelude string) (*snapshot, error) {
	qe, err := quickjs.NewEngine(ctx, quickjs.Options{Wasm: hardened, Interpreter: true})
	if err != nil {
		return nil, err
	}
	defer qe.Close(ctx)
	in, err := qe.Instantiate(ctx, templateHost{})
	if err != nil {
		return nil, err
	}
	defer in.Close(ctx)
	fail := func(err error) (*snapshot, error) { return nil, fmt.Errorf("coderun: building the snapshot: %w", err) }

	var st snapshotState
	if err := in.Init(quickjs.InitOptions{StackBytes: stackBytes, StackMargin: stackMargin, InterruptHandler: wasm.QuickJSInterruptTableIndex, GCThreshold: cycleGC}); err != nil {
		return fail(err)
	}
	if err := refuseImports(in); err != nil {
		return fail(err)
	}
	if st.RandomState, err = in.FindContextU64(snapshotRealtime / 1000); err != nil {
		return fail(fmt.Errorf("locating Math.random's state: %w", err))
	}
	factory, err := in.Eval(prelude, "coderun:prelude", quickjs.EvalGlobal)
	if err != nil || factory.IsException() {
		return fail(fmt.Errorf("evaluating the prelude: %v", err))
	}
	wrapper, err := in.NewFunctionProxy(0)
	if err != nil {
		return fail(err)
	}
	if st.API, err = in.Call(factory, quickjs.Undefined, wrapper); err != nil || st.API.IsException() {
		return fail(fmt.Errorf("running the prelude: %v", err))
	}
	st.Instance = in.State()
	trim, err := trimImage(in, prelude, factory, wrapper)
	if err != nil {
		return fail(fmt.Errorf("trimming the image: %w", err))
	}

	m, err := wasm.Decode(hardened)
	if err != nil {
		return fail(err)
	}
	globals := make([]uint64, len(m.Globals))
	names := map[uint32]string{}
	for _, x := range m.Exports {
		if x.Kind == wasm.ExternGlobal {
			names[x.Index] = x.Name
		}
	}
	for i, g := range m.Globals {
		if !g.Type.Mutable {
			continue
		}
		name, ok := names[uint32(i)]
		if !ok {
			return fail(fmt.Errorf("mutable global %d is not exported", i))
		}
		if name == wasm.FuelGlobalExport {
			continue // 0: the first fuel check yields and gets the run's first slice
		}
		globals[i], _ = in.GlobalValue(name)
	}
	image, ok := in.Memory().Read(0, in.Memory().Size())
	if !ok {
		return fail(errors.New("reading memory"))
	}
	if err := wasm.Snapshot(m, image, globals); err != nil {
		return fail(err)
	}
	module, err := m.Encode()
	if err != nil {
		return fail(err)
	}
	return &snapshot{module: module, state: st, trim: trim}, nil
}

// imageTrim says what trimImage did. A step whose checks failed
// (quickjs.ErrLayoutMismatch) left the instance as it was: its error is
// recorded, and the image is only bigger.
type imageTrim struct {
	Sources    quickjs.SourceStats
	SourcesErr error
	Zeroed     int // non-zero bytes ZeroUnused cleared
	ZeroErr    error
	// NonZeroBefore and NonZeroAfter count the memory's non-zero bytes
	// before and after the trim.
	NonZeroBefore, NonZeroAfter int
}

// trimImage takes out of the snapshot instance what its image would carry
// for nothing: the prelude's source text, which QuickJS keeps for
// Function.prototype.toString of each of its functions (a prelude function
// then prints as "[native code]", like a builtin; classes keep theirs), and
// the bytes nobody will read — free heap chunks and the dead part of the C
// stack. Fewer non-zero bytes make fewer and smaller data segments, which
// every instantiation copies. Each step checks the memory before it changes
// anything (see quickjs.Instance.DropSources and ZeroUnused); when the
// checks fail, the image is only bigger, never wrong. It must run after
// the prelude's evaluation and before the memory is captured; handles are
// the build's own references, which it drops.
func trimImage(in *quickjs.Instance, prelude string, handles ...quickjs.Value) (imageTrim, error) {
	var t imageTrim
	t.NonZeroBefore = nonZeroBytes(in)
	// The prelude's factory and the wrapper it was given have done their
	// work: what the prelude took from them is reachable from the api
	// function.
	for _, v := range handles {
		if err := in.FreeValue(v); err != nil {
			return t, err
		}
	}
	t.Sources, t.SourcesErr = in.DropSources(prelude)
	if t.SourcesErr != nil && !errors.Is(t.SourcesErr, quickjs.ErrLayoutMismatch) {
		return t, t.SourcesErr
	}
	t.Zeroed, t.ZeroErr = in.ZeroUnused()
	if t.ZeroErr != nil && !errors.Is(t.ZeroErr, quickjs.ErrLayoutMismatch) {
		return t, t.ZeroErr
	}
	t.NonZeroAfter = nonZeroBytes(in)
	return t, nil
}

// nonZeroBytes counts the non-zero bytes of the instance's memory.
func nonZeroBytes(in *quickjs.Instance) int {
	mem, _ := in.Memory().Read(0, in.Memory().Size())
	n := 0
	for _, b := range mem {
		if b != 0 {
			n++
		}
	}
	return n
}

// importError is the message of the ReferenceError that every import() of
// a program rejects with (see wasm.RefuseImports): coderun loads no
// modules, and quickjs-libc's qjs:std, qjs:os and qjs:bjson are not built
// in (wasm.DropStdModules).
const importError = "modules are not available: a program cannot import anything (qjs:std, qjs:os and qjs:bjson do not exist here); use the bindings and globals the program was given instead"

// refuseImports stores importError in the instance's memory and points the
// module loader at it, so that the snapshot's instances refuse imports.
func refuseImports(in *quickjs.Instance) error {
	p, err := in.CString(importError)
	if err != nil {
		return fmt.Errorf("storing the import error: %w", err)
	}
	if !in.SetGlobalValue(wasm.ImportErrorExport, uint64(p)) {
		return fmt.Errorf("the module does not export %s", wasm.ImportErrorExport)
	}
	return nil
}

// templateHost serves the snapshot instance: a fixed clock, no host calls,
// no output, no sleeping, unlimited fuel.
type templateHost struct{}

func (templateHost) Call(*quickjs.Instance, []quickjs.Value) quickjs.Value { return quickjs.Int(-1) }
func (templateHost) Write(uint32, []byte)                                  {}
func (templateHost) Sleep(time.Duration)                                   {}
func (templateHost) Exit(uint32)                                           {}
func (templateHost) FuelYield(*quickjs.Instance, int64) int64              { return 1 << 40 }
func (templateHost) ClockNanos(id uint32) (int64, bool) {
	if id == 0 {
		return snapshotRealtime, true
	}
	return snapshotMonotonic, true
}
