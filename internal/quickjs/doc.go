// Package quickjs is a thin, typed layer over the exports of the QuickJS-NG
// wasm module: compiling it once on a wazero runtime, instantiating it with
// coderun's own host imports (a capability-free WASI, the host-call proxy and
// the fuel hook), and calling into it: evaluating source, calling functions,
// moving strings and JSON across the boundary.
//
// Every import the module has is implemented here, so an instance has no
// filesystem, no environment, no arguments and no clock or sleep the host
// does not see. Per-instance behaviour is delegated to a Host, found through
// the context of each call into the instance.
package quickjs
