// Package tsdecl renders TypeScript declarations of binding namespaces for a
// model's prompt. It has one renderer, from JSON Schema to TypeScript
// (typeScript), used for every member: members typed by Go types go through
// a JSON Schema inferred from the type by encoding/json's rules (SchemaFor),
// and schema-typed members (MCP tools) bring their own.
//
// Package tsdecl is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun
// (Namespace.Declarations and Describe).
package tsdecl
