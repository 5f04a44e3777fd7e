package wasm

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// event is one timed host-visible event of a diagnostic run.
type event struct {
	kind   string // "yield", "copy", "fill" or "grow"
	t0, t1 time.Duration
	arg    uint32 // length or pages
	u0, u1 usage  // thread resource usage at t0 and t1
}

// usage is the resource usage of the calling thread.
type usage struct {
	cpu            time.Duration // user + system
	sys            time.Duration
	minflt, nivcsw int64 // minor page faults, involuntary context switches
}

func threadUsage() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	sys := time.Duration(ru.Stime.Nano())
	return usage{cpu: time.Duration(ru.Utime.Nano()) + sys, sys: sys, minflt: ru.Minflt, nivcsw: ru.Nivcsw}
}

func (u usage) sub(v usage) usage {
	return usage{u.cpu - v.cpu, u.sys - v.sys, u.minflt - v.minflt, u.nivcsw - v.nivcsw}
}

// gapLog records events relative to a start time.
type gapLog struct {
	start  time.Time
	events []event
}

func (l *gapLog) record(kind string, arg uint32, f func()) {
	u0 := threadUsage()
	t0 := time.Since(l.start)
	f()
	t1 := time.Since(l.start)
	l.events = append(l.events, event{kind, t0, t1, arg, u0, threadUsage()})
}

// diagnosticModule returns QuickJS() hardened with Fuel (default config)
// whose memory.copy, memory.fill and memory.grow are calls to host
// functions of module "diag", so that a run can be timed op by op.
func diagnosticModule(t testing.TB) []byte {
	m := decodeQuickJS(t)
	require.NoError(t, Fuel(m, FuelConfig{}))
	i3 := FuncType{Params: []ValType{i32, i32, i32}}
	cp := m.insertFuncImport("diag", "copy", i3)
	fill := m.insertFuncImport("diag", "fill", i3)
	grow := m.insertFuncImport("diag", "grow", FuncType{Params: []ValType{i32}, Results: []ValType{i32}})
	for i := range m.Code {
		for k, in := range m.Code[i].Body {
			switch in.Op {
			case opMemoryCopy:
				m.Code[i].Body[k] = indexed(opCall, cp)
			case opMemoryFill:
				m.Code[i].Body[k] = indexed(opCall, fill)
			case opMemoryGrow:
				m.Code[i].Body[k] = indexed(opCall, grow)
			}
		}
	}
	b, err := m.Encode()
	require.NoError(t, err)
	return b
}

// TestSortGapDiagnostic looks for the longest stretches without a fuel
// check in a sort of 3e6 numbers and says what surrounds them. It is a
// diagnostic, not a regression test: set CODERUN_GAPS=1 to run it, or
// CODERUN_GAPS=mmap to run it on an mmap-backed linear memory.
//
// What it found (quantum 1000, 2-core shared VM): on an mmap-backed memory
// the longest unchecked stretch was one memory.copy of 53,088,780 bytes
// (dlmalloc's realloc of the growing array) into freshly grown pages:
// 171-178 ms, nearly all of it 12,960 first-touch page faults. With wazero's
// default allocator the faults move into memory.grow, which copies the whole
// memory (0.1-2.4 s per grow), and the copy itself takes 3-6 ms. With the
// 1 MiB chunks of Fuel, the longest copy is 1 MiB (about 5 ms of faults).
// The remaining wall-clock gaps of 20-200 ms between yields had little
// thread CPU time (the thread was descheduled by the loaded machine), and
// with GOGC=off the CPU-bound gaps were at most 12 ms.
func TestSortGapDiagnostic(t *testing.T) {
	if os.Getenv("CODERUN_GAPS") == "" {
		t.Skip("set CODERUN_GAPS=1 to run this diagnostic")
	}
	log := &gapLog{}
	ctx := context.Background()
	rt := newTestRuntime(t, wazero.NewRuntimeConfigCompiler())
	addDiagHost(ctx, t, rt, log)
	cm := compile(t, rt, diagnosticModule(t))

	ctx = context.Background()
	if os.Getenv("CODERUN_GAPS") == "mmap" {
		ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(newMmapMemory))
	}
	for _, code := range []string{
		`const a = []; for (let i = 0; i < 3e6; i++) a.push(Math.random()); a.sort(); a.length`,
		`const a = []; for (let i = 0; i < 3e6; i++) a.push(Math.random()); a.sort((x, y) => x - y); a.length`,
	} {
		m := &meter{quantum: 1000}
		m.hook = func() { log.record("yield", 0, func() {}) }
		v := newVMContext(ctx, t, rt, cm, m)
		runtime.LockOSThread()
		// Preallocate (and touch) the log so that recording an event does
		// not grow it: growth would show up as page faults in the gaps.
		log.events = make([]event, 2_000_000)[:0]
		log.start = time.Now()
		got, err := v.evalString(code)
		require.NoError(t, err)
		total := time.Since(log.start)
		runtime.UnlockOSThread()
		var yields, bulk int
		var bulkTime time.Duration
		for _, e := range log.events {
			if e.kind == "yield" {
				yields++
			} else {
				bulk++
				bulkTime += e.t1 - e.t0
			}
		}
		t.Logf("%s: result %s in %v, %d yields, %d bulk ops taking %v, fuel %d\n%s",
			code, got, total, yields, bulk, bulkTime, v.fuelUsed(), describeGaps(log.events, 5))
		slices.SortFunc(log.events, func(a, b event) int { return int((b.t1 - b.t0) - (a.t1 - a.t0)) })
		long := slices.DeleteFunc(slices.Clone(log.events[:min(len(log.events), 1000)]), func(e event) bool { return e.kind == "yield" })
		if len(long) > 3 {
			long = slices.DeleteFunc(long, func(e event) bool { return e.kind == "grow" })
		}
		for _, e := range log.events[:5] {
			u := e.u1.sub(e.u0)
			t.Logf("long event %s(%d) %v at %v (thread cpu %v, %d minor faults, %d involuntary switches)", e.kind, e.arg, e.t1-e.t0, e.t0, u.cpu, u.minflt, u.nivcsw)
		}
		for _, e := range long[:min(3, len(long))] {
			t.Logf("longest copy/fill %s(%d) %v", e.kind, e.arg, e.t1-e.t0)
		}
	}
}

// addDiagHost instantiates the host module "diag" of diagnosticModule,
// whose copy, fill and grow run the bulk memory operations in Go and
// record each in log.
func addDiagHost(ctx context.Context, t *testing.T, rt wazero.Runtime, log *gapLog) {
	view := func(mod api.Module, p, n uint32) []byte {
		b, ok := mod.Memory().Read(p, n)
		if !ok {
			panic("out of bounds bulk memory operation")
		}
		return b
	}
	_, err := rt.NewHostModuleBuilder("diag").
		NewFunctionBuilder().WithFunc(func(_ context.Context, mod api.Module, d, s, n uint32) {
		log.record("copy", n, func() { copy(view(mod, d, n), view(mod, s, n)) })
	}).Export("copy").
		NewFunctionBuilder().WithFunc(func(_ context.Context, mod api.Module, d, v, n uint32) {
		log.record("fill", n, func() {
			b := view(mod, d, n)
			for i := range b {
				b[i] = byte(v)
			}
		})
	}).Export("fill").
		NewFunctionBuilder().WithFunc(func(_ context.Context, mod api.Module, delta uint32) (r uint32) {
		log.record("grow", delta, func() {
			prev, ok := mod.Memory().Grow(delta)
			r = prev
			if !ok {
				r = ^uint32(0)
			}
		})
		return r
	}).Export("grow").
		Instantiate(ctx)
	require.NoError(t, err)
}

// mmapMemory is a linear memory that reserves its maximum size up front and
// makes pages accessible as it grows, so growing never copies (unlike
// wazero's default allocator); fresh pages are faulted in on first touch.
type mmapMemory struct {
	buf       []byte // the whole reservation
	committed int
}

func newMmapMemory(_, max uint64) experimental.LinearMemory {
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		panic(err)
	}
	return &mmapMemory{buf: buf}
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	if n := int(size); n > m.committed {
		if err := syscall.Mprotect(m.buf[m.committed:n], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil
		}
		m.committed = n
	}
	return m.buf[:size:size]
}

func (m *mmapMemory) Free() { _ = syscall.Munmap(m.buf) }

// describeGaps returns the n longest stretches between events.
func describeGaps(events []event, n int) string {
	type gap struct {
		d          time.Duration
		before, at int
	}
	var gaps []gap
	for i := 1; i < len(events); i++ {
		gaps = append(gaps, gap{events[i].t0 - events[i-1].t1, i - 1, i})
	}
	slices.SortFunc(gaps, func(a, b gap) int { return int(b.d - a.d) })
	var sb strings.Builder
	for _, g := range gaps[:min(n, len(gaps))] {
		u := events[g.at].u0.sub(events[g.before].u1)
		fmt.Fprintf(&sb, "gap %v (thread cpu %v, sys %v, %d minor faults, %d involuntary switches) between %s and %s at %v\n",
			g.d, u.cpu, u.sys, u.minflt, u.nivcsw, events[g.before].kind, events[g.at].kind, events[g.before].t1)
	}
	return sb.String()
}
