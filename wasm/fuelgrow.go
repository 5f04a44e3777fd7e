package wasm

// growChunkPages is the most pages one memory.grow adds after Fuel: a longer
// grow is split into grows of at most this many 64 KiB pages (1 MiB), each
// charged before it runs. The host's side of a grow can cost time
// proportional to its size (coderun's allocator makes grown pages resident
// at once, 1–3 µs per 4 KiB page), and a grow is one instruction, so
// without the split a 512 MiB string buffer was one 200 ms step with no
// fuel check in it.
const growChunkPages = 16

// growPageShift sets the charge of memory growth: each 64 KiB page grown
// costs 1 << growPageShift units (256: one unit per 256 bytes), so a chunk
// costs 4,096 units, for the 0.25–0.75 ms the host takes to make 1 MiB
// resident. A chunk's charge stays below budget.InterruptCost/2, which the
// runtime's budget.PollYield relies on to tell an interrupt poll's charge
// from any other.
const growPageShift = 8

// wasmMaxPages is the most pages a 32-bit memory can have.
const wasmMaxPages = 1 << 16

// Locals of the grow helper: the parameter n (pages), the charge's i64
// temporary, the size before the grow and the chunk.
const (
	growN, growTmp, growOld, growC = 0, 1, 2, 3
)

// addGrowHelper appends the function (n i32) -> i32 that Fuel calls instead
// of every memory.grow and returns its index. It returns what memory.grow n
// would: the size in pages before the grow, or -1 when the memory cannot
// grow by n pages. A grow past the memory's declared maximum (or the 4 GiB
// of a 32-bit memory) fails at once; otherwise the memory grows
// growChunkPages at a time, each chunk charged n << growPageShift units
// first, so a long grow has a fuel check (a possible yield) every 1 MiB.
// Unlike one memory.grow, a grow that the host refuses part way (a limit
// the module does not declare, such as wazero's WithMemoryLimitPages or a
// host allocator's) leaves the chunks before it grown; Harden's growTrap
// makes every failed grow trap, so that state is never used.
func addGrowHelper(m *Module, ch charger) uint32 {
	limit := uint32(wasmMaxPages)
	if len(m.Memories) > 0 && m.Memories[0].hasMax() {
		limit = m.Memories[0].Max
	}
	fail := []Instr{blockInstr(opIf, blockEmpty), i32Const(-1), simple(opReturn), simple(opEnd)}
	b := []Instr{
		simple(opMemorySize), indexed(opLocalTee, growOld), simple(opI64ExtendI32U),
		indexed(opLocalGet, growN), simple(opI64ExtendI32U), simple(opI64Add),
		i64Const(int64(limit)), simple(opI64GtU),
	}
	b = append(b, fail...)
	b = append(b,
		blockInstr(opLoop, blockEmpty),
		indexed(opLocalGet, growN), i32Const(growChunkPages),
		indexed(opLocalGet, growN), i32Const(growChunkPages), simple(opI32LtU),
		simple(opSelect), indexed(opLocalSet, growC))
	b = ch.charge(b, growTmp, indexed(opLocalGet, growC), simple(opI64ExtendI32U), i64Const(growPageShift), simple(opI64Shl))
	b = append(b, indexed(opLocalGet, growC), simple(opMemoryGrow), i32Const(-1), simple(opI32Eq))
	b = append(b, fail...)
	b = append(b,
		indexed(opLocalGet, growN), indexed(opLocalGet, growC), simple(opI32Sub), indexed(opLocalTee, growN),
		indexed(opBrIf, 0),
		simple(opEnd), // loop
		indexed(opLocalGet, growOld),
		simple(opEnd)) // function
	return m.addFunc(FuncType{Params: []ValType{i32}, Results: []ValType{i32}}, []LocalGroup{{1, i64}, {2, i32}}, b)
}
