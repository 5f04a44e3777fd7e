package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// programs evaluate to JSON strings; want is what the original module
// returns (TestReferenceResults checks it).
var programs = []struct{ name, code, want string }{
	{"fib", `function fib(n){return n<2?n:fib(n-1)+fib(n-2)}; JSON.stringify(fib(20))`, `6765`},
	{"json", `const o={a:[1,2,{b:"x\u00e9"}],c:{d:null,e:true,f:1.5}}; JSON.stringify(JSON.parse(JSON.stringify([o,o])))`,
		`[{"a":[1,2,{"b":"xé"}],"c":{"d":null,"e":true,"f":1.5}},{"a":[1,2,{"b":"xé"}],"c":{"d":null,"e":true,"f":1.5}}]`},
	{"sort", `let s=1; const a=[]; for(let i=0;i<1e4;i++){s=(s*48271)%2147483647; a.push(s%100000)}
		a.sort((x,y)=>x-y); const b=a.slice(); b.sort(); JSON.stringify([a.slice(0,5),a.slice(-5),b.slice(0,5),a.length])`,
		`[[14,19,24,25,45],[99970,99972,99975,99982,99985],[10010,10018,10021,10037,10058],10000]`},
	{"bigint", `JSON.stringify([String(7n**300n).slice(0,30), String((2n**127n-1n)%1000000007n), (123456789n*987654321n).toString(16)])`,
		`["338385702007491040936883121913","639816141","1b13114fbff5385"]`},
	{"regex", `const r=/(\w+)@(\w+)\.com/g; const t="a@b.com, cc@dd.com; e@f.org";
		JSON.stringify([[...t.matchAll(r)].map(m=>m.slice(1)), "aXbXc".replace(/x/gi,"-"), /^(a+)+$/.test("aaaa")])`,
		`[[["a","b"],["cc","dd"]],"a-b-c",true]`},
}

// newReference returns a runtime and the original module for reference
// results. It uses the interpreter, which compiles in a fraction of the
// compiler's time; the results are the same.
func newReference(t *testing.T, cfg wazero.RuntimeConfig) (wazero.Runtime, wazero.CompiledModule) {
	if raceEnabled {
		t.Skip("reference runs of the original module are skipped under the race detector")
	}
	rt := newTestRuntime(t, cfg)
	return rt, compile(t, rt, QuickJS())
}

func TestReferenceResults(t *testing.T) {
	rt, orig := newReference(t, wazero.NewRuntimeConfigInterpreter())
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			got, err := newVM(t, rt, orig, nil).evalString(p.code)
			require.NoError(t, err)
			require.Equal(t, p.want, got)
		})
	}
}

func TestHardenedRuns(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	hard := compile(t, rt, hardened(t))
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			v := newVM(t, rt, hard, &meter{quantum: 10000})
			got, err := v.evalString(p.code)
			require.NoError(t, err)
			require.Equal(t, p.want, got)
			require.Positive(t, v.meter.refills)
		})
	}
}

func TestFuelStopsInfiniteLoop(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	hard := compile(t, rt, hardened(t))
	for _, tc := range []struct{ name, code string }{
		{"js loop", `for(;;){}`},
		{"js loop in try", `try { for(;;){} } catch (e) {} "caught"`},
		{"C loop", `const a=[]; a.length=1e9; a.fill(0); "done"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &meter{quantum: 100_000, maxRefills: 20}
			v := newVM(t, rt, hard, m)
			start := time.Now()
			_, err := v.eval(tc.code)
			// The fuel, a count, stopped it: 20 refills of 100,000
			// units, then errOutOfFuel. No clock is asserted.
			require.ErrorIs(t, err, errOutOfFuel)
			require.Equal(t, 20, m.refills)
			t.Logf("stopped after %v, fuel %d", time.Since(start), v.fuelUsed())
		})
	}
}

func TestFuelDeterministic(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	hard := compile(t, rt, hardened(t))
	code := `function fib(n){return n<2?n:fib(n-1)+fib(n-2)}
		const o=[]; for(let i=0;i<2000;i++) o.push({i, s:"v"+i, a:[i,i*2]});
		const j=JSON.parse(JSON.stringify(o)); j.sort((x,y)=>y.i-x.i);
		JSON.stringify([fib(18), j[0].i, String(3n**200n).length, "abc".repeat(1000).replace(/b/g,"x").length])`
	var want string
	var fuel []int64
	for i := range 5 {
		// Different quanta move the yield points but not the total.
		v := newVM(t, rt, hard, &meter{quantum: int64(1000 + 7919*i)})
		got, err := v.evalString(code)
		require.NoError(t, err)
		if i == 0 {
			want = got
		}
		require.Equal(t, want, got)
		fuel = append(fuel, v.fuelUsed())
		require.Positive(t, v.meter.refills)
	}
	t.Logf("fuel %v", fuel)
	for _, f := range fuel {
		require.Equal(t, fuel[0], f)
	}
	require.Greater(t, fuel[0], int64(100_000))
}

func TestGrowTrapEndsRun(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler().WithMemoryLimitPages(512))
	hard := compile(t, rt, hardened(t))
	const grow = `const a=[]; for(;;) a.push(new Array(1e6).fill(1))`
	for _, tc := range []struct{ name, code string }{
		{"plain", grow},
		{"in try", `try { ` + grow + ` } catch (e) { "caught: " + e }`},
		{"one big allocation in try", `try { new ArrayBuffer(1e8) } catch (e) { "caught: " + e }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVM(t, rt, hard, nil)
			_, err := v.evalString(tc.code)
			require.ErrorContains(t, err, "wasm error: unreachable")
		})
	}
	t.Run("the original raises a JS exception", func(t *testing.T) {
		refRT, orig := newReference(t, wazero.NewRuntimeConfigInterpreter().WithMemoryLimitPages(512))
		v := newVM(t, refRT, orig, nil)
		got, err := v.evalString(`try { new ArrayBuffer(1e8) } catch (e) { "caught: " + e }`)
		require.NoError(t, err)
		require.Equal(t, "caught: InternalError: out of memory", got)
	})
}

func TestStackPointerExported(t *testing.T) {
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	mod, err := rt.InstantiateModule(context.Background(), compile(t, rt, hardened(t)),
		wazero.NewModuleConfig().WithName("").WithStartFunctions())
	require.NoError(t, err)
	defer mod.Close(context.Background())
	g := mod.ExportedGlobal(stackPointerExport)
	require.NotNil(t, g)
	require.Equal(t, api.ValueTypeI32, g.Type())
	// The stack starts at the top of the linker's stack region, where the
	// heap begins, as in the original module.
	heapBase := mod.ExportedGlobal("__heap_base")
	require.NotNil(t, heapBase)
	require.Equal(t, heapBase.Get(), g.Get())
	require.Equal(t, uint64(uint32(decodeQuickJS(t).Globals[0].Init[0].i32())), g.Get())
	fuel := mod.ExportedGlobal(FuelGlobalExport)
	require.NotNil(t, fuel)
	require.Equal(t, api.ValueTypeI64, fuel.Type())
	require.Zero(t, fuel.Get())
}

// TestBackEdgesRuns runs the programs on a module hardened with
// FuelConfig.BackEdges.
func TestBackEdgesRuns(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("compiling another variant of the module is slow under -race and -short")
	}
	src, err := Harden(QuickJS(), FuelConfig{BackEdges: true})
	require.NoError(t, err)
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	cm := compile(t, rt, src)
	for _, p := range programs {
		v := newVM(t, rt, cm, &meter{quantum: 10000})
		got, err := v.evalString(p.code)
		require.NoError(t, err, p.name)
		require.Equal(t, p.want, got, p.name)
	}
	var fuel []int64
	for i := range 3 {
		v := newVM(t, rt, cm, &meter{quantum: int64(1000 + 7919*i)})
		_, err := v.evalString(programs[2].code) // sort
		require.NoError(t, err)
		fuel = append(fuel, v.fuelUsed())
	}
	require.Equal(t, []int64{fuel[0], fuel[0], fuel[0]}, fuel)
	m := &meter{quantum: 100_000, maxRefills: 20}
	_, err = newVM(t, rt, cm, m).eval(`const a=[]; a.length=1e9; a.fill(0)`)
	require.ErrorIs(t, err, errOutOfFuel)
}
