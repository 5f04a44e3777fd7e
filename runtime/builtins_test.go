package runtime

import (
	"strconv"
	"strings"
	"testing"

	"github.com/coderun/coderun/budget"
	"github.com/stretchr/testify/require"
)

// builtinWork lists engine builtins whose work grows with an argument, each
// run on n units of input ($n in the program stands for n): the fuel it
// charges must be at least n*per4096/4096, a quarter or less of what it was
// measured to charge (docs/builtins.md has the figures, with the fuel per
// millisecond and the time each takes to stop after a cancel). Fuel is what
// makes a builtin stop when asked: the host sees a cancel, a deadline or a
// spent budget at a fuel check, and a check comes with every charge.
var builtinWork = []struct {
	name, program string
	n             int
	per4096       int // fuel units per 4,096 units of input, at least
}{
	{"padEnd", `return ''.padEnd($n, 'ab').length`, 1 << 22, 512},
	{"padStart", `return ''.padStart($n, 'ab').length`, 1 << 22, 512},
	{"padEnd one char", `return ''.padEnd($n, 'a').length`, 1 << 22, 1024},
	{"repeat", `return 'ab'.repeat($n / 2).length`, 1 << 22, 512},
	{"Array.prototype.join", `const a = Array.from({length: $n}, (_, i) => i); return a.join(',').length`, 1 << 18, 8192},
	{"Array(n).fill", `return new Array($n).fill(0).length`, 1 << 20, 3072},
	{"Array.prototype.copyWithin", `const a = new Array($n).fill(0); return a.copyWithin(0, 1).length`, 1 << 20, 4096},
	{"Array.prototype.indexOf", `const a = new Array($n).fill(0); return a.indexOf(1)`, 1 << 20, 4096},
	{"Array.prototype.includes", `const a = new Array($n).fill(0); return a.includes(1)`, 1 << 20, 4096},
	{"Array.prototype.sort", `const a = Array.from({length: $n}, (_, i) => i * 7919 % $n); return a.sort().length`, 1 << 16, 65536},
	{"Array.from", `return Array.from({length: $n}).length`, 1 << 19, 3072},
	{"array spread", `const a = new Array($n).fill(0); return [...a].length`, 1 << 20, 4096},
	{"String.prototype.normalize", `return '\u00e9'.repeat($n).normalize('NFD').length`, 1 << 18, 8192},
	{"String.prototype.localeCompare", `const s = 'a'.repeat($n), t = 'a'.repeat($n); return s.localeCompare(t)`, 1 << 20, 7168},
	{"String.prototype.replaceAll", `return 'a'.repeat($n).replaceAll('a', 'bc').length`, 1 << 19, 3072},
	{"String.prototype.split", `return 'a'.repeat($n).split('').length`, 1 << 19, 3072},
	{"String.raw", `return String.raw({raw: Array.from({length: $n}, () => 'x')}).length`, 1 << 18, 5120},
	{"String.prototype.indexOf", `return 'a'.repeat($n).indexOf('b')`, 1 << 22, 2048},
	{"string comparison", `const s = 'a'.repeat($n), t = 'a'.repeat($n); return s < t`, 1 << 22, 3072},
	{"TypedArray fill", `return new Uint8Array($n).fill(1).length`, 1 << 24, 12},
	{"TypedArray set", `const u = new Uint8Array($n); u.set(new Uint8Array($n).fill(1)); return u.length`, 1 << 24, 24},
	{"TypedArray slice", `return new Uint8Array($n).fill(1).slice().length`, 1 << 24, 24},
	{"TypedArray indexOf", `return new Uint8Array($n).indexOf(1)`, 1 << 24, 256},
	{"TypedArray join", `return new Uint8Array($n).join(',').length`, 1 << 18, 1024},
	{"TypedArray sort", `return new Float64Array($n).map((_, i) => i * 7919 % $n).sort().length`, 1 << 17, 16384},
	{"ArrayBuffer.prototype.slice", `return new ArrayBuffer($n).slice(0).byteLength`, 1 << 24, 20},
	{"JSON.stringify", `return JSON.stringify(Array.from({length: $n}, (_, i) => ({i}))).length`, 1 << 16, 4096},
	{"JSON.parse", `const j = JSON.stringify(Array.from({length: $n}, (_, i) => ({i}))); return JSON.parse(j).length`, 1 << 16, 4096},
	{"RegExp on a huge input", `return /b/.exec('a'.repeat($n))`, 1 << 22, 8192},
	{"BigInt multiplication", `const x = 3n ** BigInt($n); return String(x * x % 7n)`, 1 << 16, 65536},
	{"BigInt toString", `return (3n ** BigInt($n)).toString().length`, 1 << 14, 16384},
}

// A builtin is charged fuel in proportion to its input.
func TestBuiltinFuelIsProportional(t *testing.T) {
	if raceEnabled {
		t.Skip("fuel is counted on the run's own goroutine: -race finds nothing there (scripts/test runs it without)")
	}
	e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes = 512 << 20 })
	for _, tc := range builtinWork {
		t.Run(tc.name, func(t *testing.T) {
			o := mustRun(t, e, strings.ReplaceAll(tc.program, "$n", strconv.Itoa(tc.n)))
			require.Empty(t, o.Kind, o.Message)
			t.Logf("fuel %d for n = %d (%.2f per unit)", o.FuelUsed, tc.n, float64(o.FuelUsed)/float64(tc.n))
			require.GreaterOrEqual(t, o.FuelUsed, uint64(tc.n*tc.per4096/4096))
		})
	}
}

// A fuel budget smaller than a builtin's charge stops the builtin part way:
// the run ends as a fuel timeout, having spent no more than its budget and
// one charge (an interrupt poll's, the largest) and the unwinding's slice.
func TestBuiltinStopsAtItsFuelBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("a fuel budget trips on the run's own goroutine: -race finds nothing there (scripts/test runs it without)")
	}
	for _, tc := range builtinWork {
		t.Run(tc.name, func(t *testing.T) {
			fuel := uint64(tc.n*tc.per4096/4096) / 2
			e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes, l.Fuel = 512<<20, fuel })
			o := mustRun(t, e, strings.ReplaceAll(tc.program, "$n", strconv.Itoa(tc.n)))
			require.Equal(t, KindTimeout, o.Kind, o.Message)
			require.Equal(t, budget.FuelMessage(fuel), o.Message)
			require.LessOrEqual(t, o.FuelUsed, fuel+budget.InterruptCost+haltSlice)
		})
	}
}

// An allocation a builtin makes in one piece (a 512 MiB string buffer or
// ArrayBuffer) is charged as the memory grows, 1 MiB at a time, so a small
// fuel budget stops it before the memory is there: the grow is no longer
// one step that the host must wait out (it took 94–280 ms).
func TestBigAllocationStopsAtItsFuelBudget(t *testing.T) {
	const fuel = 100_000
	e := testEngineWith(t, func(l *budget.Limits) { l.MemoryBytes, l.Fuel = 1<<30, fuel })
	for _, program := range []string{
		`return ''.padEnd(2**29, 'ab').length`,
		`return ''.padStart(2**29, 'ab').length`,
		`return 'a'.repeat(2**29).length`,
		`return new ArrayBuffer(2**29).byteLength`,
		`return new Uint8Array(2**29).length`,
		`let n = 0; for (let i = 0; i < 10; i++) n += ''.padEnd(2**27, 'ab').length; return n`,
	} {
		t.Run(program, func(t *testing.T) {
			o := mustRun(t, e, program)
			require.Equal(t, KindTimeout, o.Kind, o.Message)
			require.Equal(t, budget.FuelMessage(fuel), o.Message)
			require.Less(t, o.PeakMemory, int64(64<<20), "memory grown before the fuel check")
		})
	}
}
