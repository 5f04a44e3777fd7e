package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/hostcalls"
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
// of every upstream rejects with it.
func Bindings(upstreams []*Upstream) []coderun.Namespace {
	return bindings(upstreams, nil)
}

// bindings is Bindings, with the calls reporting to p (which may be nil).
func bindings(upstreams []*Upstream, p *progressReporter) []coderun.Namespace {
	class := &coderun.ErrorClass{Name: ErrorClassName, MemberNameProperty: ErrorClassMemberProperty}
	ns := make([]coderun.Namespace, len(upstreams))
	for i, u := range upstreams {
		ns[i] = namespace(u, class, p)
	}
	return ns
}

// Namespace returns u's tools as a coderun namespace named u.Name(): each
// tool is a member of the same name that calls Upstream.Call. With a
// non-nil class, rejections are instances of it.
func Namespace(u *Upstream, class *coderun.ErrorClass) coderun.Namespace {
	return namespace(u, class, nil)
}

// namespace is Namespace, with the calls reporting to p (which may be nil):
// their completion and the upstream's progress notifications.
func namespace(u *Upstream, class *coderun.ErrorClass, p *progressReporter) coderun.Namespace {
	tools := u.Tools()
	ns := coderun.Namespace{Global: u.Name(), Functions: make(map[string]coderun.Func, len(tools))}
	for _, t := range tools {
		name := t.Name
		if p == nil {
			ns.Functions[name] = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return u.Call(ctx, name, args)
			}
			continue
		}
		onProgress := func(params *sdk.ProgressNotificationParams) { p.upstreamProgress(u.Name(), name, params) }
		ns.Functions[name] = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			res, err := u.call(ctx, name, args, onProgress)
			p.callDone(u.Name(), name, err)
			return res, err
		}
	}
	ns.ErrorClass = class
	return ns
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

// Declarations renders the TypeScript declarations of upstreams' namespaces,
// in order, from their tools' input and output schemas (see SchemaTS), with
// the tools' descriptions as doc comments, followed by ToolCallError. A tool
// without an output schema resolves to unknown.
func Declarations(upstreams []*Upstream) string {
	var b strings.Builder
	for i, u := range upstreams {
		if i > 0 {
			b.WriteString("\n")
		}
		class, prop := "", ""
		if i == len(upstreams)-1 {
			class, prop = ErrorClassName, ErrorClassMemberProperty // declared once, after the last namespace
		}
		b.WriteString(hostcalls.RenderDeclarations(u.Name(), members(u.Tools()), class, prop))
	}
	return b.String()
}

func members(tools []*sdk.Tool) []hostcalls.Member {
	ms := make([]hostcalls.Member, len(tools))
	for i, t := range tools {
		doc := t.Description
		if doc == "" {
			doc = t.Title
		}
		result := tsUnknown
		if t.OutputSchema != nil {
			result = SchemaTS(t.OutputSchema, "  ")
		}
		ms[i] = hostcalls.Member{Name: t.Name, Doc: doc, Params: SchemaTS(t.InputSchema, "  "), Result: result}
	}
	return ms
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
