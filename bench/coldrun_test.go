package bench

import (
	"context"
	"testing"

	"github.com/coderun/coderun"
)

// BenchmarkColdRun measures one whole run in a fresh VM: for coderun,
// instantiate, initialise QuickJS and the prelude, run `return 1+1`, read the
// value back (the program's compilation is cached after the warm-up run);
// for the peers, goja.New + RunString, modernc quickjs NewVM + Eval + Close
// and fastschema qjs.New + Eval + Close, each reading the value back.
func BenchmarkColdRun(b *testing.B) {
	w := coldRun()
	compare(b, 0, coderunEngine(newRuntime(b), w), gojaEngine(w), moderncEngine(w), fastschemaEngine(b, w))
}

// BenchmarkColdRunAlone measures a cold run (`return 1+1`, a fresh instance,
// the program's compilation cached, the value read back) with coderun alone
// and no Prewarm pool: the instance is made on the request path. Issue #5's
// goal: at most 0.25 ms.
func BenchmarkColdRunAlone(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	req := coderun.Request{Program: "return 1+1"}
	if _, err := rt.Run(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := rt.Run(context.Background(), req)
		if err != nil || string(res.Value) != "2" {
			b.Fatalf("run: %v %+v", err, res.Error)
		}
	}
}
