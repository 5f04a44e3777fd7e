package wasm

import (
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
)

// BareEngine runs JavaScript in fresh instances of the upstream module as
// built, before any pass (QuickJS): the bare engine in wazero, which
// wasm_test's BenchmarkEngineOverhead compares coderun's runs with.
type BareEngine struct{ v benchVariant }

// NewBareEngine compiles the upstream module on a compiler runtime.
func NewBareEngine(b *testing.B) *BareEngine {
	rt := newTestRuntime(b, wazero.NewRuntimeConfigCompiler())
	return &BareEngine{benchVariant{"original", rt, compile(b, rt, QuickJS())}}
}

// Eval evaluates code, which must return a string, in a fresh instance.
func (e *BareEngine) Eval(b *testing.B, code string) string {
	vm := newVM(b, e.v.rt, e.v.cm, nil)
	s, err := vm.evalString(code)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// Time runs setup (untimed) and then code in a fresh instance, and returns
// code's wall time and the CPU time of the thread that ran it.
func (e *BareEngine) Time(b *testing.B, setup, code string) (wall, cpu time.Duration) {
	wall, cpu, _ = runOnce(b, e.v, setup, code)
	return wall, cpu
}

// ThreadCPUTime is threadCPUTime, for wasm_test.
func ThreadCPUTime() (time.Duration, bool) { return threadCPUTime() }

// Median is median, for wasm_test.
func Median(v []float64) float64 { return median(v) }
