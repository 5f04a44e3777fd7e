package serialize

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/wasm"
	"github.com/coderun/coderun/wasm/upstream"
)

// nopHost serves an instance that makes no host calls.
type nopHost struct{}

func (nopHost) Call(*quickjs.Instance, []quickjs.Value) quickjs.Value { return quickjs.Undefined }
func (nopHost) Write(uint32, []byte)                                  {}
func (nopHost) Sleep(time.Duration)                                   {}
func (nopHost) Exit(uint32)                                           {}
func (nopHost) FuelYield(*quickjs.Instance, int64) int64              { return 1 << 40 }

// testEngine compiles the hardened module once for this package's tests.
var testEngine = sync.OnceValues(func() (*quickjs.Engine, error) {
	module, err := wasm.Harden(upstream.Module(), wasm.FuelConfig{})
	if err != nil {
		return nil, err
	}
	return quickjs.NewEngine(context.Background(), quickjs.Options{Wasm: module, MemoryLimitPages: 4096})
})

// engineEvalJS evaluates src in a fresh instance of the hardened engine,
// with the same 2 MiB guest stack the runtime gives every run.
func engineEvalJS(t *testing.T, src string) string {
	t.Helper()
	e, err := testEngine()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in, err := e.Instantiate(ctx, nopHost{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close(ctx)
	if err := in.Init(quickjs.InitOptions{StackBytes: 2 << 20, StackMargin: 64 << 10}); err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval(src, "case.js", quickjs.EvalGlobal)
	if err != nil {
		t.Fatalf("eval: %v", err)
	}
	if v.IsException() {
		exc, _ := in.TakeException()
		s, _ := in.String(exc)
		t.Fatalf("exception: %s", s)
	}
	s, err := in.String(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
