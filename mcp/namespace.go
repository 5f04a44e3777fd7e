package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/hostcalls"
	"github.com/coderun/coderun/internal/tsdecl"
)

// The error class of upstream namespaces: rejected calls are instances of
// ToolCallError, whose toolName property is the tool's name.
const (
	ErrorClassName           = "ToolCallError"
	ErrorClassMemberProperty = "toolName"
)

// Bindings returns one namespace per upstream (see Namespace), in order,
// with the tools each upstream listed last. All of them share one injected
// ToolCallError class (the same *coderun.ErrorClass), so every failed call
// of every upstream rejects with it, and coderun.Declarations declares it
// once.
func Bindings(upstreams []*Upstream) []coderun.Namespace {
	class := &coderun.ErrorClass{Name: ErrorClassName, MemberNameProperty: ErrorClassMemberProperty}
	ns := make([]coderun.Namespace, len(upstreams))
	for i, u := range upstreams {
		ns[i] = Namespace(u, class)
	}
	return ns
}

// bindings is Bindings for a run: without Docs, which runs do not use, and
// with the calls made through obs.
func bindings(upstreams []*Upstream, obs *runObserver) []coderun.Namespace {
	class := &coderun.ErrorClass{Name: ErrorClassName, MemberNameProperty: ErrorClassMemberProperty}
	ns := make([]coderun.Namespace, len(upstreams))
	for i, u := range upstreams {
		ns[i] = namespace(u, u.Tools(), class, obs)
	}
	return ns
}

// Namespace returns u's tools as a coderun namespace named u.Name(): each
// tool is a member of the same name that calls Upstream.Call, documented
// (see Docs) for coderun.Declarations. With a non-nil class, rejections are
// instances of it.
func Namespace(u *Upstream, class *coderun.ErrorClass) coderun.Namespace {
	tools := u.Tools()
	ns := namespace(u, tools, class, nil)
	ns.Docs = Docs(tools)
	return ns
}

// namespace is Namespace without Docs, with the calls made through obs
// (when not nil), which counts, logs and reports them.
func namespace(u *Upstream, tools []*sdk.Tool, class *coderun.ErrorClass, obs *runObserver) coderun.Namespace {
	ns := coderun.Namespace{Global: u.Name(), Functions: make(map[string]coderun.Func, len(tools))}
	for _, t := range tools {
		name := t.Name
		if obs == nil {
			ns.Functions[name] = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return u.Call(ctx, name, args)
			}
			continue
		}
		ns.Functions[name] = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return obs.call(ctx, u, name, args)
		}
	}
	ns.ErrorClass = class
	return ns
}

// Docs documents tools as namespace members, by name: each tool's
// description (or, without one, its title) and its input and output
// schemas. A tool without an output schema resolves to unknown.
func Docs(tools []*sdk.Tool) map[string]coderun.Doc {
	docs := make(map[string]coderun.Doc, len(tools))
	for _, t := range tools {
		d := coderun.Doc{Description: t.Description}
		if d.Description == "" {
			d.Description = t.Title
		}
		d.Input = schemaJSON(t.InputSchema)
		if t.OutputSchema != nil {
			d.Output = schemaJSON(t.OutputSchema)
		}
		docs[t.Name] = d
	}
	return docs
}

// schemaJSON encodes a schema as the SDK decoded it, or is nil (unknown)
// when it does not encode.
func schemaJSON(schema any) json.RawMessage {
	if raw, ok := schema.(json.RawMessage); ok {
		return raw
	}
	b, err := marshalJSON(schema)
	if err != nil {
		return nil
	}
	return b
}

// CheckNames reports, wrapping coderun.ErrInvalidBinding, the first upstream
// whose name cannot be a binding global (not an identifier, a reserved word
// or global, "ToolCallError", or a repeated name), naming the upstream.
func CheckNames(upstreams []*Upstream) error {
	var decls []hostcalls.Decl
	for i, u := range upstreams {
		d := hostcalls.Decl{Global: u.Name(), ErrorClass: ErrorClassName,
			MemberProperty: ErrorClassMemberProperty, SharesErrorClass: i > 0}
		decls = append(decls, d)
		if err := hostcalls.Validate(decls); err != nil {
			return fmt.Errorf("upstream %q: %w", u.Name(), err)
		}
	}
	return nil
}

// Declarations renders the TypeScript declarations of upstreams'
// namespaces, in order, followed by ToolCallError: coderun.Declarations of
// Bindings, so each tool is typed from its input and output schemas and
// commented with its description.
func Declarations(upstreams []*Upstream) string {
	return coderun.Declarations(Bindings(upstreams)...)
}

// memberAccess renders how a program reaches member name of global:
// files.read_file or everything["get-sum"].
func memberAccess(global, name string) string {
	if tsdecl.IsIdentifier(name) {
		return global + "." + name
	}
	return global + "[" + tsdecl.Literal(name) + "]"
}

// StartAll starts every upstream concurrently and returns their errors
// joined, or nil when all started.
func StartAll(ctx context.Context, upstreams []*Upstream) error {
	errs := make([]error, len(upstreams))
	var wg sync.WaitGroup
	for i, u := range upstreams {
		wg.Go(func() { errs[i] = u.Start(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// CloseAll closes every upstream and returns their errors joined.
func CloseAll(upstreams []*Upstream) error {
	errs := make([]error, len(upstreams))
	var wg sync.WaitGroup
	for i, u := range upstreams {
		wg.Go(func() { errs[i] = u.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
