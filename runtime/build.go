package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/serialize"
	"github.com/coderun/coderun/wasm"
)

// fuelConfig is the fuel pass configuration of the engine.
var fuelConfig = wasm.FuelConfig{InterruptCost: budget.InterruptCost, BackEdges: true}

// preludeSource is the program whose evaluation the snapshot captures: the
// prelude, given the guest printers it uses and the web globals' installer,
// inside the declaration of the protocol's numbers
// (hostcalls.PreludeConstants), which the prelude takes from the host's
// table rather than repeat, and of the program's file name (programFile),
// which its stack traces name.
func preludeSource() string { return preludeSourceWith(webGlobalsJS) }

// noWebGlobals is a web globals' installer that installs nothing.
const noWebGlobals = "(function () {})"

// preludeSourceWith is preludeSource with installWeb as the web globals'
// installer: the installer comes last, so that its atoms follow all of the
// others (see runtime/webglobals.js).
func preludeSourceWith(installWeb string) string {
	return "(function (wrapper) { const PROGRAM_FILE = " + strconv.Quote(programFile) + "; " + hostcalls.PreludeConstants() +
		" return (" + preludeJS + ")(wrapper, (" + serialize.InspectJS + "\n)(), (" + serialize.LosslessJS + "\n)(), (" +
		installWeb + "\n)); })"
}

// BuildEngine makes coderun's engine from the pristine QuickJS-NG module:
// it rewrites it (wasm.Harden, with the engine's fuel configuration) and
// pre-initializes it (the runtime, the context, the guest stack and the
// prelude, captured by wasm.Snapshot). It returns the resulting module and
// the state its instances start in, as JSON for wasm.EngineManifest.State.
//
// Only the generator (internal/enginegen, run by `go generate ./wasm`) and
// tests call it: New loads what it produced, embedded in package wasm. The
// result is the same in every process for the same inputs.
func BuildEngine(ctx context.Context, pristine []byte) (module, state []byte, err error) {
	hardened, err := wasm.Harden(pristine, fuelConfig)
	if err != nil {
		return nil, nil, err
	}
	s, err := buildSnapshot(ctx, hardened, preludeSource(), preludeSourceWith(noWebGlobals))
	if err != nil {
		return nil, nil, err
	}
	state, err = json.Marshal(s.state)
	if err != nil {
		return nil, nil, fmt.Errorf("coderun: encoding the snapshot state: %w", err)
	}
	return s.module, state, nil
}
