package wasm

import "fmt"

// exportedFunc returns the index of the function exported as name.
func (m *Module) exportedFunc(name string) (uint32, bool) {
	for _, e := range m.Exports {
		if e.Kind == externFunc && e.Name == name {
			return e.Index, true
		}
	}
	return 0, false
}

// funcByName returns the index of the function the custom "name" section
// calls name (the linker writes one for every function, static ones
// included; see the wasm spec's name section,
// https://webassembly.github.io/spec/core/appendix/custom.html#name-section).
// It fails when there is no name section, no such function, or more than
// one.
func (m *Module) funcByName(name string) (uint32, error) {
	for _, c := range m.Customs {
		if c.Name != "name" {
			continue
		}
		r := &reader{b: c.Payload}
		for !r.done() {
			id, err := r.byte("name subsection id")
			if err != nil {
				return 0, err
			}
			size, err := r.u32("name subsection size")
			if err != nil {
				return 0, err
			}
			sub, err := r.bytes(int(size), "name subsection")
			if err != nil {
				return 0, err
			}
			if id == 1 { // function names
				return findFuncName(&reader{b: sub}, name)
			}
		}
	}
	return 0, fmt.Errorf("wasm: no function names: the module has no name section")
}

// findFuncName reads a name map (a vector of index, name pairs) and returns
// the index of name.
func findFuncName(r *reader, name string) (uint32, error) {
	n, err := r.count("function names", 2)
	if err != nil {
		return 0, err
	}
	idx, found := uint32(0), 0
	for range n {
		i, err := r.u32("function index")
		if err != nil {
			return 0, err
		}
		s, err := r.name("function name")
		if err != nil {
			return 0, err
		}
		if s == name {
			idx, found = i, found+1
		}
	}
	switch found {
	case 0:
		return 0, fmt.Errorf("wasm: no function is named %q", name)
	case 1:
		return idx, nil
	default:
		return 0, fmt.Errorf("wasm: %d functions are named %q", found, name)
	}
}
