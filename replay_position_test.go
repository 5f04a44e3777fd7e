package coderun_test

import (
	"context"
	"testing"
	"time"

	"github.com/coderun/coderun"
)

// A replay that diverges at any kind of input names where in the user's
// TypeScript source the program met it (the position its innermost frame
// is at, as an error's stack shows it: mapped through the source map, so
// that the erased interface and type annotations do not shift it), or
// says that the program was waiting, at no position, when the divergence
// is in what a turn delivers.
func TestReplayDivergencePosition(t *testing.T) {
	rt := newRuntimeConfig(t, coderun.DefaultConfig())
	const waiting = "(at no position in the program: it was waiting for its calls and timers, and which of them a turn delivers is the host's doing)"
	tests := []struct {
		name, recorded, edited string
		message                []string // nil: the edited program replays to value
		value                  string
	}{
		{"clock: Date.now", `return Date.now()`,
			"interface Span { ms: number }\nconst a: number = Date.now();\nconst b: Span = { ms: Date.now() - a };\nreturn b",
			[]string{"replay diverged: the program read the clock, but the recording's trace ends there", "(at program.ts:3:28)"}, ""},
		{"clock: performance.now", `return performance.now()`,
			"const a: number = performance.now();\n  let b: number = performance.now();",
			[]string{"the program read the clock", "(at program.ts:2:31)"}, ""},
		{"clock: new Date", `return new Date().getTime()`,
			"const a: Date = new Date();\nconst b: Date = new Date();",
			[]string{"the program read the clock", "(at program.ts:2:21)"}, ""},
		{"clock: where the recording called", `return await tools.get(1)`,
			"type Id = number;\nconst t: Id = Date.now();",
			[]string{"the program read the clock, but the recording made call 1, tools.get", "(at program.ts:2:20)"}, ""},
		{"clock: in a timer's callback, the callback's position", `await new Promise(r => setTimeout(r, 1)); return Date.now()`,
			"await new Promise<void>(r => setTimeout(() => {\n  Date.now();\n  const late: number = Date.now();\n  r();\n}, 1));",
			[]string{"the program read the clock", "(at program.ts:3:29)"}, ""},
		{"clock: under Error.stackTraceLimit 0", `return Date.now()`,
			"Error.stackTraceLimit = 0;\nDate.now(); Date.now();",
			[]string{"the program read the clock", "(at program.ts:2:18)"}, ""},
		{"random: crypto.getRandomValues", `return crypto.getRandomValues(new Uint8Array(4))[0]`,
			"const a: Uint8Array = crypto.getRandomValues(new Uint8Array(4));\nconst b = crypto.getRandomValues(new Uint8Array(8));",
			[]string{"the program read 8 random bytes, but the recording's trace ends there", "(at program.ts:2:38)"}, ""},
		{"random: crypto.randomUUID", `return crypto.randomUUID()`,
			"const a: string = crypto.randomUUID();\nconst b: string = crypto.randomUUID();",
			[]string{"the program read 16 random bytes", "(at program.ts:2:26)"}, ""},
		{"random: Math.random draws from the recorded seed, never diverges", `return Math.random()`,
			"return [Math.random(), Math.random()].length", nil, "2"},
		{"zone: in the innermost frame", `return new Date(0).toLocaleString("en-US", {timeZone: "Asia/Tokyo"})`,
			"const f = (z: string): string => new Date(0).toLocaleString(\"en-US\", {timeZone: z});\nf(\"Asia/Tokyo\");\nreturn f(\"Europe/Paris\")",
			[]string{`the program read the time zone "Europe/Paris", but the recording's trace ends there`, "(at program.ts:1:81)"}, ""},
		{"call", `return await tools.get(1)`,
			"const x: unknown = await tools.get(1);\nawait tools.get(2);",
			[]string{"the program made call 2, tools.get with argument sha256:", "(at program.ts:2:13)"}, ""},
		{"timer: fired for a timer the program cleared", `await new Promise(r => setTimeout(r, 1)); return 1`,
			"const t = setTimeout(() => {}, 1);\nclearTimeout(t);\nawait new Promise(r => setTimeout(r, 5));",
			[]string{"replay diverged at turn 1: the recording fired timer 1, which the program has not set or has cleared", waiting}, ""},
		{"turn: the program waits where the recording read the clock", `await tools.get(1); return Date.now()`,
			"await tools.get(1);\nawait new Promise(r => setTimeout(r, 5));",
			[]string{"the program waited for its calls and timers, but the recording read the clock there", waiting}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, tr := recordCase(t, rt, replayCase{program: tc.recorded}, time.Millisecond)
			got, err := rt.Replay(context.Background(), tr, coderun.ReplayOptions{Program: tc.edited})
			requireReplayed(t, got, err, tc.value, tc.message)
		})
	}
}
