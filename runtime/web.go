package runtime

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/internal/quickjs"
)

// Web-platform globals (https://html.spec.whatwg.org/multipage/webappapis.html,
// https://encoding.spec.whatwg.org/, https://dom.spec.whatwg.org/,
// https://w3c.github.io/webcrypto/, https://url.spec.whatwg.org/) that a run gets on first use. The prelude
// defines each name on globalThis as an accessor; its first get asks the host
// (hostcalls.OpWeb) for its group's factory, which this file compiles once per Engine
// from the group's source in runtime/web and evaluates in the run's instance.
// A run that touches none of them evaluates none of this code, and the
// snapshot image holds only the accessors.

// webGroups are the groups' sources, in the order of the prelude's group
// numbers.
var webGroups = [...]string{"web/encoding.js", "web/clone.js", "web/crypto.js", "web/events.js", "web/url.js", "web/intl.js", "web/intl_more.js", "web/intl_date.js"}

//go:embed web/*.js
var webSources embed.FS

// maxRandomBytes is the most bytes one hostcalls.OpRandom returns: getRandomValues'
// quota (https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues).
const maxRandomBytes = 65536

// webCache holds each group's bytecode and the fuel compiling it spent,
// compiled once per Engine, in an instance of its own (webCompile), by the
// first run that used the group. Every run that uses a group is charged
// that fuel, then evaluates the bytecode, so that every run of a program
// spends the same fuel: compiling in the run's own instance would leave it
// holding the group's atoms, which a later run's evaluation would make.
type webCache struct {
	mu    sync.Mutex
	code  [len(webGroups)][]byte
	fuels [len(webGroups)]uint64
}

// webGroup returns the factory of group g, evaluated in the run's instance,
// or undefined for an unknown group.
func (r *run) webGroup(g int) quickjs.Value {
	if g < 0 || g >= len(webGroups) {
		return quickjs.Undefined
	}
	code, fuel, err := r.e.web.get(r.e, g)
	if err != nil {
		r.stopFor(BudgetEngine, engineError("loading "+webGroups[g]+": "+err.Error()))
	}
	var left int64
	if f := r.in.Fuel(); f != nil {
		left = int64(f.Get())
	}
	if trip := r.meter.Spend(fuel, left); trip != budget.None {
		r.exhaustTrip(trip)
		panic(errEnded)
	}
	v, err := r.in.EvalBytecode(code, quickjs.EvalGlobal)
	if err != nil {
		panic(err)
	}
	return v
}

// get returns the bytecode of group g and the fuel compiling it spent,
// compiling it the first time.
func (c *webCache) get(e *Engine, g int) ([]byte, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.code[g] != nil {
		return c.code[g], c.fuels[g], nil
	}
	code, fuel, err := webCompile(e, g)
	if err != nil {
		return nil, 0, err
	}
	c.code[g], c.fuels[g] = code, fuel
	return code, fuel, nil
}

// webCompile compiles group g in a fresh instance of the engine, and
// measures the fuel that spends.
func webCompile(e *Engine, g int) ([]byte, uint64, error) {
	src, err := webSources.ReadFile(webGroups[g])
	if err != nil {
		return nil, 0, err
	}
	return compileAside(e, string(src), "coderun:"+webGroups[g])
}

// compileAside compiles src, a script of coderun's own named file, in a
// fresh instance of the engine restored from its snapshot, and measures
// the fuel that spends.
func compileAside(e *Engine, src, file string) ([]byte, uint64, error) {
	ctx := context.Background()
	in, err := e.qe.Instantiate(ctx, templateHost{})
	if err != nil {
		return nil, 0, err
	}
	defer in.Close(ctx)
	if err := in.Warm(false); err != nil {
		return nil, 0, err
	}
	in.Restore(e.snap.Instance)
	const start = 1 << 40 // more than compiling spends: templateHost is never asked for more
	if f := in.Fuel(); f != nil {
		f.Set(start)
	}
	code, ok, err := in.Compile(src, file, quickjs.EvalGlobal)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, fmt.Errorf("%s does not compile", file)
	}
	var fuel uint64
	if f := in.Fuel(); f != nil {
		fuel = start - f.Get()
	}
	return code, fuel, nil
}

// randomHex returns n bytes (at most maxRandomBytes) from crypto/rand as
// hexadecimal text in the guest, or undefined when n is out of range.
func (r *run) randomHex(n int) quickjs.Value {
	if n < 0 || n > maxRandomBytes {
		return quickjs.Undefined
	}
	text := make([]byte, 0, 2*n+2)
	text = append(text, '"')
	if r.rp != nil {
		text = append(text, r.rp.random(r, n)...)
	} else {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		text = hex.AppendEncode(text, b)
		if r.rec != nil {
			r.rec.add(TraceEvent{Type: EventRandom, Hex: string(text[1:])}, int64(2*n+2))
		}
	}
	text = append(text, '"')
	v, err := r.in.ParseJSON(text)
	if err != nil {
		panic(err)
	}
	return v
}
