package wasm

import (
	"bytes"
	"fmt"
)

// proxyKeysMessage is the error message js_proxy_get_own_property_names
// throws for an ownKeys element that is not a property key; the pass finds
// the function by it.
const proxyKeysMessage = "proxy: properties must be strings or symbols"

// guardProxyOwnKeysSize neutralizes QuickJS-NG's bug 252209d (fixed in
// 0.16.0): js_proxy_get_own_property_names allocates its property table as
// js_mallocz(ctx, len * sizeof(JSPropertyEnum)) with len the length an
// ownKeys trap's result claims. On wasm32 the product wraps around at 2^32
// from len = 2^29 on, a small table is allocated, and the loop that fills
// it writes past its end. The pass saturates the size: from len = 2^29 on,
// the request is 0xffffffff bytes, which malloc refuses without growing
// memory, so the engine throws its catchable out-of-memory error before
// reading a single key. (No list of 2^29 keys fits in a wasm32 memory, so
// such a length always ends in an error.)
//
// The function is found by structure: the only defined function of type
// (ctx, ptab, plen, obj JSValue) -> int that refers to proxyKeysMessage. In
// it, the size computation is the only
//
//	local.get len; i32.const 3; i32.shl; local.tee size; local.get 0; i32.load offset=16 (ctx->rt)
//
// and the pass inserts, right after the i32.shl,
//
//	i32.const -1; local.get len; i32.const 2^29; i32.lt_u; select
func guardProxyOwnKeysSize(m *Module) error {
	addr, err := m.cString(proxyKeysMessage)
	if err != nil {
		return fmt.Errorf("wasm: guard proxy ownKeys: %w", err)
	}
	want := FuncType{Params: []ValType{i32, i32, i32, i64}, Results: []ValType{i32}}
	found := -1
	for i := range m.Code {
		ft, ok := m.typeAt(m.Funcs[i])
		if !ok || !ft.Equal(want) || !refersTo(m.Code[i].Body, addr) {
			continue
		}
		if found >= 0 {
			return fmt.Errorf("wasm: guard proxy ownKeys: more than one function refers to %q", proxyKeysMessage)
		}
		found = i
	}
	if found < 0 {
		return fmt.Errorf("wasm: guard proxy ownKeys: js_proxy_get_own_property_names not found")
	}
	body := m.Code[found].Body
	site := -1
	for k := 0; k+5 < len(body); k++ {
		if body[k].Op == opLocalGet && body[k+1].Op == opI32Const && body[k+1].i32() == 3 && body[k+2].Op == opI32Shl &&
			body[k+3].Op == opLocalTee && body[k+4].Op == opLocalGet && body[k+4].A == 0 &&
			body[k+5].Op == opI32Load && body[k+5].B == 16 {
			if site >= 0 {
				return fmt.Errorf("wasm: guard proxy ownKeys: more than one table size computation")
			}
			site = k
		}
	}
	if site < 0 {
		return fmt.Errorf("wasm: guard proxy ownKeys: the table size computation was not found")
	}
	length := body[site].A
	guard := []Instr{
		i32Const(-1), indexed(opLocalGet, length), i32Const(1 << 29), simple(opI32LtU), simple(opSelect),
	}
	at := site + 3
	m.Code[found].Body = append(body[:at:at], append(guard, body[at:]...)...)
	return nil
}

// opI32Shl is i32.shl.
const opI32Shl Opcode = 0x74

// cString returns the address of the NUL-terminated string s in the
// module's active data segments; it must occur exactly once.
func (m *Module) cString(s string) (int32, error) {
	needle := append([]byte{0}, s...)
	needle = append(needle, 0)
	var addr int32
	n := 0
	for _, d := range m.Data {
		if d.Flags == 1 || len(d.Offset) != 2 || d.Offset[0].Op != opI32Const {
			continue
		}
		for from := 0; ; {
			i := bytes.Index(d.Init[from:], needle)
			if i < 0 {
				break
			}
			addr = d.Offset[0].i32() + int32(from+i+1)
			n++
			from += i + 1
		}
	}
	if n != 1 {
		return 0, fmt.Errorf("the string %q occurs %d times in the data, want once", s, n)
	}
	return addr, nil
}

// refersTo reports whether body has an i32.const addr.
func refersTo(body []Instr, addr int32) bool {
	for _, in := range body {
		if in.Op == opI32Const && in.i32() == addr {
			return true
		}
	}
	return false
}
