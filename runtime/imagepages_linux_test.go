package runtime

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/coderun/coderun/internal/quickjs"
)

// imagePageProgram is one program of TestImagePagesTouched.
type imagePageProgram struct {
	name, src string
	bindings  []Binding
}

// TestImagePagesTouched measures which pages of the snapshot image a run
// reads, writes or leaves alone (bench/README.md at 23be69a, "Which image pages a
// run touches"): the most a copy-on-write image could keep out of a run's
// resident set is the pages it never touches. It is a measurement, run
// only with CODERUN_IMAGE_PAGES=1:
//
//	CODERUN_IMAGE_PAGES=1 go test -run ImagePagesTouched -v ./runtime/
//
// When a run has its instance, the test copies the memory up to its last
// non-zero page into a memfd and maps that over the memory, private: the
// contents do not change, but every page starts out as the file's. When
// the run has ended, /proc/self/pagemap tells per page whether it is
// absent (never touched), the file's (only read) or the run's own (written:
// copied on write). Each program gets an engine of its own, since the
// pool's scrub would restore such a mapping to the file's bytes.
func TestImagePagesTouched(t *testing.T) {
	if os.Getenv("CODERUN_IMAGE_PAGES") == "" {
		t.Skip("a measurement: set CODERUN_IMAGE_PAGES=1")
	}
	wait := []Binding{{Global: "tools", ErrorClass: "ToolError", MemberProperty: "tool", Functions: map[string]Func{
		"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil },
	}}}
	for _, p := range []imagePageProgram{
		{"return 1+1", `return 1+1`, nil},
		{"idle (awaits a binding)", `return await tools.wait({})`, wait},
		{"logs once", `console.log("hi", {a: 1, b: [1, 2]}); return 1`, nil},
		{"20-line program", imagePagesSummary(t), wait},
	} {
		t.Run(p.name, func(t *testing.T) { measureImagePages(t, p) })
	}
}

func measureImagePages(t *testing.T, p imagePageProgram) {
	const page = 4096
	e := testPrivateEngine(t)
	var (
		base  uintptr
		image []byte
	)
	e.hooks.attached = func(in *quickjs.Instance) {
		mem := in.Memory()
		buf, ok := mem.Read(0, mem.Size())
		require.True(t, ok)
		base = uintptr(unsafe.Pointer(&buf[0]))
		n := 0
		for i := 0; i+page <= len(buf); i += page {
			if !allZero(buf[i : i+page]) {
				n = i + page
			}
		}
		image = append([]byte(nil), buf[:n]...)
		fd, err := unix.MemfdCreate("coderun-image", 0)
		require.NoError(t, err)
		defer unix.Close(fd)
		_, err = unix.Write(fd, image)
		require.NoError(t, err)
		_, _, errno := syscall.Syscall6(syscall.SYS_MMAP, base, uintptr(len(image)),
			syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_FIXED, uintptr(fd), 0)
		require.Zero(t, errno, "mmap")
	}
	var counts [2][3]int // [zero page?][absent, read, written]
	var pages strings.Builder
	e.hooks.ended = func(*run) {
		f, err := os.Open("/proc/self/pagemap")
		require.NoError(t, err)
		defer f.Close()
		entries := make([]byte, 8*(len(image)/page))
		_, err = f.ReadAt(entries, int64(base/page)*8)
		require.NoError(t, err)
		for i := range len(image) / page {
			v := binary.LittleEndian.Uint64(entries[8*i:])
			state := 2 // present, the run's own page: written
			switch {
			case v>>63 == 0:
				state = 0
			case v>>61&1 == 1:
				state = 1 // present, the file's page: read only
			}
			zero := 0
			if allZero(image[i*page : (i+1)*page]) {
				zero = 1
			}
			counts[zero][state]++
			if zero == 0 {
				pages.WriteByte(".rw"[state])
			}
		}
	}
	o, err := e.run(context.Background(), p.src, p.bindings)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	nz := counts[0]
	t.Logf("%s: %d non-zero pages of the image: %d untouched, %d read only, %d written; "+
		"of its zero pages, %d read, %d written\nnon-zero pages in address order (. untouched, r read, w written): %s",
		p.name, nz[0]+nz[1]+nz[2], nz[0], nz[1], nz[2], counts[1][1], counts[1][2], pages.String())
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// imagePagesSummary is the 20-line program (testdata/summary.js), awaiting a
// binding before it returns, as bench/'s suspended program does.
func imagePagesSummary(t *testing.T) string {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "summary.js"))
	require.NoError(t, err)
	body := string(src)
	i := strings.LastIndex(body, "\nreturn {")
	require.GreaterOrEqual(t, i, 0, "the program has no final return")
	return body[:i] + "\nawait tools.wait({});" + body[i:]
}
