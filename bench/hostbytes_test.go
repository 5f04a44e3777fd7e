package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/coderun/coderun"
)

// hostClass is one shape of program that once made the host pay outside
// every budget (issue #13), with the Config it runs under.
type hostClass struct {
	name    string
	program func(i int) string // i: the iteration, for programs that must differ
	config  func(*coderun.Config)
	// distinct: every run gets a program of its own (program(i)); others
	// run program(0), made once outside the measured loop.
	distinct bool
}

// hostClasses are issue #13's classes, scaled so that one run takes at most
// a few hundred milliseconds, next to the cold run they are compared with.
var hostClasses = []hostClass{
	{name: "cold run", program: func(int) string { return `return 1+1` }},
	{name: "parser recursion", program: func(int) string { return strings.Repeat("(", 490_000) + "1" + strings.Repeat(")", 490_000) }},
	{name: "quadratic compile", program: func(int) string { return strings.Repeat("{", 10_000) + strings.Repeat("}", 10_000) }},
	{name: "oversized program", program: func(int) string { return strings.Repeat("x = 1;\n", 600_000) }},
	{name: "compile cache", program: func(i int) string {
		return "// " + strings.Repeat("v", i%1000) + "\n" + strings.Repeat("{", 150) + "let a = 1" + strings.Repeat("}", 150) + "\n" + strings.Repeat("a;", 2500)
	}, distinct: true},
	{name: "timers", program: func(int) string {
		return `let n = 0; try { for (let i = 0; i < 100000; i++) { setTimeout(() => {}, 1); n++ } } catch (e) {} return n`
	}},
	{name: "native stack", program: func(int) string {
		return `let d = 0; function f(n) { d++; if (n === 0) { let x = 0; for (let i = 0; i < 1e5; i++) x += i; return x } return f(n - 1) + 1 }
try { f(6900) } catch (e) {} return d`
	}},
	{name: "queued arguments", program: func(int) string {
		return `const s = "x".repeat(1 << 20); const ps = []; for (let i = 0; i < 200; i++) ps.push(tools.echo(s).catch(() => 0)); await Promise.all(ps); return 1`
	}, config: func(c *coderun.Config) { c.MemoryBytes = 16 << 20; c.MaxConcurrentCalls = 1 }},
	{name: "big argument", program: func(int) string {
		return `try { await tools.echo("x".repeat(16 << 20)) } catch (e) {} return 1`
	}, config: func(c *coderun.Config) { c.MaxArgumentBytes = 32 << 20 }},
	{name: "log entries", program: func(int) string { return `for (let i = 0; i < 100000; i++) console.log(''); return 1` }},
}

// BenchmarkHostBytes runs each class of issue #13 and reports what the host
// paid per run: B/op is what the Go heap allocated (the host's copies,
// compilation, the native stack wazero grows; linear memory is mapped
// outside the Go heap), peak-B/op the peak memory the run's budget
// accounted (Result.Usage.PeakMemoryBytes, guest and host). A change that
// makes the host pay more for a class, or account less, shows here.
func BenchmarkHostBytes(b *testing.B) {
	echo := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil },
	}}
	for _, c := range hostClasses {
		b.Run(c.name, func(b *testing.B) {
			cfg := coderun.DefaultConfig()
			if c.config != nil {
				c.config(&cfg)
			}
			rt, err := coderun.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close(context.Background())
			b.ReportAllocs()
			var peak int64
			i := 0
			program := c.program(0)
			for b.Loop() {
				if c.distinct {
					program = c.program(i)
				}
				res, err := rt.Run(context.Background(), coderun.Request{Program: program, Bindings: []coderun.Namespace{echo}})
				if err != nil {
					b.Fatal(err)
				}
				peak += res.Usage.PeakMemoryBytes
				i++
			}
			b.ReportMetric(float64(peak)/float64(i), "peak-B/op")
		})
	}
}
