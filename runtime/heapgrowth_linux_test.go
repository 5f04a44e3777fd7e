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

// A program whose heap grows by less than quickjs.PopulateAfter holds
// resident only the pages of the growth it wrote: the 20-line program,
// suspended before it returns, has grown its memory by 64 pages and
// written 51 of them; populated at once, all 64 would be resident.
func TestHeapGrowthResidentAsWritten(t *testing.T) {
	const page = 4096
	e := testEngine(t) // a fresh engine: the run gets a new memory, not one a pool kept resident
	var (
		in    *quickjs.Instance
		sized uint32
	)
	e.hooks.attached = func(i *quickjs.Instance) { in, sized = i, i.Memory().Size() }
	var grown, resident, written int
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
	o, err := e.run(context.Background(), imagePagesSummary(t), bindings)
	require.NoError(t, err)
	require.Empty(t, o.Kind, o.Message)
	t.Logf("the heap grew by %d pages: %d resident, %d not zero", grown, resident, written)
	require.Positive(t, grown, "the program grows its memory")
	require.Less(t, grown*page, quickjs.PopulateAfter, "the growth stays below the populated part")
	require.Less(t, written, grown, "the program leaves part of its growth unwritten")
	// A page written with zeros only is resident and reads as zero: allow one.
	require.LessOrEqual(t, resident, written+1, "resident pages of the growth")
}
