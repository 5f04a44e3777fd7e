package runtime

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun/internal/quickjs"
)

// How much of a run's heap growth is resident while the run waits: the
// first quickjs.PopulateAfter bytes of growth fault in only as the guest
// writes them, and everything past them is populated at once, written or
// not, so a program that grows its memory by MiBs takes at most
// PopulateAfter's worth of page faults inside the guest. An array of
// 12,200 numbers, suspended, has grown the memory by 80 pages and written
// 65 of them (the end of its last growth in capacity is not written yet;
// populated, all 80 would be resident); a loop pushing 200,000 numbers
// grows it by about 4 MiB, whose unwritten tail is resident too (left to
// fault, about 24 of its pages would not be). (The 20-line program, which
// this test ran before, now writes all 48 pages its memory grows by: the
// snapshot's holes are sealed, so its objects fill the growth from the
// start.)
func TestHeapGrowthResident(t *testing.T) {
	const page = 4096
	lazy := quickjs.PopulateAfter / page
	tests := []struct {
		name string
		src  string
		// big: the growth exceeds PopulateAfter.
		big bool
	}{
		{"an array of 12,200 numbers", `const a = []; for (let i = 0; i < 12200; i++) a.push(i); await tools.wait({}); return a.length`, false},
		{"4 MiB of array", `const a = []; for (let i = 0; i < 200000; i++) a.push(i); await tools.wait({}); return a.length`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testPrivateEngine(t) // a fresh engine: the run gets a new memory, not one a pool kept resident
			var (
				in    *quickjs.Instance
				sized uint32
			)
			e.hooks.attached = func(i *quickjs.Instance) { in, sized = i, i.Memory().Size() }
			var grown, written, resident, residentPast int // residentPast: past the first PopulateAfter bytes
			bindings := []Binding{{Global: "tools", Functions: map[string]Func{
				"wait": func(context.Context, json.RawMessage) (json.RawMessage, error) {
					mem := in.Memory()
					b, ok := mem.Read(sized, mem.Size()-sized)
					require.True(t, ok)
					grown = len(b) / page
					if grown == 0 {
						return json.RawMessage(`1`), nil
					}
					f, err := os.Open("/proc/self/pagemap")
					require.NoError(t, err)
					defer f.Close()
					raw := make([]byte, 8*grown)
					_, err = f.ReadAt(raw, int64(uintptr(unsafe.Pointer(&b[0]))/page)*8)
					require.NoError(t, err)
					for i := range grown { // the page map first: reading a page maps it
						if binary.LittleEndian.Uint64(raw[8*i:])>>63 == 1 {
							resident++
							if i >= lazy {
								residentPast++
							}
						}
					}
					for i := range grown {
						if !allZero(b[i*page : (i+1)*page]) {
							written++
						}
					}
					return json.RawMessage(`1`), nil
				},
			}}}
			o, err := e.run(context.Background(), tt.src, bindings)
			require.NoError(t, err)
			require.Empty(t, o.Kind, o.Message)
			t.Logf("the heap grew by %d pages: %d resident, %d not zero", grown, resident, written)
			require.Less(t, written, grown, "the program leaves part of its growth unwritten")
			if !tt.big {
				require.Less(t, grown, lazy, "the growth stays below the populated part")
				// A page written with zeros only is resident and reads as zero: allow one.
				require.LessOrEqual(t, resident, written+1, "resident pages of the growth")
				return
			}
			require.Greater(t, grown, lazy, "the growth reaches the populated part")
			require.Equal(t, grown-lazy, residentPast, "resident pages past the first PopulateAfter bytes")
		})
	}
}
