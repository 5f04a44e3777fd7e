package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
	"modernc.org/quickjs"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/internal/runaway"
)

// tableEngines are the table's columns, coderun first; every row lists
// its cells in this order.
var tableEngines = []string{"coderun", "goja", "modernc", "fastschema"}

// Samples per engine behind each row of the table. Rounds interleave the
// engines as compare does; the counts keep the whole table to a few minutes
// on the 2-core machine.
const (
	tableColdRounds     = 200 // cold run and the realistic program
	tableColdBlock      = 10  // consecutive runs per engine in the back-to-back cold run row
	tableBindingRounds  = 7   // 10,000 binding calls per sample
	tableComputeRounds  = 11  // fib(27), JSON1MB, parallel sleeps
	tableAbortRounds    = 200 // p99 is the second largest of 200
	tableAbortDelay     = 20 * time.Millisecond
	tableThroughputRuns = 5 // windows of tableWindow per engine
	tableWindow         = time.Second
	tableIdleRounds     = 3
	tableNewRounds      = 3 // coderun.New with an empty cache takes seconds
	tablePrewarmRuns    = 400
	tablePrewarmPause   = 5 * time.Millisecond // idle before each prewarmed run
)

// BenchmarkTable runs every workload of issue #5 on coderun and the three
// peers in one process run and prints one Markdown table of the medians and
// of the ratios peer/coderun to standard output (see README.md). It takes a
// few minutes; run it with -benchtime 1x.
func BenchmarkTable(b *testing.B) {
	env := &tableEnv{b: b, rt: newRuntime(b), fs: buildFastschema(b)}
	load := loadAverage()
	var rows []tableRow
	for _, measure := range []func() ([]tableRow, error){
		env.coldRun, env.coldRunBlocks, env.coldRunPrewarm, env.summary, env.summaryNew, env.binding, env.fib27, env.json1MB,
		env.abort, env.parallelSleeps, env.throughput, env.idle, env.newTimes,
	} {
		r, err := measure()
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, r...)
	}
	fmt.Print(renderTable(rows, tableHeading(load+" → "+loadAverage())))
}

// tableEnv is what the table's measurements share.
type tableEnv struct {
	b  *testing.B
	rt *coderun.Runtime
	fs fastschemaPeer
}

// A tableRow is one line of the table: a cell per engine of tableEngines.
// Every value is a cost (a time, a time per run, bytes): lower is better,
// and a ratio above 1 means coderun is better.
type tableRow struct {
	label string
	show  func(float64) string // renders a value with its unit
	cells []tableCell
}

// A tableCell holds a value, or a note (such as "–") that stands for it.
type tableCell struct {
	v    float64
	note string
}

// ok reports whether c holds a value.
func (c tableCell) ok() bool { return c.note == "" }

// workloadRow times w on every engine over n rounds and reports the medians
// divided by per (the calls of a run, or 1).
func (e *tableEnv) workloadRow(label string, w workload, n, per int) ([]tableRow, error) {
	return e.enginesRow(label, coderunEngine(e.rt, w), w, n, per)
}

// enginesRow is workloadRow with coderun's engine given: cr, then the
// peers running w.
func (e *tableEnv) enginesRow(label string, cr engine, w workload, n, per int) ([]tableRow, error) {
	engines := []engine{cr, gojaEngine(w), moderncEngine(w), e.fs.engine(e.b, w)}
	samples, err := takeRounds(engines, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	cells := make([]tableCell, len(samples))
	for i, s := range samples {
		cells[i] = tableCell{v: float64(median(s)) / float64(per)}
	}
	return []tableRow{{label: label, show: showTime, cells: cells}}, nil
}

// takeRounds takes n rounds of samples of the engines.
func takeRounds(engines []engine, n int) ([][]time.Duration, error) {
	return takeBlocks(engines, n, 1)
}

// takeBlocks takes n rounds of blocks of per consecutive samples of each
// engine (see rounds.takeBlock).
func takeBlocks(engines []engine, n, per int) ([][]time.Duration, error) {
	r, err := newRounds(engines)
	if err != nil {
		return nil, err
	}
	for r.n < n {
		if err := r.takeBlock(per); err != nil {
			return nil, err
		}
	}
	return r.samples, nil
}

func (e *tableEnv) coldRun() ([]tableRow, error) {
	return e.workloadRow("cold run: `return 1+1`", coldRun(), tableColdRounds, 1)
}

// coldRunBlocks times the cold run in blocks of tableColdBlock consecutive
// runs per engine (see tableNotes).
func (e *tableEnv) coldRunBlocks() ([]tableRow, error) {
	w := coldRun()
	engines := []engine{coderunEngine(e.rt, w), gojaEngine(w), moderncEngine(w), e.fs.engine(e.b, w)}
	samples, err := takeBlocks(engines, tableColdRounds/tableColdBlock, tableColdBlock)
	if err != nil {
		return nil, fmt.Errorf("cold run in blocks: %w", err)
	}
	cells := make([]tableCell, len(samples))
	for i, s := range samples {
		cells[i] = tableCell{v: float64(median(s))}
	}
	return []tableRow{{label: "cold run: `return 1+1`, each engine's runs back to back ⁷", show: showTime, cells: cells}}, nil
}

// coldRunPrewarm times the cold run with Prewarm on, on a runtime of its
// own, after an idle pause before each run (see tableNotes); only coderun
// has such a pool.
func (e *tableEnv) coldRunPrewarm() ([]tableRow, error) {
	cfg := coderun.DefaultConfig()
	cfg.Prewarm = 2
	rt, err := coderun.New(cfg)
	if err != nil {
		return nil, err
	}
	defer rt.Close(context.Background())
	if _, err := timeColdRun(rt); err != nil { // caches the compilation
		return nil, err
	}
	d := make([]time.Duration, 0, tablePrewarmRuns)
	for range tablePrewarmRuns {
		time.Sleep(tablePrewarmPause)
		took, err := timeColdRun(rt)
		if err != nil {
			return nil, fmt.Errorf("prewarmed cold run: %w", err)
		}
		d = append(d, took)
	}
	return []tableRow{coderunOnlyRow("cold run: `return 1+1`, `Prewarm: 2`, 5 ms idle before each run ⁸", d)}, nil
}

// coderunOnlyRow is a row with coderun's median of d and "–" for the peers.
func coderunOnlyRow(label string, d []time.Duration) tableRow {
	cells := []tableCell{{v: float64(median(d))}}
	for range tableEngines[1:] {
		cells = append(cells, tableCell{note: "–"})
	}
	return tableRow{label: label, show: showTime, cells: cells}
}

func (e *tableEnv) summary() ([]tableRow, error) {
	return e.workloadRow("cold run: 20-line program (1,000 objects, filter, map, summary)", summary(), tableColdRounds, 1)
}

// summaryNew is the summary row with a program text coderun has not seen in
// every coderun sample (see tableNotes).
func (e *tableEnv) summaryNew() ([]tableRow, error) {
	w := summary()
	return e.enginesRow("cold run: 20-line program, a new program text every run ⁹", coderunNewEngine(e.rt, w), w, tableColdRounds, 1)
}

func (e *tableEnv) binding() ([]tableRow, error) {
	w := echoLoop(echoCalls)
	return e.workloadRow("awaited binding round trip, per call ¹", w, tableBindingRounds, w.calls)
}

func (e *tableEnv) fib27() ([]tableRow, error) {
	return e.workloadRow("fib(27)", fib(27), tableComputeRounds, 1)
}

func (e *tableEnv) json1MB() ([]tableRow, error) {
	return e.workloadRow("1 MB JSON parse + stringify", jsonWorkload(jsonDoc()), tableComputeRounds, 1)
}

func (e *tableEnv) parallelSleeps() ([]tableRow, error) {
	return e.workloadRow("10 parallel 50 ms bindings (`Promise.all`), wall time ²", parallelSleeps(10), tableComputeRounds, 1)
}

// abort measures, for each engine, the time from interrupting a run of
// `for(;;){}` tableAbortDelay after it started to the run returning.
func (e *tableEnv) abort() ([]tableRow, error) {
	w := workload{body: runaway.Programs()["loop"]}
	script := w.script()
	engines := []engine{
		{name: "coderun", sample: func() (time.Duration, error) {
			return coderunAbortLatency(e.rt, w.body, tableAbortDelay)
		}},
		{name: "goja", sample: func() (time.Duration, error) {
			vm := goja.New()
			return abortLatency(tableAbortDelay, func(started func()) error {
				started()
				_, err := vm.RunString(script)
				return wantInterrupted(err, errors.As(err, new(*goja.InterruptedError)))
			}, func() { vm.Interrupt(errStop) })
		}},
		{name: "modernc", sample: func() (time.Duration, error) {
			vm, err := quickjs.NewVM()
			if err != nil {
				return 0, err
			}
			defer vm.Close()
			return abortLatency(tableAbortDelay, func(started func()) error {
				started()
				_, err := vm.Eval(script, quickjs.EvalGlobal)
				return wantInterrupted(err, err != nil && strings.Contains(err.Error(), "interrupted"))
			}, vm.Interrupt)
		}},
		e.fs.engine(e.b, w, "-mode", "abort", "-delay", tableAbortDelay.String()),
	}
	samples, err := takeRounds(engines, tableAbortRounds)
	if err != nil {
		return nil, fmt.Errorf("abort latency: %w", err)
	}
	p50 := tableRow{label: "abort `for(;;){}`: interrupt → call returns, p50 ³", show: showTime}
	p99 := tableRow{label: "abort `for(;;){}`: interrupt → call returns, p99 ³", show: showTime}
	for _, s := range samples {
		p50.cells = append(p50.cells, tableCell{v: float64(percentile(s, 50))})
		p99.cells = append(p99.cells, tableCell{v: float64(percentile(s, 99))})
	}
	return []tableRow{p50, p99}, nil
}

// wantInterrupted returns nil if interrupted, else an error saying what
// err was instead.
func wantInterrupted(err error, interrupted bool) error {
	if interrupted {
		return nil
	}
	return fmt.Errorf("want an interruption, got %v", err)
}

// throughput measures cold runs from two goroutines, as wall time per run,
// shown as runs per second: trivial ones, and the 20-line program (the
// issue's "runs/s from 2 workers" for the realistic program).
func (e *tableEnv) throughput() ([]tableRow, error) {
	var rows []tableRow
	for _, t := range []struct {
		w     workload
		label string
	}{
		{coldRun(), "throughput: `return 1+1` cold runs from 2 goroutines ⁴"},
		{summary(), "throughput: the 20-line program, cold runs from 2 goroutines ⁴"},
	} {
		engines := []engine{
			parallelEngine(coderunEngine(e.rt, t.w), 2, tableWindow),
			parallelEngine(gojaEngine(t.w), 2, tableWindow),
			parallelEngine(moderncEngine(t.w), 2, tableWindow),
			parallelEngine(e.fs.engine(e.b, t.w), 2, tableWindow),
		}
		samples, err := takeRounds(engines, tableThroughputRuns)
		if err != nil {
			return nil, fmt.Errorf("throughput: %w", err)
		}
		row := tableRow{label: t.label, show: showRate}
		for _, s := range samples {
			row.cells = append(row.cells, tableCell{v: float64(median(s))})
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// parallelEngine returns an engine whose sample takes e's samples on n
// goroutines for window and is the wall time per sample completed.
func parallelEngine(e engine, n int, window time.Duration) engine {
	return engine{name: e.name, sample: func() (time.Duration, error) {
		var (
			mu    sync.Mutex
			runs  int
			first error
			wg    sync.WaitGroup
		)
		start := time.Now()
		for range n {
			wg.Go(func() {
				for err := error(nil); err == nil && time.Since(start) < window; {
					_, err = e.sample()
					mu.Lock()
					runs++
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return time.Since(start) / time.Duration(runs), first
	}}
}

// idle measures the memory each run alive and waiting on a binding adds
// (see idleGrowth), for every engine, and reports the medians of
// tableIdleRounds measurements: of runs that hold nothing (idleProgram),
// and of runs of the 20-line program suspended before it returns
// (suspendedProgram).
func (e *tableEnv) idle() ([]tableRow, error) {
	idle, err := e.idleRows(idleProgram)
	if err != nil {
		return nil, err
	}
	alive := fmt.Sprintf("(%d alive, each awaiting a blocked binding)", idleRuns)
	idle[0].label = "Go heap per idle run " + alive + " ⁵"
	idle[1].label = "RSS per idle run " + alive + " ⁵"
	idle[2].label = "PSS per idle run " + alive + " ⁵"
	suspended, err := e.idleRows(suspendedProgram())
	if err != nil {
		return nil, err
	}
	alive = fmt.Sprintf("(%d alive, each awaiting a blocked binding before it returns)", idleRuns)
	suspended[1].label = "RSS per suspended 20-line program " + alive + " ⁵"
	suspended[2].label = "PSS per suspended 20-line program " + alive + " ⁵"
	return []tableRow{idle[0], idle[1], idle[2], suspended[1], suspended[2]}, nil
}

// idleRows measures idleGrowth of p on every engine, tableIdleRounds times
// in rotating order, and returns the rows of the medians of the Go heap,
// the RSS and the PSS growth per run, in that order (labels left to the
// caller).
func (e *tableEnv) idleRows(p workload) ([3]tableRow, error) {
	var rows [3]tableRow
	proc := e.fs.start(e.b, p, "-mode", "idle", "-runs", strconv.Itoa(idleRuns))
	measures := []func() (growth, error){
		func() (growth, error) {
			return idleGrowth(idleRuns, p, func(w workload) (string, error) { return runCoderun(e.rt, w) })
		},
		func() (growth, error) { return idleGrowth(idleRuns, p, runGoja) },
		func() (growth, error) { return idleGrowth(idleRuns, p, runModernc) },
		func() (growth, error) {
			a, err := proc.request()
			if err == nil && (a.HeapBytes == nil || a.RSSBytes == nil || a.PSSBytes == nil) {
				err = fmt.Errorf("fastschema peer answered %+v, want memory figures", a)
			}
			if err != nil {
				return growth{}, err
			}
			return growth{heap: *a.HeapBytes, rss: *a.RSSBytes, pss: *a.PSSBytes}, nil
		},
	}
	samples := make([][3][]time.Duration, len(measures)) // bytes, kept as durations for median
	for round := range tableIdleRounds {
		for k := range measures {
			i := (round + k) % len(measures)
			g, err := measures[i]()
			if err != nil {
				return rows, fmt.Errorf("idle runs, %s: %w", tableEngines[i], err)
			}
			for j, v := range [3]float64{g.heap, g.rss, g.pss} {
				samples[i][j] = append(samples[i][j], time.Duration(v))
			}
		}
	}
	for j := range rows {
		rows[j] = tableRow{show: showBytes}
		for i := range measures {
			rows[j].cells = append(rows[j].cells, tableCell{v: float64(median(samples[i][j]))})
		}
	}
	return rows, nil
}

// newTimes times coderun.New with an empty cache directory and with the
// cache it filled; the peers have no such step.
func (e *tableEnv) newTimes() ([]tableRow, error) {
	dir := e.b.TempDir()
	var cold, warm []time.Duration
	for i := range tableNewRounds {
		d, err := timeNew(dir + "/cold" + strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		cold = append(cold, d)
	}
	if _, err := timeNew(dir + "/warm"); err != nil { // fills the cache
		return nil, err
	}
	for range 2*tableNewRounds - 1 {
		d, err := timeNew(dir + "/warm")
		if err != nil {
			return nil, err
		}
		warm = append(warm, d)
	}
	return []tableRow{coderunOnlyRow("`coderun.New`, empty cache directory ⁶", cold), coderunOnlyRow("`coderun.New`, warm cache ⁶", warm)}, nil
}

// timeNew times coderun.New with the default configuration and cacheDir;
// closing the runtime is not timed.
func timeNew(cacheDir string) (time.Duration, error) {
	cfg := coderun.DefaultConfig()
	cfg.CacheDir = cacheDir
	start := time.Now()
	rt, err := coderun.New(cfg)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	return d, rt.Close(context.Background())
}

// tableNotes are the footnotes of the table, numbered as its labels are.
var tableNotes = []string{
	"Binding calls: the argument crosses to Go as JSON text and the result comes back as JSON text that the engine parses. " +
		"coderun reads `{i}` in place and runs each of these calls on the run's goroutine, as it runs every call that is all its program waits for " +
		"(calls that overlap run on goroutines of their own); goja and modernc run each call on a goroutine of its own, through this package's minimal event loops " +
		"(modernc: `NewPromiseCapability`, settled on the VM's goroutine, then `ExecutePendingJobs`); " +
		"fastschema's `SetAsyncFunc` function resolves its promise before it returns, since its runtime cannot be entered from another goroutine while the script runs.",
	"Each call sleeps 50 ms in Go. fastschema's calls run one after another (see ¹), so its run takes 10 × 50 ms.",
	"From the interruption to the call returning: coderun, cancelling the `Run` ctx (the time includes closing the instance; since 468821f the scrub of its memory is left to the next run, which the row does not time); " +
		"goja, `Runtime.Interrupt`; modernc, `VM.Interrupt`; fastschema, cancelling the `qjs.Option.Context` of a runtime made with " +
		"`CloseOnContextDone` (wazero closes the module), which slows every evaluation down and so is used only for this row. " +
		"The interruption comes 20 ms after the engine was called.",
	"Runs per second from 2 goroutines for 1 s windows, median window; the ratio is coderun's runs/s over the peer's. " +
		"fastschema's runs are taken in its subprocess, two requests at a time, so its figure includes the pipe's round trips (some µs per run).",
	"Growth of the live Go heap, of the resident set (RSS) and of the proportional set size (PSS, `/proc/self/smaps_rollup`) per run, from before the runs started to when all were waiting, after a GC " +
		"and `debug.FreeOSMemory` each time; median of 3. coderun's linear memories and modernc's C heap are outside the Go heap. " +
		"RSS counts a page once for every mapping of it; PSS divides a shared page among its mappings, so it is what the runs take from the machine: " +
		"the two differ for coderun only, whose runs map the snapshot's image from one shared file and own only the pages they write. " +
		"fastschema's figures are its subprocess's own (its runtimes wait inside the host function, which blocks).",
	"Only coderun has a step before its first run: the peers show \"–\". `coderun.New` rewrites the QuickJS module, builds the snapshot and compiles it when the cache is empty.",
	"The same cold runs taken in blocks of 10 consecutive runs per engine, the blocks interleaved (every sample counts, the first of each block too): each engine's runs follow its own, as on a server that runs one engine. " +
		"In the interleaved row above, a coderun run often follows a fastschema sample, which runs for 3 ms in a subprocess while this process waits on a pipe; " +
		"on this VM a run that follows 3 ms of idle takes about twice as long (a 3 ms sleep in place of the fastschema sample does the same), and the subprocess's work evicts caches besides.",
	"Only coderun keeps a pool of instances made ahead of time (the peers show \"–\"): a runtime of its own with `Prewarm: 2`, 400 runs, " +
		"each after 5 ms of idle in which the pool refills, as on a machine that is otherwise idle. " +
		"Every run still gets an instance that has never run anything; the idle pause leaves caches cold, which the row includes.",
	"coderun compiles a program text once (TypeScript to JavaScript with esbuild, then to QuickJS bytecode) and keeps both for its later runs, " +
		"which the row above measures; here every coderun run gets a text it has not seen (the program with a numbered comment appended), " +
		"as a run of an agent's new program does. The peers compile their script in every run, in both rows.",
}

// tableHeading is the line above the table: when, where, under what load.
func tableHeading(load string) string {
	commit := "unknown commit"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = "commit " + strings.TrimSpace(string(out))
		if out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err != nil || len(out) > 0 {
			commit += " (plus uncommitted changes)"
		}
	}
	return fmt.Sprintf("Measured %s at %s, %s, %s/%s, %d CPUs, load average %s (1 min, start → end).",
		time.Now().Format("2006-01-02"), commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), load)
}

// loadAverage returns the 1-minute load average, or "?".
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(raw)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// renderTable renders rows as a Markdown table under heading, followed by
// the notes.
func renderTable(rows []tableRow, heading string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s\n\n| workload | %s |", heading, strings.Join(tableEngines, " | "))
	for _, peer := range tableEngines[1:] {
		fmt.Fprintf(&s, " %s/coderun |", peer)
	}
	s.WriteString("\n|---|" + strings.Repeat("---:|", 2*len(tableEngines)-1) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&s, "| %s |", r.label)
		for _, c := range r.cells {
			if c.ok() {
				fmt.Fprintf(&s, " %s |", r.show(c.v))
			} else {
				fmt.Fprintf(&s, " %s |", c.note)
			}
		}
		for _, c := range r.cells[1:] {
			if base := r.cells[0]; c.ok() && base.ok() && base.v > 0 {
				fmt.Fprintf(&s, " %s |", showRatio(c.v/base.v))
			} else {
				s.WriteString(" – |")
			}
		}
		s.WriteByte('\n')
	}
	s.WriteString("\nRatios are peer/coderun of the cost (time, time per run, bytes): above 1, coderun is better by that factor.\n\n")
	for i, n := range tableNotes {
		fmt.Fprintf(&s, "%d. %s\n", i+1, n)
	}
	return s.String()
}

// showTime renders nanoseconds with three significant digits.
func showTime(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d < time.Millisecond:
		return sig3(ns/1e3) + " µs"
	case d < time.Second:
		return sig3(ns/1e6) + " ms"
	}
	return sig3(ns/1e9) + " s"
}

// showRate renders a time per run in nanoseconds as runs per second.
func showRate(ns float64) string {
	return thousands(int64(1e9/ns+0.5)) + " runs/s"
}

// showBytes renders bytes in KiB.
func showBytes(n float64) string { return thousands(int64(n/1024+0.5)) + " KiB" }

// showRatio renders a ratio with three significant digits.
func showRatio(r float64) string { return sig3(r) }

// sig3 renders x ≥ 0 with three significant digits, without an exponent.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return thousands(int64(x + 0.5))
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// thousands renders n with a comma between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
