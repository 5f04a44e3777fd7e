package upstream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestModulePinned(t *testing.T) {
	if err := Check(Module()); err != nil {
		t.Fatal(err)
	}
	if string(Module()[:4]) != "\x00asm" {
		t.Fatalf("not a wasm module: % x", Module()[:4])
	}
	if err := Check(append([]byte{0}, Module()...)); err == nil {
		t.Fatal("Check accepted other bytes")
	}
}

var (
	hex40 = regexp.MustCompile(`^[0-9a-f]{40}$`)
	hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestBuildRecord checks build.json: it decodes into Record with no field
// left over, it describes the module and glue checked in, and it says how
// they were built.
func TestBuildRecord(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.DisallowUnknownFields()
	var r Record
	require.NoError(t, dec.Decode(&r), "build.json")
	require.Equal(t, Build(), r)

	require.Equal(t, "quickjs-ng.wasm", r.Module.File)
	require.Equal(t, sum(module), r.Module.SHA256, "the module's SHA-256")
	require.Len(t, module, r.Module.Bytes)
	onDisk, err := os.ReadFile(r.Module.File)
	require.NoError(t, err)
	require.True(t, bytes.Equal(module, onDisk), "the embedded module is the file")

	require.Equal(t, map[string]string{"glue/glue.c": sum(glue)}, r.Glue, "glue.c changed since the module was built: run build.sh")

	require.Equal(t, "github.com/quickjs-ng/quickjs", r.QuickJSNG.Repository)
	require.Regexp(t, hex40, r.QuickJSNG.Commit)
	require.NotEmpty(t, r.QuickJSNG.Version)
	require.Equal(t, r.QuickJSNG.Commit, Commit())
	require.Equal(t, r.QuickJSNG.Version, Version())
	require.Equal(t, r.Module.SHA256, SHA256())
	script, err := os.ReadFile("build.sh")
	require.NoError(t, err)
	require.Contains(t, string(script), "\ncommit="+r.QuickJSNG.Commit+"\n", "build.sh pins the commit build.json records")

	require.Contains(t, r.Sources, "quickjs.c")
	require.Len(t, r.Edits, 1, "the arena size")
	for _, e := range r.Edits {
		require.Contains(t, r.Sources, e.File, "an edit of a source the build reads")
		require.NotEqual(t, e.From, e.To)
		require.Contains(t, string(script), "\nedit_file="+e.File+"\nedit_from='"+e.From+"'\nedit_to='"+e.To+"'\n",
			"build.sh makes the edit build.json records")
	}
	require.Equal(t, "quickjs.c: #define JS_ARENA_SIZE 4096 → #define JS_ARENA_SIZE 1280", Edits())
	for name, h := range r.Sources {
		require.Regexp(t, hex64, h, name)
	}
	require.NotEmpty(t, r.Toolchain)
	for pkg, v := range r.Toolchain {
		require.NotEmpty(t, pkg)
		require.NotEmpty(t, v, pkg)
	}
	require.NotEmpty(t, Toolchain())
	require.Contains(t, r.CFlags, "--target=wasm32-wasi")
	require.Contains(t, r.LDFlags, "--target=wasm32-wasi")
	for _, f := range append(append([]string(nil), r.CFlags...), r.LDFlags...) {
		require.NotEmpty(t, f)
	}
}

// Toolchain lists the packages in name order, each with its version.
func TestToolchain(t *testing.T) {
	r := Build()
	want := ""
	for _, p := range []string{"clang-19", "libclang-rt-19-dev-wasm32", "lld-19", "wasi-libc"} {
		if want != "" {
			want += ", "
		}
		want += p + " " + r.Toolchain[p]
	}
	require.Len(t, r.Toolchain, 4)
	require.Equal(t, want, Toolchain())
}

// Check rejects a module whose glue changed since it was built.
func TestCheckGlue(t *testing.T) {
	saved := glue
	t.Cleanup(func() { glue = saved })
	glue = append(bytes.Clone(saved), '\n')
	require.ErrorContains(t, Check(Module()), "glue/glue.c changed")
}

// TestBuildReproduces rebuilds the module from QuickJS-NG's history and
// checks that it comes out byte for byte as checked in, with the same
// record. It needs a clone holding the pinned commit, named by
// $CODERUN_QUICKJS_NG_GIT, and Debian's toolchain (build.sh installs what is
// missing, as root); without the variable it is skipped. About a minute on
// one core.
func TestBuildReproduces(t *testing.T) {
	gitDir := os.Getenv("CODERUN_QUICKJS_NG_GIT")
	if gitDir == "" {
		t.Skip("set CODERUN_QUICKJS_NG_GIT to a clone of github.com/quickjs-ng/quickjs to rebuild the module")
	}
	out := t.TempDir()
	cmd := exec.Command("./build.sh", gitDir, out)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Run(), "build.sh")
	built, err := os.ReadFile(filepath.Join(out, "quickjs-ng.wasm"))
	require.NoError(t, err)
	require.Equal(t, sum(module), sum(built), "the rebuilt module's SHA-256")
	rec, err := os.ReadFile(filepath.Join(out, "build.json"))
	require.NoError(t, err)
	require.Equal(t, string(record), string(rec), "the rebuilt record")
}
