/*
 * coderun's C glue: the exports the host drives a QuickJS-NG instance
 * through, and nothing else. It is compiled with QuickJS-NG's own sources
 * (quickjs.c, libregexp.c, libunicode.c, dtoa.c) and without quickjs-libc:
 * the engine has no file system, no modules, no timers and no process, the
 * host provides what a program may use (see wasm/doc.go for the ABI).
 *
 * Conventions: a JSValue is NaN-boxed in 64 bits on wasm32, so it crosses
 * the boundary as an i64; pointers are i32. A "packed" result is a pointer
 * to a malloc'd uint64_t holding (ptr << 32 | len); the host frees both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quickjs.h"

#define EXPORT(name) __attribute__((export_name(#name))) name

/* The host's raw function: every function made by coderun_new_function
 * calls it with the call's own this, argc and argv. */
__attribute__((import_module("env"), import_name("jsFunctionProxy")))
JSValue host_call(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv);

/* An engine: the runtime and its one context. The host reads rt from the
 * first word. */
typedef struct engine {
    JSRuntime *rt;
    JSContext *ctx;
} engine;

/* What coderun_eval and coderun_compile take: source text (NUL-terminated)
 * or bytecode, a file name and JS_EVAL_* flags. */
typedef struct eval_options {
    const char *source;
    const uint8_t *bytecode;
    size_t bytecode_len;
    const char *filename;
    int flags;
} eval_options;

/* The interrupt handler QuickJS polls every JS_INTERRUPT_COUNTER_INIT
 * steps. The fuel pass (wasm.Fuel) replaces its body: it charges the poll
 * and returns the host's stop flag. Exported so that the pass finds it. */
int EXPORT(coderun_interrupt)(JSRuntime *rt, void *opaque)
{
    (void)rt;
    (void)opaque;
    return 0;
}

/* coderun_throw_reference_error throws a ReferenceError whose message is
 * msg verbatim. */
JSValue EXPORT(coderun_throw_reference_error)(JSContext *ctx, const char *msg)
{
    return JS_ThrowReferenceError(ctx, "%s", msg);
}

/* coderun_module_loader is QuickJS's module loader: a program can load no
 * module. The refuseImports pass prefixes it with a throw of the host's
 * message (wasm.ImportErrorExport); this default is for a module without
 * that pass. */
JSModuleDef *EXPORT(coderun_module_loader)(JSContext *ctx, const char *name, void *opaque)
{
    (void)opaque;
    JS_ThrowReferenceError(ctx, "could not load module '%s'", name);
    return NULL;
}

/* A SharedArrayBuffer's memory. An instance has one thread, so a shared
 * buffer is plain memory: QuickJS-NG allocates a growable one at its
 * maxByteLength up front (which the host's memory budget bounds) and grows
 * it in place. Without these hooks it refuses growable ones. */
static void *sab_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void sab_free(void *opaque, void *ptr)
{
    (void)opaque;
    free(ptr);
}

/* coderun_new makes a runtime and its context. max_stack_size is stored in
 * JSRuntime.stack_size (the host finds the field by it); a gc_threshold of
 * zero keeps QuickJS's default, any other value is the heap size past which
 * the cycle collector runs. memory_limit 0 means none (the host bounds the
 * linear memory). */
engine *EXPORT(coderun_new)(uint32_t memory_limit, uint32_t max_stack_size,
                            uint32_t unused, uint32_t gc_threshold)
{
    (void)unused;
    engine *e = malloc(sizeof(engine));
    if (!e)
        return NULL;
    e->rt = JS_NewRuntime();
    if (!e->rt) {
        free(e);
        return NULL;
    }
    if (memory_limit > 0)
        JS_SetMemoryLimit(e->rt, memory_limit);
    if (gc_threshold > 0)
        JS_SetGCThreshold(e->rt, gc_threshold);
    JS_SetMaxStackSize(e->rt, max_stack_size);
    JS_SetInterruptHandler(e->rt, coderun_interrupt, NULL);
    JS_SetModuleLoaderFunc(e->rt, NULL, coderun_module_loader, NULL);
    JSSharedArrayBufferFunctions sab = {.sab_alloc = sab_alloc, .sab_free = sab_free};
    JS_SetSharedArrayBufferFunctions(e->rt, &sab);
    e->ctx = JS_NewContext(e->rt);
    if (!e->ctx) {
        JS_FreeRuntime(e->rt);
        free(e);
        return NULL;
    }
    return e;
}

JSContext *EXPORT(coderun_context)(engine *e)
{
    return e->ctx;
}

eval_options *EXPORT(coderun_eval_options)(const char *source, const uint8_t *bytecode,
                                           uint32_t bytecode_len, const char *filename,
                                           int flags)
{
    eval_options *o = malloc(sizeof(eval_options));
    if (!o)
        return NULL;
    o->source = source;
    o->bytecode = bytecode;
    o->bytecode_len = bytecode_len;
    o->filename = filename ? filename : "<input>";
    o->flags = flags;
    return o;
}

/* coderun_eval evaluates source text, or bytecode from coderun_compile, and
 * returns its completion value (JS_EXCEPTION with the exception pending on
 * failure). It runs no pending jobs: the host drains them with
 * coderun_run_jobs. */
JSValue EXPORT(coderun_eval)(JSContext *ctx, const eval_options *o)
{
    if (o->bytecode) {
        JSValue fn = JS_ReadObject(ctx, o->bytecode, o->bytecode_len, JS_READ_OBJ_BYTECODE);
        if (JS_IsException(fn))
            return fn;
        return JS_EvalFunction(ctx, fn);
    }
    return JS_Eval(ctx, o->source, strlen(o->source), o->filename, o->flags);
}

/* pack returns a malloc'd (ptr << 32 | len), or NULL. */
static uint64_t *pack(const void *p, size_t len)
{
    uint64_t *r = malloc(sizeof(uint64_t));
    if (r)
        *r = (uint64_t)(uintptr_t)p << 32 | (uint32_t)len;
    return r;
}

/* coderun_compile compiles source text without running it and returns the
 * bytecode JS_WriteObject writes, packed, in memory the host frees with
 * free; NULL with the exception pending when compilation threw (or with
 * nothing pending when memory ran out). */
uint64_t *EXPORT(coderun_compile)(JSContext *ctx, const eval_options *o)
{
    JSValue fn = JS_Eval(ctx, o->source, strlen(o->source), o->filename,
                         o->flags | JS_EVAL_FLAG_COMPILE_ONLY);
    if (JS_IsException(fn))
        return NULL;
    size_t len = 0;
    uint8_t *bc = JS_WriteObject(ctx, &len, fn, JS_WRITE_OBJ_BYTECODE);
    JS_FreeValue(ctx, fn);
    if (!bc)
        return NULL;
    uint8_t *copy = malloc(len ? len : 1);
    uint64_t *r = NULL;
    if (copy) {
        memcpy(copy, bc, len);
        r = pack(copy, len);
        if (!r)
            free(copy);
    }
    js_free(ctx, bc);
    return r;
}

JSValue EXPORT(coderun_call)(JSContext *ctx, JSValue fn, JSValue this_val, int argc, uint64_t argv)
{
    return JS_Call(ctx, fn, this_val, argc, (JSValueConst *)(uintptr_t)argv);
}

/* coderun_to_cstring converts v to UTF-8 (WTF-8 for lone surrogates) and
 * returns the text packed; the host frees the text with JS_FreeCString and
 * the packed word with free. */
uint64_t *EXPORT(coderun_to_cstring)(JSContext *ctx, JSValue v)
{
    size_t len = 0;
    const char *s = JS_ToCStringLen(ctx, &len, v);
    if (!s)
        return NULL;
    uint64_t *r = pack(s, len);
    if (!r)
        JS_FreeCString(ctx, s);
    return r;
}

JSValue EXPORT(coderun_parse_json)(JSContext *ctx, const char *text)
{
    return JS_ParseJSON(ctx, text, strlen(text), "<json>");
}

/* host_function passes its arguments to the host as they are. */
static JSValue host_function(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return host_call(ctx, this_val, argc, argv);
}

/* coderun_new_function returns a function whose calls reach the host's raw
 * function, env.jsFunctionProxy, with their arguments as they are. */
JSValue EXPORT(coderun_new_function)(JSContext *ctx)
{
    return JS_NewCFunction(ctx, host_function, "host", 0);
}

/* coderun_run_jobs runs pending jobs until none is left or one throws; a
 * job's exception is left pending for the host (JSRuntime.current_exception). */
void EXPORT(coderun_run_jobs)(JSContext *ctx)
{
    JSRuntime *rt = JS_GetRuntime(ctx);
    JSContext *c;
    while (JS_ExecutePendingJob(rt, &c) > 0) {
    }
}
