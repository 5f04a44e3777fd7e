package bench

import (
	"context"
	"testing"

	"github.com/coderun/coderun"
)

// BenchmarkColdRun measures one whole run in a fresh instance: instantiate,
// initialise QuickJS and the prelude, run `return 1+1`, read the value back.
// The program's compilation is cached after the first iteration.
func BenchmarkColdRun(b *testing.B) {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	ctx := context.Background()
	req := coderun.Request{Program: "return 1+1"}
	for b.Loop() {
		res, err := rt.Run(ctx, req)
		if err != nil || res.Error != nil || string(res.Value) != "2" {
			b.Fatalf("run: %v %v %s", err, res.Error, res.Value)
		}
	}
}
