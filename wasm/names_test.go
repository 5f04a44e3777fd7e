package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// nameSection returns a custom "name" section whose function names
// subsection maps each index to its name, in order.
func nameSection(entries ...struct {
	idx  uint32
	name string
}) CustomSection {
	sub := AppendUleb(nil, uint64(len(entries)))
	for _, e := range entries {
		sub = AppendUleb(sub, uint64(e.idx))
		sub = appendName(sub, e.name)
	}
	module := appendName(nil, "m") // a module name subsection (id 0) first
	p := append([]byte{0}, AppendUleb(nil, uint64(len(module)))...)
	p = append(p, module...)
	p = append(p, 1)
	p = AppendUleb(p, uint64(len(sub)))
	return CustomSection{Name: "name", Payload: append(p, sub...), After: sectionData}
}

func TestFuncByName(t *testing.T) {
	// In the module, the name section agrees with the exports.
	m := decodeQuickJS(t)
	for _, name := range []string{"coderun_new", "coderun_interrupt", "malloc"} {
		want, ok := m.exportedFunc(name)
		require.True(t, ok)
		got, err := m.funcByName(name)
		require.NoError(t, err)
		require.Equal(t, want, got, name)
	}
	_, err := m.funcByName("no_such_function")
	require.ErrorContains(t, err, `no function is named "no_such_function"`)

	type entry = struct {
		idx  uint32
		name string
	}
	for _, tc := range []struct {
		name    string
		customs []CustomSection
		want    uint32
		err     string
	}{
		{"found", []CustomSection{{Name: "producers"}, nameSection(entry{3, "a"}, entry{7, "b"})}, 7, ""},
		{"no name section", []CustomSection{{Name: "producers"}}, 0, "no name section"},
		{"twice", []CustomSection{nameSection(entry{3, "b"}, entry{7, "b"})}, 0, `2 functions are named "b"`},
		{"truncated", []CustomSection{{Name: "name", Payload: []byte{1, 5, 1}}}, 0, "name subsection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&Module{Customs: tc.customs}).funcByName("b")
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
