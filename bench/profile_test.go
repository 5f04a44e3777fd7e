package bench

import (
	"testing"
)

// BenchmarkCoderunOnly runs the compute rows of the table on coderun alone,
// one run per iteration, so that a CPU profile (-cpuprofile) attributes the
// time of these workloads and nothing else (where the time went: bench/README.md
// at 23be69a, "Where the time goes").
//
//	go test -run '^$' -bench 'CoderunOnly/summary' -benchtime 200x -cpuprofile cpu.out .
func BenchmarkCoderunOnly(b *testing.B) {
	for _, c := range []struct {
		name string
		w    workload
	}{
		{"cold", coldRun()},
		{"coldBinding", echoLoop(1)}, // a cold run that awaits one binding call
		{"summary", summary()},
		{"fib27", fib(27)},
		{"json1MB", jsonWorkload(jsonDoc())},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt := newRuntime(b)
			if _, err := runCoderun(rt, c.w); err != nil { // caches the compilation
				b.Fatal(err)
			}
			for b.Loop() {
				got, err := runCoderun(rt, c.w)
				if err != nil {
					b.Fatal(err)
				}
				if got != c.w.want {
					b.Fatalf("value %s, want %s", got, c.w.want)
				}
			}
		})
	}
}
