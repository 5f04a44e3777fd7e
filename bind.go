package coderun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Bind adapts a typed Go function to a Func. The program's argument is
// decoded into In (unknown fields are rejected, so a model that misspells a
// field hears about it), and the result is encoded from Out. A decoding
// failure rejects the call with a message naming the problem.
//
// A Func carries no types: to declare the member's argument and result
// types to a model, give the namespace a Doc made by Describe with the same
// In and Out, or let AddFunc do both in one call.
func Bind[In, Out any](fn func(ctx context.Context, in In) (Out, error)) Func {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in In
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Errorf("invalid arguments: %w", err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, errors.New("invalid arguments: more than one JSON value")
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return nil, fmt.Errorf("encoding the result: %w", err)
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
}

// AddFunc adds fn to ns as the member name, documented for Declarations
// by description and by the JSON Schemas of In and Out, which it infers
// from fn's own types, as the MCP go-sdk's AddTool does: the one call is
// Bind(fn) in ns.Functions and Describe[In, Out](description) in ns.Docs,
// so the two cannot drift apart. It makes the maps when they are nil and
// replaces a member of the same name. Names are checked by Run, as for any
// member.
func AddFunc[In, Out any](ns *Namespace, name, description string, fn func(ctx context.Context, in In) (Out, error)) {
	if ns.Functions == nil {
		ns.Functions = map[string]Func{}
	}
	if ns.Docs == nil {
		ns.Docs = map[string]Doc{}
	}
	ns.Functions[name] = Bind(fn)
	ns.Docs[name] = Describe[In, Out](description)
}
