package wasm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// JSValue tags of QuickJS-NG's NaN-boxed values on wasm32.
const (
	tagException = 6
	tagUndefined = 3
)

// testCache shares compiled code between the runtimes of all tests, so each
// module is compiled once per test binary.
var testCache = sync.OnceValue(wazero.NewCompilationCache)

// hardenedQuickJS is QuickJS() hardened with the default configuration.
var hardenedQuickJS = sync.OnceValues(func() ([]byte, error) { return Harden(QuickJS(), FuelConfig{}) })

func hardened(t testing.TB) []byte {
	t.Helper()
	b, err := hardenedQuickJS()
	require.NoError(t, err)
	return b
}

// meter is the host side of fuel metering for one instance.
type meter struct {
	quantum    int64 // each refill
	maxRefills int   // fuel_yield panics after this many refills (0: never)
	refills    int
	given      int64  // the balance handed out last
	used       int64  // fuel used up to the last yield
	hook       func() // if set, called on every yield
}

// errOutOfFuel is the panic value of fuel_yield when the meter runs out.
var errOutOfFuel = errors.New("out of fuel")

func (f *meter) yield(left int64) int64 {
	f.used += f.given - left
	if f.hook != nil {
		f.hook()
	}
	if f.maxRefills > 0 && f.refills >= f.maxRefills {
		f.given = left
		panic(errOutOfFuel)
	}
	f.refills++
	f.given = f.quantum
	return f.quantum
}

// total returns the fuel used so far, given the global's current value.
func (f *meter) total(global int64) int64 { return f.used + f.given - global }

type meterKey struct{}

// stackHookKey keys stackWatch's hook, a func(sp uint32) uint32, in the
// call context.
type stackHookKey struct{}

// newTestRuntime returns a compiler runtime with WASI, env.jsFunctionProxy
// and coderun.fuel_yield. fuel_yield finds its meter in the call context.
func newTestRuntime(t testing.TB, cfg wazero.RuntimeConfig) wazero.Runtime {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, cfg.WithCompilationCache(testCache()))
	t.Cleanup(func() { _ = rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	_, err := rt.NewHostModuleBuilder("env").
		NewFunctionBuilder().
		WithFunc(func(context.Context, uint32, uint64, uint32, uint32) uint64 { return tagUndefined << 32 }).
		Export("jsFunctionProxy").
		Instantiate(ctx)
	require.NoError(t, err)
	_, err = rt.NewHostModuleBuilder(fuelImportModule).
		NewFunctionBuilder().
		WithFunc(func(ctx context.Context, left int64) int64 {
			return ctx.Value(meterKey{}).(*meter).yield(left)
		}).
		Export(fuelImportName).
		NewFunctionBuilder().
		WithFunc(func(ctx context.Context, sp uint32) uint32 {
			if hook, ok := ctx.Value(stackHookKey{}).(func(uint32) uint32); ok {
				return hook(sp)
			}
			return 0 // stackWatch's mark 0 is never crossed again
		}).
		Export(stackWatchImportName).
		Instantiate(ctx)
	require.NoError(t, err)
	return rt
}

// compiled caches compiled modules per runtime and source.
func compile(t testing.TB, rt wazero.Runtime, src []byte) wazero.CompiledModule {
	t.Helper()
	cm, err := rt.CompileModule(context.Background(), src)
	require.NoError(t, err)
	return cm
}

// vm is one QuickJS instance.
type vm struct {
	t     testing.TB
	ctx   context.Context
	mod   api.Module
	meter *meter
	jsctx uint64
	rt    uint32 // JSRuntime*
}

// instantiate instantiates cm without running anything. A nil meter
// refills 2^40 units at a time.
func instantiate(ctx context.Context, t testing.TB, rt wazero.Runtime, cm wazero.CompiledModule, m *meter) *vm {
	t.Helper()
	if m == nil {
		m = &meter{quantum: 1 << 40}
	}
	v := &vm{t: t, meter: m, ctx: context.WithValue(ctx, meterKey{}, m)}
	mod, err := rt.InstantiateModule(v.ctx, cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	require.NoError(t, err)
	t.Cleanup(func() { _ = mod.Close(context.Background()) })
	v.mod = mod
	return v
}

// newVM instantiates cm and creates a QuickJS runtime and context with
// coderun_new, which installs the glue's interrupt handler (coderun_interrupt:
// in a module with the Fuel pass it charges fuel and returns the stop
// global; in the original it returns 0).
func newVM(t testing.TB, rt wazero.Runtime, cm wazero.CompiledModule, m *meter) *vm {
	t.Helper()
	return newVMContext(context.Background(), t, rt, cm, m)
}

// newVMContext is newVM with a base context for all calls.
func newVMContext(ctx context.Context, t testing.TB, rt wazero.Runtime, cm wazero.CompiledModule, m *meter) *vm {
	t.Helper()
	v := instantiate(ctx, t, rt, cm, m)
	e := v.call("coderun_new", 0, 0, 0, 0)
	require.NotZero(t, e, "coderun_new failed")
	v.jsctx = v.call("coderun_context", e)
	var ok bool
	v.rt, ok = v.mod.Memory().ReadUint32Le(uint32(e))
	require.True(t, ok)
	return v
}

func (v *vm) call(name string, args ...uint64) uint64 {
	v.t.Helper()
	res, err := v.mod.ExportedFunction(name).Call(v.ctx, args...)
	require.NoError(v.t, err, name)
	if len(res) == 0 {
		return 0
	}
	return res[0]
}

// cstring copies s, NUL-terminated, into a malloc'd buffer.
func (v *vm) cstring(s string) uint64 {
	p := v.call("malloc", uint64(len(s)+1))
	require.True(v.t, v.mod.Memory().Write(uint32(p), append([]byte(s), 0)))
	return p
}

// eval evaluates code and returns the JSValue, or the error of the wasm
// call (a trap or an aborted fuel_yield). It runs no pending jobs.
func (v *vm) eval(code string) (uint64, error) {
	opt := v.call("coderun_eval_options", v.cstring(code), 0, 0, v.cstring("<input>"), 0)
	res, err := v.mod.ExportedFunction("coderun_eval").Call(v.ctx, v.jsctx, opt)
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

// toString converts a JSValue to a Go string.
func (v *vm) toString(val uint64) string {
	p := v.call("coderun_to_cstring", v.jsctx, val)
	packed, ok := v.mod.Memory().ReadUint64Le(uint32(p))
	require.True(v.t, ok)
	s, ok := v.mod.Memory().Read(uint32(packed>>32), uint32(packed))
	require.True(v.t, ok)
	return string(s)
}

// evalString evaluates code that returns a string (for example a
// JSON.stringify call). A JS exception becomes an error with its text.
func (v *vm) evalString(code string) (string, error) {
	val, err := v.eval(code)
	if err != nil {
		return "", err
	}
	if val>>32 == tagException {
		return "", fmt.Errorf("js exception: %s", v.toString(v.call("JS_GetException", v.jsctx)))
	}
	return v.toString(val), nil
}

// fuelUsed returns the fuel used by the instance so far.
func (v *vm) fuelUsed() int64 {
	g := v.mod.ExportedGlobal(FuelGlobalExport)
	require.NotNil(v.t, g)
	return v.meter.total(int64(g.Get()))
}
