package wasm

import "fmt"

// Facts about QuickJS-NG's async generators in the pinned build that
// guardAsyncGeneratorResume relies on (quickjs.c, JSAsyncGeneratorData and
// JSAsyncGeneratorStateEnum).
const (
	asyncGenStateOffset    = 4  // offsetof(JSAsyncGeneratorData, state)
	asyncGenStateExecuting = 3  // JS_ASYNC_GENERATOR_STATE_EXECUTING
	asyncGenStateCompleted = 5  // JS_ASYNC_GENERATOR_STATE_COMPLETED
	asyncGenThrowFlag      = 20 // offsetof(JSAsyncGeneratorData, func_state.throw_flag)
	jsUndefined            = 3 << 32
)

// guardAsyncGeneratorResume backports QuickJS-NG's fix 5d48f1d (issue
// #1355, first released in v0.13.0). js_async_generator_resolve_function is
// the callback an async generator's awaited promise settles; its "restart
// the function after await" branch assumes the generator is still
// executing (an assert the release build compiles out). A program that
// re-enters the generator while it awaits (a `then` getter on
// Object.prototype calling return()/next()) makes that callback run on a
// generator that has completed and freed its frame: a use-after-free. The
// fix, reproduced here, returns undefined unless s->state is EXECUTING.
//
// The function is found by structure: the only function of the C-function-
// with-data type (ctx, this, argc, argv, magic, func_data) -> JSValue that
// tests `magic >= 2` and then stores COMPLETED into s->state, and whose code
// right after that `if` stores throw_flag (s+20). The guard
//
//	if (s->state != EXECUTING) return JS_UNDEFINED;
//
// is inserted right after that `if`, before the throw_flag store. Exactly
// one function must match.
func guardAsyncGeneratorResume(m *Module) error {
	want := FuncType{Params: []ValType{i32, i64, i32, i32, i32, i32}, Results: []ValType{i64}}
	found, at, state := -1, 0, uint32(0)
	for i := range m.Code {
		ft, ok := m.typeAt(m.Funcs[i])
		if !ok || !ft.Equal(want) {
			continue
		}
		if k, s, ok := asyncGenResumeSite(m.Code[i].Body); ok {
			if found >= 0 {
				return fmt.Errorf("wasm: guard async generator resume: more than one function matches")
			}
			found, at, state = i, k, s
		}
	}
	if found < 0 {
		return fmt.Errorf("wasm: guard async generator resume: js_async_generator_resolve_function not found")
	}
	guard := []Instr{
		indexed(opLocalGet, state), {Op: opI32Load, A: 2, B: asyncGenStateOffset},
		i32Const(asyncGenStateExecuting), simple(opI32Ne),
		blockInstr(opIf, blockEmpty),
		i64Const(jsUndefined), simple(opReturn),
		simple(opEnd),
	}
	code := &m.Code[found]
	code.Body = append(code.Body[:at:at], append(guard, code.Body[at:]...)...)
	return nil
}

// opI32Ne is i32.ne.
const opI32Ne Opcode = 0x47

// asyncGenResumeSite looks in body for
//
//	local.get 4; i32.const 2; i32.ge_s; if
//	  local.get S; i32.const COMPLETED; i32.store offset=state
//	  …
//	end
//	local.get S; i32.const throw_flag; i32.add; local.get _; i32.store8
//
// and returns the index right after that `end` and the local S.
func asyncGenResumeSite(body []Instr) (int, uint32, bool) {
	for k := 0; k+7 < len(body); k++ {
		if body[k].Op != opLocalGet || body[k].A != 4 ||
			body[k+1].Op != opI32Const || body[k+1].i32() != 2 ||
			body[k+2].Op != opI32GeS ||
			body[k+3].Op != opIf || body[k+3].block() != blockEmpty {
			continue
		}
		s := body[k+4]
		if s.Op != opLocalGet || body[k+5].Op != opI32Const || body[k+5].i32() != asyncGenStateCompleted ||
			body[k+6].Op != opI32Store || body[k+6].B != asyncGenStateOffset {
			continue
		}
		end, ok := matchingEnd(body, k+3)
		if !ok || end+5 >= len(body) {
			continue
		}
		after := body[end+1 : end+6]
		if after[0].Op == opLocalGet && after[0].A == s.A &&
			after[1].Op == opI32Const && after[1].i32() == asyncGenThrowFlag &&
			after[2].Op == opI32Add && after[3].Op == opLocalGet && after[4].Op == opI32Store8 {
			return end + 1, s.A, true
		}
	}
	return 0, 0, false
}

// Opcodes asyncGenResumeSite matches.
const (
	opI32GeS    Opcode = 0x4e
	opI32Store8 Opcode = 0x3a
)

// matchingEnd returns the index of the `end` that closes the block, loop or
// if at body[open].
func matchingEnd(body []Instr, open int) (int, bool) {
	depth := 0
	for i := open; i < len(body); i++ {
		switch body[i].Op {
		case opBlock, opLoop, opIf:
			depth++
		case opEnd:
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}
