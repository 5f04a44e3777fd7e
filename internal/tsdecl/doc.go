// Package tsdecl renders typeScript declarations of binding namespaces for a
// model's prompt. It has one renderer, from JSON Schema to typeScript
// (typeScript), used for every member: members typed by Go types go through
// a JSON Schema inferred from the type by encoding/json's rules (SchemaFor),
// and schema-typed members (MCP tools) bring their own.
//
// It is an engine package of coderun with no compatibility promise; the API
// is coderun.Namespace.Declarations and coderun.Describe.
package tsdecl
