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
// In and Out.
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
