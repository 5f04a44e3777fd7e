package serialize

import _ "embed" // for the guest factories below

// InspectJS is the guest factory for console rendering (see inspect.js).
//
// It is one JavaScript expression, a function that the prelude calls once
// before any user code runs; the call returns a null-prototype object
// { formatLogArgs(args) string, inspect(value) string }. formatLogArgs turns
// the arguments of one console.log/info/warn/error/debug call into the log
// entry of contract §5 (Node util.inspect rendering, depth 4, no %s
// substitution). Its body is the three files inspect.js (captured
// intrinsics, strings and primitives), inspect_kind.js (what an object is,
// its prefix and base) and inspect_walk.js (keys, entries, layout, the walk
// and the API), joined in that order. Read-only by convention.
var InspectJS = "(function () {\n  \"use strict\";\n\n" +
	inspectBase + "\n" + inspectKind + "\n" + inspectWalk + "})"

// The parts of InspectJS's body, in the order they are joined.
var (
	//go:embed inspect.js
	inspectBase string
	//go:embed inspect_kind.js
	inspectKind string
	//go:embed inspect_walk.js
	inspectWalk string
)

// LosslessJS is the guest factory for lossless JSON (see lossless.js).
//
// It is one JavaScript expression, a function that the prelude calls once
// before any user code runs; the call returns a null-prototype object
// { stringify(value) string|undefined, parse(text) value }. stringify gives
// the compact JSON text (exactly JSON.stringify's) of a value that is lossless
// JSON per contract §6, and undefined for anything else; it never calls
// toJSON or user getters more than once. parse is the JSON.parse captured at
// factory time, for host-validated text. Read-only by convention.
//
//go:embed lossless.js
var LosslessJS string
