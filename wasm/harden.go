package wasm

import "fmt"

// Harden rewrites a QuickJS-NG module (built by wasm/upstream/build.sh,
// with coderun's glue) for running untrusted code: it decodes src, applies
// refuseImports, ExportStackPointer, AddDispatcher, growTrap, directCalls,
// Fuel (with cfg) and stackWatch (last: it shifts the function indices the
// others use), and encodes the result. The runtime calls it once
// per process on QuickJS() and compiles what it returns.
func Harden(src []byte, cfg FuelConfig) ([]byte, error) {
	m, err := Decode(src)
	if err != nil {
		return nil, fmt.Errorf("wasm: harden: %w", err)
	}
	for _, pass := range []func(*Module) error{
		refuseImports,
		ExportStackPointer,
		AddDispatcher,
		growTrap,
		directCalls,
		func(m *Module) error { return Fuel(m, cfg) },
		stackWatch,
	} {
		if err := pass(m); err != nil {
			return nil, fmt.Errorf("wasm: harden: %w", err)
		}
	}
	out, err := m.Encode()
	if err != nil {
		return nil, fmt.Errorf("wasm: harden: %w", err)
	}
	return out, nil
}
