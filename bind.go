package coderun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"unsafe"

	"github.com/coderun/coderun/hostcalls"
)

// Bind adapts a typed Go function to a Func. The program's argument is
// decoded into In (unknown fields are rejected, so a model that misspells a
// field hears about it), and the result is encoded from Out. A decoding
// failure rejects the call with a message naming the problem.
//
// Funcs made by Bind also carry In and Out for Namespace.Declarations.
func Bind[In, Out any](fn func(ctx context.Context, in In) (Out, error)) Func {
	t := &typedFunc{params: reflect.TypeFor[In](), result: reflect.TypeFor[Out]()}
	t.call = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
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
	return t.invoke
}

// typedFunc is what Bind makes: a Func with its argument and result types.
type typedFunc struct {
	params, result reflect.Type
	call           Func
}

func (t *typedFunc) invoke(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	return t.call(ctx, args)
}

// invokeCode is the code pointer shared by every method value t.invoke.
var invokeCode = reflect.ValueOf((*typedFunc)(nil).invoke).Pointer()

// typedOf returns the typedFunc behind f when Bind made f, else nil. A Func
// made by Bind is the method value t.invoke: a closure whose code pointer is
// invokeCode and whose only captured word is the receiver t. The code
// pointer is checked first, so no other closure is ever read this way.
func typedOf(f Func) *typedFunc {
	if f == nil || reflect.ValueOf(f).Pointer() != invokeCode {
		return nil
	}
	closure := *(*unsafe.Pointer)(unsafe.Pointer(&f))
	return (*struct {
		code uintptr
		recv *typedFunc
	})(closure).recv
}

// Declarations renders the namespace as TypeScript declarations, for
// putting into a model's prompt: a `declare const` of the namespace with one
// method per member (typed from Bind's In and Out where known, `unknown`
// otherwise) and, with an ErrorClass, a `declare class` for it.
func (ns Namespace) Declarations() string {
	names := make([]string, 0, len(ns.Functions))
	for name := range ns.Functions {
		names = append(names, name)
	}
	sort.Strings(names)
	members := make([]hostcalls.Member, 0, len(names))
	for _, name := range names {
		m := hostcalls.Member{Name: name, Params: "unknown", Result: "unknown"}
		if t := typedOf(ns.Functions[name]); t != nil {
			m.Params, m.Result = hostcalls.TSType(t.params), hostcalls.TSType(t.result)
		}
		members = append(members, m)
	}
	var class, prop string
	if ns.ErrorClass != nil {
		class, prop = ns.ErrorClass.Name, ns.ErrorClass.MemberNameProperty
	}
	return hostcalls.RenderDeclarations(ns.Global, members, class, prop)
}
