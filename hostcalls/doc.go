// Package hostcalls holds the rules of coderun's binding declarations: the
// names a namespace, its error class and its members may use (reserved
// words and globals, identifiers, length limits), checked by Validate.
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
