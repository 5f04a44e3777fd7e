package wasm

import "fmt"

// DispatchExport is the name under which AddDispatcher exports its
// function.
const DispatchExport = "coderun_dispatch"

// DispatchOp selects the export that the dispatcher calls.
type DispatchOp uint32

// The dispatcher's operations, one per export the host calls. Each takes
// its export's parameters in order, as the dispatcher's arguments after
// op: an i32 parameter is the low 32 bits of its i64 argument.
const (
	DispatchMalloc       DispatchOp = iota // malloc (size i32) -> i32
	DispatchFree                           // free (ptr i32)
	DispatchNew                            // coderun_new (memLimit, maxStack, unused, gcThreshold i32) -> i32
	DispatchContext                        // coderun_context (engine i32) -> i32
	DispatchEvalOptions                    // coderun_eval_options (i32 ×5) -> i32
	DispatchEval                           // coderun_eval (ctx i32, opt i32) -> i64
	DispatchCall                           // coderun_call (ctx i32, fn i64, this i64, argc i32, argv i64) -> i64
	DispatchToCString                      // coderun_to_cstring (ctx i32, v i64) -> i32
	DispatchFreeCString                    // JS_FreeCString (ctx i32, ptr i32)
	DispatchFreeValue                      // JS_FreeValue (ctx i32, v i64)
	DispatchGetException                   // JS_GetException (ctx i32) -> i64
	DispatchParseJSON                      // coderun_parse_json (ctx i32, text i32) -> i64
	DispatchNewFunction                    // coderun_new_function (ctx i32) -> i64
	DispatchRunJobs                        // coderun_run_jobs (ctx i32)
	DispatchCompile                        // coderun_compile (ctx i32, opt i32) -> i32
	// DispatchWarm (arg i32) -> i32 enters a function whose native frame
	// (on the stack wazero runs compiled code on) holds warmLiveValues
	// values, and for an argument of 0 returns 0 at once, touching no
	// memory: a call that grows the host's native stack for this instance
	// in one step, ahead of the calls that need it. Other arguments take
	// the path that uses the frame; that path has no effect either.
	DispatchWarm
	// DispatchWarmDeep is DispatchWarm with a larger frame
	// (warmDeepLiveValues).
	DispatchWarmDeep
	numDispatchOps
)

// warmLiveValues and warmDeepLiveValues are, for DispatchWarm and
// DispatchWarmDeep, how many i64 values their function keeps live across a
// call on the path no caller takes: wazero's compiler gives each a spill slot, so the function's frame
// is 8 bytes per value plus 96, and the whole frame is claimed on entry,
// whichever path runs. wazero grows a stack that cannot hold a frame to
// twice its size plus that frame plus 16 bytes, so its initial 10 KiB
// becomes exactly 40 KiB (DispatchWarm) or 80 KiB (DispatchWarmDeep) in one
// growth: whole pages of Go's allocator, which would round anything a
// little larger up to the next page (internal/quickjs's TestWarmStackSize
// checks the sizes reached).
const (
	warmLiveValues     = 2546
	warmDeepLiveValues = 7666
)

// dispatchTarget is an export that the dispatcher calls, with the
// signature it must have.
type dispatchTarget struct {
	name string
	typ  FuncType
}

// dispatchTargets returns the exports the dispatcher calls, indexed by
// DispatchOp (DispatchWarm and DispatchWarmDeep excluded: the pass adds
// their functions).
func dispatchTargets() []dispatchTarget {
	f := func(params []ValType, results ...ValType) FuncType {
		return FuncType{Params: params, Results: results}
	}
	i32, i64 := i32, i64
	return []dispatchTarget{
		DispatchMalloc:       {"malloc", f([]ValType{i32}, i32)},
		DispatchFree:         {"free", f([]ValType{i32})},
		DispatchNew:          {"coderun_new", f([]ValType{i32, i32, i32, i32}, i32)},
		DispatchContext:      {"coderun_context", f([]ValType{i32}, i32)},
		DispatchEvalOptions:  {"coderun_eval_options", f([]ValType{i32, i32, i32, i32, i32}, i32)},
		DispatchEval:         {"coderun_eval", f([]ValType{i32, i32}, i64)},
		DispatchCall:         {"coderun_call", f([]ValType{i32, i64, i64, i32, i64}, i64)},
		DispatchToCString:    {"coderun_to_cstring", f([]ValType{i32, i64}, i32)},
		DispatchFreeCString:  {"JS_FreeCString", f([]ValType{i32, i32})},
		DispatchFreeValue:    {"JS_FreeValue", f([]ValType{i32, i64})},
		DispatchGetException: {"JS_GetException", f([]ValType{i32}, i64)},
		DispatchParseJSON:    {"coderun_parse_json", f([]ValType{i32, i32}, i64)},
		DispatchNewFunction:  {"coderun_new_function", f([]ValType{i32}, i64)},
		DispatchRunJobs:      {"coderun_run_jobs", f([]ValType{i32})},
		DispatchCompile:      {"coderun_compile", f([]ValType{i32, i32}, i32)},
	}
}

// dispatchArgs is the number of arguments after op: the most any target
// takes.
const dispatchArgs = 5

// AddDispatcher adds a function (op i32, a, b, c, d, e i64) -> i64,
// exported as DispatchExport, that calls the export op selects (see
// DispatchOp) with the leading arguments its signature takes, and returns
// its result (an i32 zero-extended, 0 when it has none). An unknown op
// traps.
//
// A host that calls every export through it makes one wazero call engine,
// with one native stack, per instance instead of one per export: each
// costs an allocation at lookup and a stack that grows by copying on its
// first deep call. Each export is found by name and must have the
// signature its DispatchOp documents, so a different build fails the pass
// rather than being called with the wrong arguments.
func AddDispatcher(m *Module) error {
	targets := dispatchTargets()
	funcs := make([]uint32, len(targets))
	for op, t := range targets {
		idx, ok := m.exportedFunc(t.name)
		if !ok {
			return fmt.Errorf("wasm: dispatcher: %q is not exported", t.name)
		}
		ft, ok := m.funcType(idx)
		if !ok || !ft.Equal(t.typ) {
			return fmt.Errorf("wasm: dispatcher: %q has type %v, want %v", t.name, ft, t.typ)
		}
		funcs[op] = idx
	}
	funcs = append(funcs, m.addWarm(warmLiveValues), m.addWarm(warmDeepLiveValues))

	// block ×(n+1); local.get op; br_table 0..n-1 default n; then, after
	// the end of block k, case k: its arguments, the call, the result as
	// i64, return. After the outermost block (an unknown op): unreachable.
	n := uint32(len(funcs))
	body := make([]Instr, 0, 16*n)
	for range n + 1 {
		body = append(body, blockInstr(opBlock, blockEmpty))
	}
	labels := make([]uint32, n)
	for k := range labels {
		labels[k] = uint32(k)
	}
	body = append(body, indexed(opLocalGet, 0), Instr{Op: opBrTable, Vec: labels, A: n})
	for _, f := range funcs {
		body = append(body, simple(opEnd))
		ft, _ := m.funcType(f)
		for i, p := range ft.Params {
			body = append(body, indexed(opLocalGet, uint32(1+i)))
			if p == i32 {
				body = append(body, simple(opI32WrapI64))
			}
		}
		body = append(body, indexed(opCall, f))
		switch {
		case len(ft.Results) == 0:
			body = append(body, i64Const(0))
		case ft.Results[0] == i32:
			body = append(body, simple(opI64ExtendI32U))
		}
		body = append(body, simple(opReturn))
	}
	body = append(body, simple(opEnd), simple(opUnreachable), simple(opEnd))

	params := []ValType{i32}
	for range dispatchArgs {
		params = append(params, i64)
	}
	d := m.addFunc(FuncType{Params: params, Results: []ValType{i64}}, nil, body)
	if err := m.addExport(Export{Name: DispatchExport, Kind: externFunc, Index: d}); err != nil {
		return fmt.Errorf("wasm: dispatcher: %w", err)
	}
	return nil
}

// addWarm appends a warm-up function (arg i32) -> i32 that keeps live
// values live (DispatchWarm, DispatchWarmDeep). For an argument of 0 it returns 0;
// otherwise it computes that many i64 values from the argument, calls
// itself with 0, and returns the low bits of their exclusive or with that
// call's result. The values are live across the call, so each needs a slot
// in the frame, and since they derive from the argument the compiler
// cannot tell that the path is never taken.
func (m *Module) addWarm(live int) uint32 {
	self := m.numImportedFuncs() + uint32(len(m.Funcs))
	body := make([]Instr, 0, 6*live+16)
	body = append(body,
		blockInstr(opBlock, blockEmpty),
		indexed(opLocalGet, 0), simple(opI32Eqz), indexed(opBrIf, 0))
	for k := range live {
		body = append(body, indexed(opLocalGet, 0), i32Const(int32(k+1)), simple(opI32Add), simple(opI64ExtendI32U))
	}
	body = append(body, i32Const(0), indexed(opCall, self), simple(opI64ExtendI32U))
	for range live {
		body = append(body, simple(opI64Xor))
	}
	body = append(body, simple(opI32WrapI64), simple(opReturn), simple(opEnd), i32Const(0), simple(opEnd))
	return m.addFunc(FuncType{Params: []ValType{i32}, Results: []ValType{i32}}, nil, body)
}
