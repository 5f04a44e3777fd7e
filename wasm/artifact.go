// Package wasm holds the QuickJS-NG WebAssembly artifact that coderun runs, and
// the passes that rewrite it before it is compiled (fuel metering, a trapping
// memory.grow, an exported stack pointer, one dispatcher export for the host's
// calls, direct calls instead of the function table, quickjs-libc's modules
// removed and imports refused).
//
// The artifact is the wasm32-wasi build of QuickJS-NG 0.10.1 shipped inside
// github.com/fastschema/qjs v0.0.6. Only its bytes are used: coderun drives the
// module's exports directly and never uses fastschema's Go API.
//
// Exports coderun relies on (all JSValue parameters and results are i64,
// NaN-boxed with the tag in the high 32 bits; pointers are i32):
//
//	malloc(size) ptr, free(ptr)
//	New_QJS(memLimit, maxStack, maxExecTime, gcThreshold) *QJSRuntime  // {JSRuntime*, JSContext*}
//	QJS_GetContext(*QJSRuntime) *JSContext
//	QJS_CreateEvalOption(buf, bytecode, bytecodeLen, filename, flags) *QJSEvalOptions
//	QJS_Eval(ctx, *QJSEvalOptions) JSValue      // evaluates (source, or bytecode: JS_ReadObject + JS_EvalFunction), then drains the job queue
//	QJS_Compile2(ctx, *QJSEvalOptions) *u64     // compiles without running; malloc'd (ptr<<32 | len) of JS_WriteObject's bytecode
//	QJS_Call(ctx, fn, this, argc, argv) JSValue // argv points at argc JSValues
//	QJS_ToCString(ctx, v) *u64                  // malloc'd (ptr<<32 | len)
//	QJS_NewString(ctx, cstr) JSValue, JS_FreeCString(ctx, p), JS_FreeValue(ctx, v)
//	JS_GetException(ctx) JSValue
//	QJS_CreateFunctionProxy(ctx, id, ctxID, isAsync) JSValue // calls import env.jsFunctionProxy
//
// It imports env.jsFunctionProxy(ctx, this, argc, argv) JSValue and 23
// wasi_snapshot_preview1 functions, all of which coderun implements itself.
package wasm

import (
	_ "unsafe" // for go:linkname

	_ "github.com/fastschema/qjs" // provides the embedded QuickJS-NG build
)

// QuickJSSHA256 is the SHA-256 of the pinned QuickJS-NG module. The engine
// refuses to start on any other bytes, since the passes and the runtime field
// discovery are written against this exact build.
const QuickJSSHA256 = "88fcbeead33cca3ec8394feb0fb3eec8047ec9ac5062aba7a63799cee11989b7"

//go:linkname qjsWasm github.com/fastschema/qjs.wasmBytes
var qjsWasm []byte

// QuickJS returns the pristine QuickJS-NG module bytes. The slice is shared:
// callers must not modify it.
func QuickJS() []byte { return qjsWasm }
