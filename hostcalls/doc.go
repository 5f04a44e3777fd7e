// Package hostcalls holds coderun's binding calls: the rules of their
// declarations, the guest/host protocol, and each call's life.
//
// The rules are the names a namespace, its error class and its members may
// use (reserved words and globals, identifiers, length limits), checked by
// Validate.
//
// The protocol is the numbers the guest's prelude and the host exchange
// (ops, completion kinds, api ops, event kinds, call codes): one table
// ([Protocol]), whose constants the host uses and which the prelude is
// given as JavaScript constants ([PreludeConstants]).
//
// A call's life, from the guest's call operation to its result's check
// before the run delivers it, is [Calls]: admission against
// MaxArgumentBytes and the run's memory account, call ids, the queue past
// MaxConcurrentCalls, the goroutine that runs the binding, its invocation
// and the check of its result. The run keeps the event loop: it hands
// Calls the guest's operands, waits on [Calls.Events], and delivers.
//
// Data flows one way: package coderun converts its Namespace values into
// runtime.Binding values, runtime derives this package's Decl values from
// them and calls Validate, and package mcp validates its upstreams' names
// the same way; this package never imports coderun. The TypeScript
// declarations of namespaces, for a model's prompt, are rendered by
// internal/tsdecl.
//
// Package hostcalls is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun.
package hostcalls
