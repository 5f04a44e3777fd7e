package transpile

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

// nodeTruth runs src, plain JavaScript, in node as the body of coderun's wrapper function, as
// the user wrote it (no esbuild), and returns what nodeRun would.
func nodeTruth(t *testing.T, src string) string {
	t.Helper()
	script := "const f = " + inputHeader + src + inputFooter + ";\n" +
		"f().then(v => process.stdout.write(String(JSON.stringify(v))), " +
		"e => process.stdout.write('threw: ' + e.stack));\n"
	path := filepath.Join(t.TempDir(), "truth.js")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o600))
	out, err := exec.Command("node", path).CombinedOutput()
	require.NoError(t, err, "node: %s\n%s", out, script)
	return string(out)
}

// namesCases are programs whose bindings esbuild renames. Each is plain JavaScript, so that
// node can run it as written; want is its value, with the names the program wrote.
var namesCases = []struct {
	name, src, want string
	outcome         namesOutcome
	// esbuild is the value of esbuild's output, with its names (the bug), when it differs.
	esbuild string
}{
	{name: "const arrow in a block",
		src:  "const load = () => 1\n{ const load = () => 2; return [load(), load.name] }",
		want: `[2,"load"]`, outcome: namesFast, esbuild: `[2,"load2"]`},
	{name: "nested function declaration",
		src:  "function load() { return 1 }\nfunction outer() { function load() { return 2 } return load }\nreturn [outer()(), outer().name, load.name]",
		want: `[2,"load","load"]`, outcome: namesFast, esbuild: `[2,"load2","load"]`},
	{name: "function declaration in a block, called before it",
		src:  "function f() {}\n{ const r = f(); function f() { return f.name } return r }",
		want: `"f"`, outcome: namesFast, esbuild: `"f2"`},
	{name: "class declaration in a block",
		src:  "class C {}\n{ class C { static n() { return C.name } } return [C.name, C.n()] }",
		want: `["C","C"]`, outcome: namesFast, esbuild: `["C2","C2"]`},
	{name: "class expression's own name",
		src:  "const C = 1\n{ const D = class C { static n() { return C.name } }; return [D.name, D.n()] }",
		want: `["C","C"]`, outcome: namesFast, esbuild: `["C2","C2"]`},
	{name: "catch parameter",
		src:  "const e = () => 0\ntry { throw () => 1 } catch (e) { const g = e; return [g(), e.name] }",
		want: `[1,""]`, outcome: namesFast},
	{name: "parameter default named like an outer function",
		src:  "function load() {}\nfunction run(load = () => 0) { return load.name }\nreturn run()",
		want: `"load"`, outcome: namesFast, esbuild: `"load2"`},
	{name: "arrow parameter",
		src:  "const item = 0\nreturn [1, 2].map(item => { const get = () => item; return get() + item })",
		want: `[2,4]`, outcome: namesFast},
	{name: "coderun's own name at the top level and nested",
		src:  "const __dsh_main__ = () => 1\nfunction f() { const __dsh_main__ = () => 2; return __dsh_main__.name }\nreturn [__dsh_main__.name, f(), __dsh_main__()]",
		want: `["__dsh_main__","__dsh_main__",1]`, outcome: namesFast, esbuild: `["__dsh_main__2","__dsh_main__3",1]`},
	{name: "a global the program uses",
		src:  "function f() { const Math = () => 0; return Math.name }\nreturn [f(), Math.max(1, 2)]",
		want: `["Math",2]`, outcome: namesFast, esbuild: `["Math2",2]`},
	{name: "esbuild's helper names",
		src:  "const __name = (f, n) => f, __defProp = 1\n{ const __name = () => 0; const __defProp = function () {}; return [__name.name, __defProp.name] }",
		want: `["__name","__defProp"]`, outcome: namesFast, esbuild: `["__name2","__defProp2"]`},
	{name: "destructuring",
		src:  "const x = 1\n{ const { x = () => 2 } = {}; let y; ({ x: y } = { x: 3 }); return [x(), x.name, y] }",
		want: `[2,"x",3]`, outcome: namesFast, esbuild: `[2,"x2",3]`},
	{name: "private names of nested classes",
		src:  "class A { #x = 1; m() { class B { #x = 2; get() { return this.#x } } return [this.#x, new B().get()] } }\nreturn new A().m()",
		want: `[1,2]`, outcome: namesFast},
	{name: "temporal dead zone message",
		src:  "const load = 1\n{ try { load; const load = 2 } catch (e) { return e.message } }",
		want: `"Cannot access 'load' before initialization"`, outcome: namesFast,
		esbuild: `"Cannot access 'load2' before initialization"`},
	{name: "the new name in a string",
		src:  "const x = 1\n{ const x = () => 2; return [x.name, 'x2'] }",
		want: `["x","x2"]`, outcome: namesVerified, esbuild: `["x2","x2"]`},
	{name: "a property named like the new name",
		src:  "const x = 1\n{ const x = () => 2; const o = { x2: 5 }; return [x.name, o.x2] }",
		want: `["x",5]`, outcome: namesVerified, esbuild: `["x2",5]`},
	{name: "a name that ends in a digit",
		src:  "const v1 = 1\n{ const v1 = () => 2; return [v1.name, v1()] }",
		want: `["v1",2]`, outcome: namesVerified, esbuild: `["v12",2]`},
	{name: "a key the user wrote like the new name (shorthand in esbuild's output)",
		src:  "const load = 1\n{ const load = () => 2; const o = { load2: load }; return [o.load2(), load.name, Object.keys(o)] }",
		want: `[2,"load",["load2"]]`, outcome: namesVerified, esbuild: `[2,"load2",["load2"]]`},
	{name: "a pattern key the user wrote like the new name",
		src:  "const load = 1\n{ const { load2: load } = { load2: () => 3 }; return [load(), load.name] }",
		want: `[3,"load2"]`, outcome: namesVerified},
	{name: "a user's binding named like the new name",
		src:  "const a = 1\n{ const a = () => 0; { const a2 = () => 1; return [a.name, a2.name, a2()] } }",
		want: `["a","a2",1]`, outcome: namesVerified, esbuild: `["a2","a22",1]`},
	{name: "non-ASCII names keep esbuild's",
		src:  "const é = 1\n{ const é = () => 2; return é() }",
		want: `2`, outcome: namesKept},
	{name: "nothing renamed",
		src: "const f = function g() {}; const o = { m() {}, get p() { return 1 }, [Symbol.iterator]() {} }\n" +
			"return [f.name, o.m.name, Object.getOwnPropertyDescriptor(o, 'p').get.name, o[Symbol.iterator].name, (() => {}).name]",
		want: `["g","m","get p","[Symbol.iterator]",""]`, outcome: namesNone},
}

// TestRestoreNames: the compiled program has the names the user wrote, behaves as the program
// as written (node runs both), and takes the expected path.
func TestRestoreNames(t *testing.T) {
	for _, tt := range namesCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := compileESBuild(t.Context(), tt.src)
			require.NoError(t, err)
			require.Equal(t, tt.outcome, p.names, "outcome\n%s", p.JS())
			require.Equal(t, tt.want, nodeRun(t, p, nil, nil), p.JS())
			require.Equal(t, tt.want, nodeTruth(t, tt.src))
			if tt.esbuild != "" {
				// Without restoring, esbuild's names show.
				p, err := CompileContext(t.Context(), tt.src, Options{keepRenamed: true, esbuildOutput: true})
				require.NoError(t, err)
				require.Equal(t, tt.esbuild, nodeRun(t, p, nil, nil))
			}
		})
	}
}

// TestRestoreNamesPositions: positions after a restored name on its line (shorter, or longer
// for a shorthand property) still map to the user's source.
func TestRestoreNamesPositions(t *testing.T) {
	tests := []struct {
		name, src, needle string
		line, col         int
	}{
		{"shorter", "const xs = 1\n{ const xs = () => 1; const yy = 2; throw new Error(String(xs) + yy) }", "yy)", 2, 66},
		{"shorter, throw", "const xs = 1\n{ const xs = () => 1; const yy = 2; throw new Error(String(xs) + yy) }", "throw", 2, 37},
		{"many on one line", "const a = 1, b = 2\n{ const a = 3, b = 4; if (a + b) throw new RangeError('r') }", "RangeError", 2, 44},
		{"longer (shorthand)", "const load = 1\n{ const load = 2; const o = { load2: load }; throw new Error('e' + o) }", "\"e\"", 2, 62},
		{"second line of a template", "const t = 1\n{ const t = `a\nb`; null.x }", "null.x", 3, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := compileESBuild(t.Context(), tt.src)
			require.NoError(t, err)
			require.NotEqual(t, namesNone, p.names)
			require.NotEqual(t, namesKept, p.names)
			js := p.Wrap([]string{"tools"})
			line, col := genPos(t, js, tt.needle)
			ul, uc, ok := p.Position(line, col)
			require.True(t, ok)
			require.Equal(t, [2]int{tt.line, tt.col}, [2]int{ul, uc}, js)
		})
	}
}

// TestRestoreNamesRealistic: a realistic program's names are restored on the fast path, with
// no extra esbuild pass.
func TestRestoreNamesRealistic(t *testing.T) {
	src, err := os.ReadFile("testdata/realistic.ts")
	require.NoError(t, err)
	var phases []Phase
	p, err := CompileContext(t.Context(), string(src), Options{OnPhase: func(ph Phase) { phases = append(phases, ph) }})
	require.NoError(t, err)
	require.Equal(t, namesFast, p.names)
	require.Equal(t, []Phase{PhaseScan, PhaseTransform, PhaseVerify, phaseSourceMap}, phases)
	require.Contains(t, p.JS(), "{let shadow=2;total+=shadow}")
	require.NotContains(t, p.JS(), "shadow2")
}

// TestRestoreNamesStops: a compilation cancelled as phaseSourceMap starts fails with the cause,
// on either path, before it decodes the source map or restores names, and phaseNames never starts.
func TestRestoreNamesStops(t *testing.T) {
	for _, tt := range []struct{ name, src string }{
		{"slow path", "const x = 1\n{ const x = 2; return 'x2' }"},
		{"fast path", "const x = 1\n{ const x = 2; return x }"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			cause := errors.New("stop")
			var phases []Phase
			p, err := CompileContext(ctx, tt.src, Options{esbuildOutput: true, OnPhase: func(ph Phase) {
				phases = append(phases, ph)
				if ph == phaseSourceMap {
					cancel(cause)
				}
			}})
			require.Equal(t, []Phase{PhaseScan, PhaseTransform, PhaseVerify, phaseSourceMap}, phases)
			require.Nil(t, p)
			require.ErrorIs(t, err, cause)
		})
	}
}

// TestRestoreNamesStopsBetweenSteps: restoreNames itself looks at the context between its steps,
// on either path.
func TestRestoreNamesStopsBetweenSteps(t *testing.T) {
	for _, tt := range []struct{ name, src string }{
		{"slow path", "const x = 1\n{ const x = 2; return 'x2' }"},
		{"fast path", "const x = 1\n{ const x = 2; return x }"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := compilation{poll: newPoller(t.Context()), src: tt.src}
			input, _, err := c.scan()
			require.NoError(t, err)
			res := api.Transform(input, api.TransformOptions{Loader: api.LoaderTS, MinifyWhitespace: true,
				Sourcemap: api.SourceMapExternal, Sourcefile: sourceFile})
			require.Empty(t, res.Errors)
			sm, names, named, err := parseSourceMapNamed(nil, res.Map)
			require.NoError(t, err)
			require.NotEmpty(t, named, "esbuild renamed x")

			ctx, cancel := context.WithCancelCause(t.Context())
			cause := errors.New("stop")
			cancel(cause)
			c.poll = newPoller(ctx)
			var phases []Phase
			c.opts.OnPhase = func(p Phase) { phases = append(phases, p) }
			_, outcome, err := c.restoreNames(string(res.Code), sm, names, named)
			require.ErrorIs(t, err, cause)
			require.Equal(t, namesKept, outcome)
			require.Empty(t, phases, "phaseNames does not start")
		})
	}
}

// TestRestoreNamesLinear: restoring takes heap linear in the program, on either path, with a
// renamed binding in every statement.
func TestRestoreNamesLinear(t *testing.T) {
	for _, tt := range []struct {
		name, unit string
		outcome    namesOutcome
	}{
		{"fast", "{ let load = 1; { let load = 2; f(load, load) } }\n", namesFast},
		{"slow", "{ let load = 1; { let load = 'load2'; f(load, load) } }\n", namesVerified},
	} {
		t.Run(tt.name, func(t *testing.T) {
			per := map[int]float64{}
			for _, n := range []int{1000, 8000} {
				src := "const load = 0\n" + strings.Repeat(tt.unit, n)
				var p *Program
				var err error
				alloc := allocated(func() { p, err = compileESBuild(t.Context(), src) })
				require.NoError(t, err)
				require.Equal(t, tt.outcome, p.names)
				require.NotContains(t, p.JS(), "load2,")
				per[n] = float64(alloc) / float64(len(src))
			}
			t.Logf("heap per byte of program: %.0f (1,000 units), %.0f (8,000 units)", per[1000], per[8000])
			require.Less(t, per[8000], 2*per[1000], "heap per byte of program, 8,000 units against 1,000")
		})
	}
}

func TestDecodeMappingsNamed(t *testing.T) {
	var named []namedSegment
	// line 0: col 2 -> 0:2 name 0; col 7 -> 0:5 (no name); line 1: col 1 -> 1:0 name 1
	sm, err := decodeMappingsNamed(nil, "EAAEA,KAAG;CACLC", &named)
	require.NoError(t, err)
	require.Len(t, sm.lines, 2)
	require.Equal(t, []namedSegment{
		{genLine: 0, genCol: 2, srcLine: 0, srcCol: 2, name: 0},
		{genLine: 1, genCol: 1, srcLine: 1, srcCol: 0, name: 1},
	}, named)

	_, _, _, err = parseSourceMapNamed(nil, []byte(`{"version":3,"sources":["a"],"names":["x"],"mappings":"AAAAC"}`))
	require.ErrorIs(t, err, errVLQ, "a name index beyond the names")
}

// TestRestoreNamesKeepsSegments: with names restored, every segment of the source map still
// points at the code it pointed at in esbuild's output, with the same original position: the
// same character, or the same identifier, or one whose restored name esbuild's begins with.
func TestRestoreNamesKeepsSegments(t *testing.T) {
	realistic, err := os.ReadFile("testdata/realistic.ts")
	require.NoError(t, err)
	srcs := []string{string(realistic)}
	for _, tt := range namesCases {
		srcs = append(srcs, tt.src)
	}
	for _, src := range srcs {
		renamed, err := CompileContext(t.Context(), src, Options{keepRenamed: true, esbuildOutput: true})
		require.NoError(t, err)
		restored, err := compileESBuild(t.Context(), src)
		require.NoError(t, err)
		require.Len(t, restored.smap.lines, len(renamed.smap.lines))
		at := func(p *Program, line int, col int32) string {
			text := p.lines[line+2]
			off := int(col)
			if line == 0 {
				off -= p.bodyCol
			}
			if off < 0 {
				return ""
			}
			require.LessOrEqual(t, off, len(text))
			end := off
			for end < len(text) && wordByte(text[end]) {
				end++
			}
			if end == off && off < len(text) {
				end++
			}
			return text[off:end]
		}
		for line, segs := range renamed.smap.lines {
			got := restored.smap.lines[line]
			require.Len(t, got, len(segs))
			for i, s := range segs {
				require.Equal(t, [2]int32{s.srcLine, s.srcCol}, [2]int32{got[i].srcLine, got[i].srcCol})
				before, after := at(renamed, line, s.genCol), at(restored, line, got[i].genCol)
				require.True(t, strings.HasPrefix(before, after) && after != "" || before == after,
					"segment %d of line %d: %q became %q\n%s", i, line, before, after, restored.JS())
			}
		}
	}
}

// compileESBuild compiles src as esbuild prints it, even when it is plain JavaScript that would
// otherwise run as written (see verbatim): names are given back only to esbuild's output.
func compileESBuild(ctx context.Context, src string) (*Program, error) {
	return CompileContext(ctx, src, Options{esbuildOutput: true})
}
