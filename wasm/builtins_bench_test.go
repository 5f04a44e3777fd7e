package wasm

import (
	"context"
	"os"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/coderun/coderun/internal/linearmem"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// builtinCase is a call timed in a fresh instance, after setup (untimed).
type builtinCase struct{ name, setup, call string }

// builtinCases are the workloads of BenchmarkBuiltins: two plain
// JavaScript references, then engine builtins whose work grows with an
// argument (docs/builtins.md has the table).
var builtinCases = []builtinCase{
	{"js loop", ``, `(function(){let x=0; for(let i=0;i<1e7;i++) x+=i; return x})()`},
	{"js calls", `function f(x){return x+1}`, `let x=0; for(let i=0;i<3e6;i++) x=f(x); x`},
	{"padEnd ab", ``, `''.padEnd(2**23,'ab').length`},
	{"padEnd a", ``, `''.padEnd(2**23,'a').length`},
	{"padStart ab", ``, `''.padStart(2**23,'ab').length`},
	{"padEnd 2**26 a", ``, `''.padEnd(2**26,'a').length`},
	{"repeat", ``, `'ab'.repeat(2**22).length`},
	{"repeat 2**26 a", ``, `'a'.repeat(2**26).length`},
	{"Array.join", `globalThis.a=Array.from({length:1e6},(_, i)=>'x'+i)`, `a.join(',').length`},
	{"Array(n).fill", ``, `new Array(2**21).fill(0).length`},
	{"Array.fill", `globalThis.a=new Array(2**21).fill(0)`, `a.fill(1).length`},
	{"Array.copyWithin", `globalThis.a=new Array(2**21).fill(0)`, `a.copyWithin(0,1).length`},
	{"Array.indexOf", `globalThis.a=new Array(2**21).fill(0)`, `a.indexOf(1)`},
	{"Array.includes", `globalThis.a=new Array(2**21).fill(0)`, `a.includes(1)`},
	{"Array.lastIndexOf", `globalThis.a=new Array(2**21).fill(0)`, `a.lastIndexOf(1)`},
	{"Array.sort default", `globalThis.a=Array.from({length:1e5},(_, i)=>(i*7919)%100003)`, `a.sort().length`},
	{"Array.sort cmp", `globalThis.a=Array.from({length:1e5},(_, i)=>(i*7919)%100003)`, `a.sort((x,y)=>x-y).length`},
	{"Array.from length", ``, `Array.from({length:2**19}).length`},
	{"Array.from typed", `globalThis.u=new Uint8Array(2**20)`, `Array.from(u).length`},
	{"Array.reverse", `globalThis.a=new Array(2**21).fill(0)`, `a.reverse().length`},
	{"Array.slice", `globalThis.a=new Array(2**21).fill(0)`, `a.slice().length`},
	{"Array.concat", `globalThis.a=new Array(2**20).fill(0)`, `a.concat(a).length`},
	{"Array.splice", `globalThis.a=new Array(2**21).fill(0)`, `let n=0; for(let i=0;i<5;i++){a.splice(0,1); n++} a.length`},
	{"Array spread", `globalThis.a=new Array(2**20).fill(0)`, `[...a].length`},
	{"apply", `globalThis.a=new Array(65000).fill(0); globalThis.f=function(){return arguments.length}`, `let n=0; for(let i=0;i<30;i++) n+=f.apply(null,a); n`},
	{"holey indexOf", `globalThis.a=[]; a.length=2**20`, `a.indexOf(1)`},
	{"String.normalize", `globalThis.s='\u00e9'.repeat(2**18)`, `s.normalize('NFD').length`},
	{"localeCompare", `globalThis.s='a'.repeat(2**22); globalThis.t='a'.repeat(2**22)`, `s.localeCompare(t)`},
	{"replaceAll", `globalThis.s='a'.repeat(2**19)`, `s.replaceAll('a','bc').length`},
	{"split chars", `globalThis.s='a'.repeat(2**19)`, `s.split('').length`},
	{"split sep", `globalThis.s='a,'.repeat(2**18)`, `s.split(',').length`},
	{"String.raw", `globalThis.r=Array.from({length:2**18},()=>'x')`, `String.raw({raw:r}).length`},
	{"string indexOf", `globalThis.s='a'.repeat(2**24)`, `s.indexOf('b')`},
	{"string lastIndexOf", `globalThis.s='a'.repeat(2**24)`, `s.lastIndexOf('b')`},
	{"string ===", `globalThis.s='a'.repeat(2**24); globalThis.t='a'.repeat(2**24)`, `let n=0; for(let i=0;i<4;i++) n+= (s===t); n`},
	{"string <", `globalThis.s='a'.repeat(2**24); globalThis.t='a'.repeat(2**24)`, `let n=0; for(let i=0;i<4;i++) n+= (s<t); n`},
	{"string concat", `globalThis.s='a'.repeat(2**24)`, `(s+s).length`},
	{"toUpperCase", `globalThis.s='a'.repeat(2**22)`, `s.toUpperCase().length`},
	{"toLowerCase", `globalThis.s='\u00c9'.repeat(2**20)`, `s.toLowerCase().length`},
	{"encodeURIComponent", `globalThis.s='\u00e9'.repeat(2**19)`, `encodeURIComponent(s).length`},
	{"trim", `globalThis.s=' '.repeat(2**24)+'a'`, `s.trim().length`},
	{"TA fill", `globalThis.u=new Uint8Array(2**25)`, `u.fill(1).length`},
	{"TA fill f64", `globalThis.u=new Float64Array(2**22)`, `u.fill(1.5).length`},
	{"TA set", `globalThis.u=new Uint8Array(2**25); globalThis.v=new Uint8Array(2**25)`, `u.set(v); u.length`},
	{"TA set convert", `globalThis.u=new Float64Array(2**21); globalThis.v=new Uint8Array(2**21)`, `u.set(v); u.length`},
	{"TA set array", `globalThis.u=new Float64Array(2**20); globalThis.v=new Array(2**20).fill(1)`, `u.set(v); u.length`},
	{"TA copyWithin", `globalThis.u=new Uint8Array(2**25)`, `u.copyWithin(0,1).length`},
	{"TA slice", `globalThis.u=new Uint8Array(2**25)`, `u.slice().length`},
	{"TA subarray", `globalThis.u=new Uint8Array(2**25)`, `u.subarray(1).length`},
	{"TA indexOf", `globalThis.u=new Uint8Array(2**25)`, `u.indexOf(1)`},
	{"TA indexOf f64", `globalThis.u=new Float64Array(2**22)`, `u.indexOf(1)`},
	{"TA includes", `globalThis.u=new Uint16Array(2**24)`, `u.includes(1)`},
	{"TA join", `globalThis.u=new Uint8Array(2**22)`, `u.join(',').length`},
	{"TA sort", `globalThis.u=new Float64Array(2**19).map((_, i)=>(i*7919)%524309)`, `u.sort().length`},
	{"TA sort cmp", `globalThis.u=new Float64Array(2**16).map((_, i)=>(i*7919)%262147)`, `u.sort((a,b)=>a-b).length`},
	{"TA reverse", `globalThis.u=new Uint8Array(2**25)`, `u.reverse().length`},
	{"TA from", `globalThis.a=new Array(2**20).fill(1)`, `Float64Array.from(a).length`},
	{"new TA(array)", `globalThis.a=new Array(2**20).fill(1)`, `new Float64Array(a).length`},
	{"ArrayBuffer.slice", `globalThis.b=new ArrayBuffer(2**25)`, `b.slice(0).byteLength`},
	{"new ArrayBuffer", ``, `new ArrayBuffer(2**28).byteLength`},
	{"JSON.stringify", `globalThis.o=Array.from({length:2**17},(_, i)=>({i, s:'v'+i}))`, `JSON.stringify(o).length`},
	{"JSON.stringify str", `globalThis.s='a"'.repeat(2**21)`, `JSON.stringify(s).length`},
	{"JSON.parse", `globalThis.j=JSON.stringify(Array.from({length:2**17},(_, i)=>({i, s:'v'+i})))`, `JSON.parse(j).length`},
	{"JSON.parse str", `globalThis.j=JSON.stringify('a'.repeat(2**24))`, `JSON.parse(j).length`},
	{"RegExp backtrack", ``, `/^(a+)+$/.test('a'.repeat(23)+'b')`},
	{"RegExp huge", `globalThis.s='a'.repeat(2**23)`, `/b/.exec(s)`},
	{"RegExp huge sticky", `globalThis.s='a'.repeat(2**13)`, `/a*b/.exec(s)`},
	{"replace regex", `globalThis.s='a'.repeat(2**19)`, `s.replace(/a/g,'bc').length`},
	{"BigInt mul", `globalThis.x=3n**100000n`, `String((x*x)%7n)`},
	{"BigInt pow", ``, `String((7n**200000n)%7n)`},
	{"BigInt toString", `globalThis.x=3n**50000n`, `x.toString().length`},
	{"BigInt parse", `globalThis.s='9'.repeat(50000)`, `String(BigInt(s)%7n)`},
	{"BigInt div", `globalThis.x=3n**100000n; globalThis.y=7n**30000n`, `String((x/y)%7n)`},
	{"Number.toString(2)", ``, `let n=0; for(let i=0;i<5e3;i++) n+=(1e300*i+0.1).toString(2).length; n`},
	{"Number.toFixed", ``, `let n=0; for(let i=0;i<5e3;i++) n+=(1e20*i+0.1).toFixed(100).length; n`},
	{"Number.toPrecision", ``, `let n=0; for(let i=0;i<5e3;i++) n+=(1.1e-300*i).toPrecision(100).length; n`},
	{"parseFloat long", `globalThis.s='1'.repeat(2**22)`, `parseFloat(s)`},
	{"Object.keys", `globalThis.o={}; for(let i=0;i<2e5;i++) o['k'+i]=i`, `Object.keys(o).length`},
	{"gc", `globalThis.a=Array.from({length:3e5},(_, i)=>({i}))`, `a=null; let x=[]; for(let i=0;i<10;i++) x.push({}); 1`},
	{"Array.flat", `globalThis.a=Array.from({length:2**18},()=>[1,2])`, `a.flat().length`},
	{"toSorted", `globalThis.a=Array.from({length:1e5},(_, i)=>(i*7919)%100003)`, `a.toSorted().length`},
	{"Array.with", `globalThis.a=new Array(2**21).fill(0)`, `a.with(0,1).length`},
	{"String.fromCharCode apply", `globalThis.a=new Array(65000).fill(97)`, `let n=0; for(let i=0;i<30;i++) n+=String.fromCharCode.apply(null,a).length; n`},
	{"string at loop", `globalThis.s='a'.repeat(2**18)`, `let n=0; for(let i=0;i<s.length;i++) n+=s.charCodeAt(i); n`},
	{"Map fill", ``, `const m=new Map(); for(let i=0;i<3e5;i++) m.set(i,i); m.size`},
}

// builtinSliceTarget, builtinMaxSlice and builtinMinSlice copy the runtime's
// slicing (budget.Meter): each slice of fuel aims at 500 µs of guest time,
// between 64 and 4,096 units.
const (
	builtinSliceTarget = 500 * time.Microsecond
	builtinMaxSlice    = 4096
	builtinMinSlice    = 64
)

// gapMeter watches the thread CPU time between fuel yields.
type gapMeter struct {
	m         *meter
	last, gap time.Duration
}

// yield is the meter's hook: it records the time since the last yield and
// sizes the next slice as the runtime would.
func (g *gapMeter) yield() {
	now, _ := threadCPUTime()
	took := now - g.last
	g.gap, g.last = max(g.gap, took), now
	if took > builtinSliceTarget {
		g.m.quantum = max(builtinMinSlice, int64(float64(g.m.quantum)*float64(builtinSliceTarget)/float64(took)))
	} else {
		g.m.quantum = min(builtinMaxSlice, 2*g.m.quantum)
	}
}

// BenchmarkBuiltins runs each of builtinCases once per iteration in the
// hardened engine (the runtime's fuel configuration, its memory allocator,
// its slicing of fuel) and reports the guest's CPU time (cpu-ms), the fuel
// per millisecond of it (fuel/ms) and the longest CPU time between two fuel
// yields (gap-ms): how long the builtin runs before a cancel can be seen.
// $CODERUN_BUILTINS, a regular expression, selects cases by name.
//
//	go test ./wasm -run '^$' -bench Builtins -benchtime 1x
func BenchmarkBuiltins(b *testing.B) {
	src, err := Harden(QuickJS(), FuelConfig{InterruptCost: defaultInterruptCost, BackEdges: true})
	require.NoError(b, err)
	rt := newTestRuntime(b, wazero.NewRuntimeConfigCompiler())
	cm := compile(b, rt, src)
	pool := linearmem.NewPool(linearmem.PoolOptions{PopulateGrowth: true, PopulateAfter: 512 << 10})
	b.Cleanup(pool.Close)
	base := experimental.WithMemoryAllocator(context.Background(), pool)
	filter := regexp.MustCompile(os.Getenv("CODERUN_BUILTINS"))
	for _, c := range builtinCases {
		if !filter.MatchString(c.name) {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			var cpu, gap time.Duration
			var fuel int64
			for b.Loop() {
				c1, g1, f1 := runBuiltin(b, base, rt, cm, c)
				cpu, gap, fuel = cpu+c1, max(gap, g1), fuel+f1
			}
			ms := float64(cpu.Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "cpu-ms")
			b.ReportMetric(float64(fuel)/float64(b.N)/ms, "fuel/ms")
			b.ReportMetric(float64(gap.Microseconds())/1000, "gap-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// runBuiltin runs c in a fresh instance and returns the CPU time of its
// call, the longest CPU time between yields during it and the fuel it
// charged.
func runBuiltin(b *testing.B, base context.Context, rt wazero.Runtime, cm wazero.CompiledModule, c builtinCase) (cpu, gap time.Duration, fuel int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := &meter{quantum: builtinMaxSlice}
	v := newVMContext(base, b, rt, cm, m)
	defer v.mod.Close(context.Background())
	if c.setup != "" {
		_, err := v.evalString(c.setup)
		require.NoError(b, err, c.name)
	}
	f0 := v.fuelUsed()
	g := &gapMeter{m: m}
	m.hook = g.yield
	start, ok := threadCPUTime()
	if !ok {
		b.Skip("no thread CPU time on this platform")
	}
	g.last = start
	_, err := v.evalString(c.call)
	end, _ := threadCPUTime()
	require.NoError(b, err, c.name)
	return end - start, max(g.gap, end-g.last), v.fuelUsed() - f0
}
