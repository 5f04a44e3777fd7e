package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Annotations returns run_code's tool annotations for upstreams, derived
// from the annotations of every tool a program can call, read with the
// MCP defaults for a hint a tool leaves out (readOnlyHint false,
// destructiveHint true, idempotentHint false, openWorldHint true):
//
//   - readOnlyHint: every tool is read-only (so with no tools at all);
//   - destructiveHint: some tool that is not read-only is destructive;
//   - idempotentHint: every tool that is not read-only is idempotent (the
//     same program calls the same tools with the same arguments);
//   - openWorldHint: some tool's world is open.
//
// A tool left out because it requires tasks cannot be called and does not
// count.
func Annotations(upstreams []*Upstream) *sdk.ToolAnnotations {
	readOnly, destructive, idempotent, openWorld := true, false, true, false
	for _, u := range upstreams {
		for _, t := range u.Tools() {
			a := t.Annotations
			if a == nil {
				a = &sdk.ToolAnnotations{}
			}
			if a.OpenWorldHint == nil || *a.OpenWorldHint {
				openWorld = true
			}
			if a.ReadOnlyHint {
				continue
			}
			readOnly = false
			if a.DestructiveHint == nil || *a.DestructiveHint {
				destructive = true
			}
			if !a.IdempotentHint {
				idempotent = false
			}
		}
	}
	return &sdk.ToolAnnotations{
		Title:           runCodeTitle,
		ReadOnlyHint:    readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  idempotent,
		OpenWorldHint:   &openWorld,
	}
}
