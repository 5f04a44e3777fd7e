package quickjs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/wasm"
	"github.com/stretchr/testify/require"
)

type nopHost struct{ writes []string }

func (h *nopHost) Call(in *Instance, args []Value) Value    { return Undefined }
func (h *nopHost) Write(fd uint32, p []byte)                { h.writes = append(h.writes, string(p)) }
func (h *nopHost) Sleep(d time.Duration)                    {}
func (h *nopHost) Exit(code uint32)                         {}
func (h *nopHost) FuelYield(in *Instance, left int64) int64 { return 1 << 40 }

func TestEvalAndLayout(t *testing.T) {
	ctx := context.Background()
	m, err := wasm.Decode(wasm.QuickJS())
	require.NoError(t, err)
	require.NoError(t, wasm.ExportStdLoop(m)) // the one pass Instantiate needs
	bin, err := m.Encode()
	require.NoError(t, err)
	e, err := NewEngine(ctx, Options{Wasm: bin, MemoryLimitPages: 1024})
	require.NoError(t, err)
	defer e.Close(ctx)
	in, err := e.Instantiate(ctx, &nopHost{})
	require.NoError(t, err)
	defer in.Close(ctx)
	require.NoError(t, in.Init(InitOptions{StackMargin: 8 << 10}))
	require.Equal(t, Layout{StackSize: 120, StackLimit: 128, CurrentException: 136, InterruptHandler: 152, StringChars: 20}, in.Layout())
	v, err := in.Eval(`JSON.stringify({a: [1, 2, "€"]})`, "t.js", EvalGlobal)
	require.NoError(t, err)
	s, err := in.String(v)
	require.NoError(t, err)
	require.Equal(t, `{"a":[1,2,"€"]}`, s)
	v, err = in.Eval(`function f(){ return f() } try { f() } catch (e) { String(e) }`, "t.js", EvalGlobal)
	require.NoError(t, err)
	s, err = in.String(v)
	require.NoError(t, err)
	require.Equal(t, "RangeError: Maximum call stack size exceeded", s)

	// Call runs no jobs; RunJobs runs them all, in order.
	fn, err := in.Eval(`globalThis.order = []; (function () { Promise.resolve().then(() => order.push(1)).then(() => order.push(2)); order.push(0) })`, "t.js", EvalGlobal)
	require.NoError(t, err)
	show, err := in.Eval(`(function () { return String(order) })`, "t.js", EvalGlobal)
	require.NoError(t, err)
	_, err = in.Call(fn, Undefined)
	require.NoError(t, err)
	v, err = in.Call(show, Undefined)
	require.NoError(t, err)
	s, err = in.String(v)
	require.NoError(t, err)
	require.Equal(t, "0", s)
	exc, err := in.RunJobs()
	require.NoError(t, err)
	require.False(t, exc)
	v, err = in.Call(show, Undefined)
	require.NoError(t, err)
	s, err = in.String(v)
	require.NoError(t, err)
	require.Equal(t, "0,1,2", s)
}

// ViewString reads ASCII strings in place and converts every other string
// through QJS_ToCString; both ways give the same WTF-8 bytes.
func TestViewString(t *testing.T) {
	ctx := context.Background()
	m, err := wasm.Decode(wasm.QuickJS())
	require.NoError(t, err)
	require.NoError(t, wasm.ExportStdLoop(m))
	bin, err := m.Encode()
	require.NoError(t, err)
	e, err := NewEngine(ctx, Options{Wasm: bin, MemoryLimitPages: 1024})
	require.NoError(t, err)
	defer e.Close(ctx)
	in, err := e.Instantiate(ctx, &nopHost{})
	require.NoError(t, err)
	defer in.Close(ctx)
	require.NoError(t, in.Init(InitOptions{StackMargin: 8 << 10}))
	require.NotZero(t, in.Layout().StringChars)

	for _, tc := range []struct {
		name, src, want string
		inPlace         bool
	}{
		{"ascii", `'{"q":"go","n":[1,2]}'`, `{"q":"go","n":[1,2]}`, true},
		{"empty", `''`, ``, true},
		{"concatenated", `let s = ''; for (let i = 0; i < 100; i++) s += 'ab' + i; s`, "", true},
		{"long", `'x'.repeat(1 << 20)`, strings.Repeat("x", 1<<20), true},
		{"latin1", `'caf\u00e9'`, "café", false},
		{"wide", `'\u20ac1'`, "€1", false},
		{"lone surrogate", `'a\ud800'`, "a\xed\xa0\x80", false},
		{"number", `42`, "42", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := in.Eval(tc.src, "t.js", EvalGlobal)
			require.NoError(t, err)
			defer in.FreeValue(v)
			_, inPlace := in.asciiChars(v)
			require.Equal(t, tc.inPlace, inPlace)
			fast, err := in.String(v)
			require.NoError(t, err)
			chars := in.layout.StringChars
			in.layout.StringChars = 0
			slow, err := in.String(v)
			in.layout.StringChars = chars
			require.NoError(t, err)
			require.Equal(t, slow, fast)
			if tc.want != "" {
				require.Equal(t, tc.want, fast)
			}
		})
	}
}
