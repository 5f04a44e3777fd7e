// Package hostcalls implements coderun's binding namespaces: declaration
// validation, the guest prelude that exposes them, and dispatch of calls with
// bounded concurrency.
//
// Data flows one way: package coderun converts its public Namespace values
// into this package's Decl values and calls Validate; this package never
// imports coderun. The TypeScript declarations of namespaces, for a model's
// prompt, are rendered by internal/tsdecl.
package hostcalls
