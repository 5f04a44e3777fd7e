// Package hostcalls implements coderun's binding namespaces: declaration
// validation, the guest prelude that exposes them, and dispatch of calls with
// bounded concurrency.
//
// Data flows one way: package coderun converts its public Namespace values
// into this package's Decl values and calls Validate; this package never
// imports coderun. TSType and RenderDeclarations turn Go types and member
// lists into TypeScript declarations suitable for a model's prompt.
package hostcalls
