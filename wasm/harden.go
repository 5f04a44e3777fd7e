package wasm

import "fmt"

// Harden rewrites a QuickJS-NG module for running untrusted code: it
// decodes src, applies dropStdModules, refuseImports, ExportStackPointer,
// ExportStdLoop, AddDispatcher, growTrap, pinInterruptHandler,
// guardAsyncGeneratorResume and guardProxyOwnKeysSize (two engine memory
// bugs, docs/engine-bugs.md), divideAfterPrivateName (a parser bug),
// directCalls, Fuel (with cfg) and stackWatch (last: it shifts the function
// indices the others use), and encodes the result. The runtime calls it once
// per process on QuickJS() and compiles what it returns.
func Harden(src []byte, cfg FuelConfig) ([]byte, error) {
	m, err := Decode(src)
	if err != nil {
		return nil, fmt.Errorf("wasm: harden: %w", err)
	}
	for _, pass := range []func(*Module) error{
		dropStdModules,
		refuseImports,
		ExportStackPointer,
		ExportStdLoop,
		AddDispatcher,
		growTrap,
		pinInterruptHandler,
		guardAsyncGeneratorResume,
		guardProxyOwnKeysSize,
		divideAfterPrivateName,
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
