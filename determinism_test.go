package coderun_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// corpusProgram is one generated program of the determinism corpus.
type corpusProgram struct {
	category string
	program  string
	input    string
	abort    time.Duration // the recording's ctx is cancelled after this long (0: never)
}

// corpusCategories generate the programs of a mixed soak, each from its
// own random source: realistic data work, parallel calls with random
// latencies, timers, promise races, clocks and randomness, failures of
// every kind, and aborts at random points.
var corpusCategories = []struct {
	name string
	gen  func(r *rand.Rand) corpusProgram
}{
	{"data", func(r *rand.Rand) corpusProgram {
		n := 5 + r.IntN(40)
		return corpusProgram{input: fmt.Sprintf(`{"n":%d,"tag":"t%d"}`, n, r.IntN(100)), program: fmt.Sprintf(`
			const rows = [];
			for (let i = 0; i < input.n; i++) rows.push({id: i, score: (i * %d) %% 97, name: input.tag + "-" + i});
			const detail = await tools.get({ids: rows.slice(0, %d).map(r => r.id)});
			const top = rows.filter(r => r.score > %d).sort((a, b) => b.score - a.score).slice(0, 5);
			const byBucket = {};
			for (const r of rows) (byBucket[r.score %% 4] ??= []).push(r.id);
			console.log("rows", rows.length, "top", top.map(t => t.name).join(","));
			const total = rows.reduce((s, r) => s + r.score, 0);
			return {total, top, buckets: Object.keys(byBucket).length, detail, at: new Date(Date.now()).getUTCFullYear() > 2000}`,
			1+r.IntN(50), 1+r.IntN(5), r.IntN(90))}
	}},
	{"parallel", func(r *rand.Rand) corpusProgram {
		n := 2 + r.IntN(12)
		return corpusProgram{program: fmt.Sprintf(`
			const order = [];
			const rs = await Promise.all(Array.from({length: %d}, (_, i) => tools.get(i).then(v => { order.push(i); return v; })));
			const settled = await Promise.allSettled([tools.fail("a"), tools.get("b"), tools.fail("c")]);
			console.log(order.join(" "), settled.map(s => s.status).join());
			return {n: rs.length, order}`, n)}
	}},
	{"timers", func(r *rand.Rand) corpusProgram {
		return corpusProgram{program: fmt.Sprintf(`
			const seen = [];
			for (const d of [%d, %d, %d]) setTimeout(() => seen.push("t" + d), d);
			let k = 0;
			const iv = setInterval(() => { seen.push("i" + k); if (++k === %d) clearInterval(iv); }, %d);
			const v = await tools.get("during");
			await new Promise(res => setTimeout(res, 12));
			return {seen, v}`, r.IntN(8), r.IntN(8), r.IntN(8), 1+r.IntN(3), 1+r.IntN(3))}
	}},
	{"races", func(r *rand.Rand) corpusProgram {
		return corpusProgram{program: fmt.Sprintf(`
			const out = [];
			for (let i = 0; i < %d; i++) {
				out.push(await Promise.race([tools.get(i), new Promise(res => setTimeout(() => res("timer" + i), %d))]));
			}
			out.push(await Promise.any([tools.fail(1), tools.get("any")]));
			return out`, 1+r.IntN(5), r.IntN(4))}
	}},
	{"entropy", func(r *rand.Rand) corpusProgram {
		return corpusProgram{program: fmt.Sprintf(`
			const a = Math.random(), t0 = performance.now();
			const bytes = Array.from(crypto.getRandomValues(new Uint8Array(%d)));
			await tools.get(a < 0.5);
			const id = crypto.randomUUID();
			return {a, b: Math.random(), bytes, id, dt: performance.now() - t0 >= 0, now: Date.now() > 0}`, 1+r.IntN(32))}
	}},
	{"failures", func(r *rand.Rand) corpusProgram {
		bodies := []string{
			`await tools.get(1); throw new TypeError("bad " + Math.random());`,
			`await tools.fail("uncaught");`,
			`await tools.get(1); let x = 0; for (;;) x++;`,
			`await tools.get(1); for (let i = 0; ; i++) console.log("line", i, "x".repeat(100));`,
			`await tools.get(1); const keep = []; for (;;) keep.push(new Array(100000).fill(1));`,
			`await tools.get(1); return () => 1;`,
			`await Promise.all([tools.get(1), tools.goexit(2)]);`,
			`await new Promise(() => {});`,
		}
		return corpusProgram{program: bodies[r.IntN(len(bodies))]}
	}},
	{"aborts", func(r *rand.Rand) corpusProgram {
		bodies := []string{
			`let n = 0; for (let i = 0; ; i++) { n += i; if (i % 50000 === 0) await tools.get(i); }`,
			`for (let i = 0; i < 1e9; i++) { if (i % 200000 === 0) console.log(Date.now() > 0); }`,
			`await tools.get(1); await tools.hang(2);`,
			`await Promise.all([tools.get(1), new Promise(r => setTimeout(r, 5)), tools.hang(3)]);`,
		}
		return corpusProgram{program: bodies[r.IntN(len(bodies))], abort: time.Duration(1+r.IntN(15)) * time.Millisecond}
	}},
}

// corpusConfig is the budgets of the corpus's runtimes: small enough that
// runaway programs end quickly.
func corpusConfig(prewarm int) coderun.Config {
	cfg := coderun.DefaultConfig()
	cfg.Fuel = 5_000_000
	cfg.MemoryBytes = 16 << 20
	cfg.MaxOutputBytes = 16 << 10
	cfg.Prewarm = prewarm
	return cfg
}

// The determinism corpus: programs of every category, recorded with real
// bindings delayed at random, each replayed three times on runtimes other
// than the recording's, with Prewarm on and off; every replay returns the
// recorded result, fuel included. 100 programs; 1,000 with CODERUN_LONG=1.
func TestDeterminismCorpus(t *testing.T) {
	n := 100
	if os.Getenv("CODERUN_LONG") == "1" {
		n = 1000
	}
	recorders := []*coderun.Runtime{newRuntimeConfig(t, corpusConfig(0)), newRuntimeConfig(t, corpusConfig(2))}
	replayers := []*coderun.Runtime{newRuntimeConfig(t, corpusConfig(2)), newRuntimeConfig(t, corpusConfig(0))}
	start := time.Now()
	kinds := map[string]int{}
	for i := 0; i < n; i++ {
		src := rand.New(rand.NewPCG(33, uint64(i)))
		cat := corpusCategories[i%len(corpusCategories)]
		p := cat.gen(src)
		c := replayCase{program: p.program, input: p.input, cancel: p.abort}
		res, tr := recordCase(t, recorders[i%2], c, 2*time.Millisecond)
		kind := "ok"
		if res.Error != nil {
			kind = string(res.Error.Kind) + "/" + string(res.Error.Budget)
			require.NotEqual(t, coderun.BudgetReplay, res.Error.Budget)
		}
		kinds[cat.name+" "+kind]++
		back := roundTrip(t, tr)
		for k := 0; k < 3; k++ {
			got, err := replayers[(i+k)%2].Replay(context.Background(), back, coderun.ReplayOptions{})
			require.NoError(t, err)
			if !sameOutcome(res, got) {
				t.Fatalf("program %d (%s), replay %d differs:\n%s\nrecorded: %s %q %+v fuel %d\nreplayed: %s %q %+v fuel %d",
					i, cat.name, k, p.program, res.Value, res.Logs, res.Error, res.Usage.Fuel, got.Value, got.Logs, got.Error, got.Usage.Fuel)
			}
		}
	}
	var summary []string
	for k, v := range kinds {
		summary = append(summary, fmt.Sprintf("%s: %d", k, v))
	}
	t.Logf("%d programs recorded and replayed 3 times each in %v; outcomes: %s", n, time.Since(start).Round(time.Millisecond), strings.Join(summary, ", "))
}

// sameOutcome reports whether a replay returned the recorded result.
func sameOutcome(want, got coderun.Result) bool {
	if string(want.Value) != string(got.Value) || want.Usage.Fuel != got.Usage.Fuel || want.Usage.Calls != got.Usage.Calls {
		return false
	}
	if (want.Error == nil) != (got.Error == nil) || want.Error != nil && *want.Error != *got.Error {
		return false
	}
	return strings.Join(want.Logs, "\n") == strings.Join(got.Logs, "\n") && len(want.Logs) == len(got.Logs)
}
