package coderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
)

// Request.Input is the program's global `input`: lossless JSON, as a
// binding's result is, read exactly; deeply frozen; undefined without one.
func TestInputValues(t *testing.T) {
	rt := newRuntime(t, nil)
	tests := []struct {
		name    string
		input   string
		program string
		value   string // the program's value, compact JSON
		failure string // or the start of its exception's message
	}{
		{"object", `{"city": "Paris", "days": 3}`, "return input", `{"city":"Paris","days":3}`, ""},
		{"array", `[1, "two", true, null]`, "return input", `[1,"two",true,null]`, ""},
		{"nested", `{"a": {"b": [{"c": [1, {"d": "e"}]}]}}`, "return input.a.b[0].c[1].d", `"e"`, ""},
		{"numbers up to 2^53", `[9007199254740992, -9007199254740992, 1.5, 1e-300, 0.1]`,
			"return input.map(n => typeof n)", `["number","number","number","number","number"]`, ""},
		{"2^53 exactly", `9007199254740992`, "return input === 2 ** 53", `true`, ""},
		{"unicode", `"h\u00e9llo, 世界 😀 \ud83d\ude00"`, "return [input, input.length]", `["héllo, 世界 😀 😀",15]`, ""},
		{"__proto__ is a key", `{"__proto__": {"x": 1}}`, "return [Object.keys(input), Object.getPrototypeOf(input) === Object.prototype, 'x' in input]",
			`[["__proto__"],true,false]`, ""},
		{"null", `null`, "return [input === null, typeof input]", `[true,"object"]`, ""},
		{"string", `"text"`, "return input.toUpperCase()", `"TEXT"`, ""},
		{"whitespace around", " \n\t 42 \n", "return input + 1", `43`, ""},
		{"absent", ``, "return [typeof input, input === undefined, 'input' in globalThis]", `["undefined",true,true]`, ""},
		{"deeply frozen", `{"a": [{"b": {}}], "c": []}`,
			"return [input, input.a, input.a[0], input.a[0].b, input.c].every(Object.isFrozen)", `true`, ""},
		{"assigning the global", `{"a": 1}`, "input = {}", "", "TypeError: 'input' is read-only"},
		{"assigning the global without input", ``, "input = {}", "", "TypeError: 'input' is read-only"},
		{"assigning a member", `{"a": 1}`, "input.a = 2", "", "TypeError: 'a' is read-only"},
		{"adding a member", `{"a": 1}`, "input.b = 2", "", "TypeError: object is not extensible"},
		{"pushing", `[1]`, "input.push(2)", "", "TypeError: object is not extensible"},
		{"deleting the global", `1`, "delete globalThis.input", "", "TypeError: could not delete property"},
		{"shadowed", `1`, "const input = 2\nreturn input", `2`, ""},
		{"copies are the program's", `{"xs": [3, 1, 2]}`, "const xs = [...input.xs].sort()\nxs.push(4)\nreturn xs", `[1,2,3,4]`, ""},
		{"structuredClone thaws", `{"a": [1]}`, "const c = structuredClone(input)\nc.a.push(2)\nreturn c", `{"a":[1,2]}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := rt.Run(context.Background(), coderun.Request{Program: tc.program, Input: json.RawMessage(tc.input)})
			require.NoError(t, err)
			if tc.failure != "" {
				require.NotNil(t, res.Error)
				require.Equal(t, coderun.Exception, res.Error.Kind)
				require.True(t, strings.HasPrefix(res.Error.Message, tc.failure), res.Error.Message)
				return
			}
			require.NoError(t, res.Err())
			require.Equal(t, tc.value, string(res.Value))
		})
	}
}

// An input too big for Config.MaxInputBytes, or not lossless JSON, is the
// caller's misuse: Run returns an error wrapping ErrInvalidInput, saying
// what is wrong and where, and runs nothing (not even with a cancelled ctx).
func TestInputMisuse(t *testing.T) {
	cfg := coderun.DefaultConfig()
	cfg.MaxInputBytes = 100
	rt := newRuntimeConfig(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct{ name, input, want string }{
		{"over the limit", `"` + strings.Repeat("x", 99) + `"`,
			"coderun: invalid Request.Input: it is 101 bytes, over the limit of 100 bytes (Config.MaxInputBytes)"},
		{"invalid JSON", `{"a": 1,}`, "coderun: invalid Request.Input: it must be lossless JSON, as a binding's result must: invalid JSON"},
		{"two values", `1 2`, "invalid JSON"},
		{"integer beyond 2^53", `{"id": 9007199254740993}`, "integer beyond ±2^53: 9007199254740993 at offset 7"},
		{"duplicate key", `{"a": 1, "a": 2}`, `duplicate key "a" at offset 9`},
		{"negative zero", `[-0]`, "negative zero"},
		{"beyond 2^53 in any notation", `1e300`, "integer beyond ±2^53: 1e300 at offset 0"},
		{"overflow", `1e999`, "number overflows float64"},
		{"lone surrogate", `"\udc00"`, "lone surrogate escape"},
		{"only whitespace", "   ", "invalid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []context.Context{context.Background(), ctx} {
				res, err := rt.Run(c, coderun.Request{Program: "return 1", Input: json.RawMessage(tc.input)})
				require.ErrorIs(t, err, coderun.ErrInvalidInput)
				require.ErrorContains(t, err, tc.want)
				require.False(t, errors.Is(err, coderun.ErrInvalidBinding))
				require.Equal(t, coderun.Result{}, res)
			}
		})
	}
	res, err := rt.Run(context.Background(), coderun.Request{Program: "return input.length", Input: json.RawMessage(`"` + strings.Repeat("x", 98) + `"`)})
	require.NoError(t, err)
	require.Equal(t, "98", string(res.Value), "an input of exactly MaxInputBytes runs")
}

// New validates MaxInputBytes; its default, which a zero field takes, is
// 1 MiB.
func TestMaxInputBytesConfig(t *testing.T) {
	require.EqualValues(t, 1<<20, coderun.DefaultConfig().MaxInputBytes)
	cfg := coderun.DefaultConfig()
	cfg.MaxInputBytes = -1
	_, err := coderun.New(cfg)
	require.EqualError(t, err, "coderun: Config.MaxInputBytes must be positive, got -1")
	cfg.MaxInputBytes = 0
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	_, err = rt.Run(context.Background(), coderun.Request{Program: "return 1", Input: json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)})
	require.ErrorIs(t, err, coderun.ErrInvalidInput, "the default of 1 MiB applies")
}

// The input's value lives in the run's memory: one too big for MemoryBytes
// ends the run as worker-exit, naming the input and the limit, and counts
// in Usage.PeakMemoryBytes.
func TestInputCountsInMemory(t *testing.T) {
	cfg := coderun.DefaultConfig()
	cfg.MemoryBytes, cfg.MaxInputBytes = 32<<20, 8<<20
	rt := newRuntimeConfig(t, cfg)
	small, err := rt.Run(context.Background(), coderun.Request{Program: "return input.length", Input: json.RawMessage(`[1]`)})
	require.NoError(t, err)
	require.NoError(t, small.Err())
	big := json.RawMessage("[" + strings.Repeat(`"abcdefghijklmnopqrstuvwxyz",`, 20_000) + "0]")
	res, err := rt.Run(context.Background(), coderun.Request{Program: "return input.length", Input: big})
	require.NoError(t, err)
	require.NoError(t, res.Err())
	require.Greater(t, res.Usage.PeakMemoryBytes, small.Usage.PeakMemoryBytes+int64(len(big)), "the text and the value are counted")
	huge := json.RawMessage("[" + strings.Repeat(`{},`, 1_000_000) + "{}]")
	res, err = rt.Run(context.Background(), coderun.Request{Program: "return input.length", Input: huge})
	require.NoError(t, err)
	require.NotNil(t, res.Error)
	require.Equal(t, coderun.WorkerExit, res.Error.Kind)
	require.Equal(t, coderun.BudgetMemory, res.Error.Budget)
	require.Contains(t, res.Error.Message, "memory limit of 32 MiB exceeded (MemoryBytes): the run's input (Request.Input, 3000004 bytes of JSON)")
}

// A namespace cannot be called input: the program's input has that name.
func TestInputIsReserved(t *testing.T) {
	rt := newRuntime(t, nil)
	_, err := rt.Run(context.Background(), coderun.Request{Program: "return 1", Bindings: []coderun.Namespace{{Global: "input"}}})
	require.ErrorIs(t, err, coderun.ErrInvalidBinding)
	require.ErrorContains(t, err, `reserved binding global "input"`)
}
