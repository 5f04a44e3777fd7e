// Package budget is what coderun's budgets (fuel, compute time, wall time,
// memory, output, concurrency, program, argument and input size) cover and how
// their failures read:
//   - [Fields] is the one table of the budgets: their names, Go types,
//     units, defaults, bounds, help and doc comments. [Limits.Validate]
//     checks a run's budgets against it and reports a *[FieldError];
//     package coderun's defaults and the command line's flags are made from
//     it, and `go generate ./budget` writes from it the fields of [Limits]
//     (limits_gen.go) and of coderun.Config (config_gen.go). Adding a budget
//     is adding its row and running go generate (docs/how-it-works.md,
//     "Adding a budget").
//   - [Meter] meters a run's fuel and busy time and decides which of the
//     time budgets tripped.
//   - [Memory] is a run's memory account, guest and host; [Guest] charges an
//     instance's linear memory and the native stack its calls grow to it,
//     and says where QuickJS's stack limit goes.
//   - Each kind of failure has one function or method that words it
//     ([FuelMessage], [WallMessage], [Memory.Exceeded], [Memory.NoRoom], …).
//
// Budget imports nothing of coderun's: the runtime hands it a run's Limits
// once ([NewMeter], [NewMemory]) and asks it.
//
// Package budget is part of coderun's engine. It is not an API: it has no
// compatibility promise, and may change in any release. Use package coderun.
package budget

// fuelUnit documents what one unit of fuel is. The hardened QuickJS module
// (see package wasm, Fuel) charges:
//   - 1 unit each time any loop of the engine's C code (builtins, the
//     garbage collector, the parser, regular expressions, JSON, BigInt …)
//     branches back to its start (a loop that runs once is free), and 1
//     unit per 4 KiB moved by memory.copy or memory.fill;
//   - InterruptCost units each time QuickJS polls its interrupt handler,
//     which its interpreter does once per 10,000 interpreter operations
//     (function calls and backward jumps).
//
// In JavaScript terms a unit is roughly one function call or one backward
// jump (loop iteration) of the interpreter. The count depends only on the
// program and the binding results it sees, so the same program spends the
// same fuel on any machine.
const fuelUnit = "one repeated C loop iteration; 10,000 per 10,000 interpreter operations"

// InterruptCost is the fuel charged per QuickJS interrupt poll.
const InterruptCost = 10000

// MemoryPages returns MemoryBytes in 64 KiB wasm pages, rounded down.
func (l Limits) MemoryPages() uint32 { return uint32(l.MemoryBytes >> 16) }
