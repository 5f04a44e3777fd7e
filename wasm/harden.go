package wasm

import "fmt"

// Harden rewrites a QuickJS-NG module for running untrusted code: it
// decodes src, applies DropStdModules, RefuseImports, ExportStackPointer,
// ExportStdLoop, AddDispatcher, GrowTrap, PinInterruptHandler,
// GuardAsyncGeneratorResume and GuardProxyOwnKeysSize (two engine memory
// bugs, docs/engine-bugs.md), DivideAfterPrivateName (a parser bug),
// DirectCalls, Fuel (with cfg) and StackWatch (last: it shifts the function
// indices the others use), and encodes the result. The runtime calls it once
// per process on QuickJS() and compiles what it returns.
func Harden(src []byte, cfg FuelConfig) ([]byte, error) {
	m, err := Decode(src)
	if err != nil {
		return nil, fmt.Errorf("wasm: harden: %w", err)
	}
	for _, pass := range []func(*Module) error{
		DropStdModules,
		RefuseImports,
		ExportStackPointer,
		ExportStdLoop,
		AddDispatcher,
		GrowTrap,
		PinInterruptHandler,
		GuardAsyncGeneratorResume,
		GuardProxyOwnKeysSize,
		DivideAfterPrivateName,
		DirectCalls,
		func(m *Module) error { return Fuel(m, cfg) },
		StackWatch,
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
