package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/coderun/coderun/internal/quickjs"
	"github.com/coderun/coderun/runtime/internal/transpile"
)

// The order of the snapshot's atom table. QuickJS names every string a
// program's code uses as a property, variable or constant by an atom, an
// index into the runtime's atom table; writing a function's bytecode
// (JS_WriteObject, which every compilation runs) zeroes a table as long as
// the highest atom index the function names less QuickJS's predefined
// atoms, growing it by half at a time, a fuel unit per entry. So what a
// program's compilation costs depends on where the names it uses sit in
// the snapshot's table: the build puts those that programs name first, and
// a program's own new names in the lowest free slots.

// atomOrder says how the build ordered the atom table (orderAtoms and
// trimImage).
type atomOrder struct {
	// Ordered is how many atoms orderAtoms gave a slot to.
	Ordered int
	// Free is the number of free atom slots in the image, sorted; SortErr
	// is set (wrapping quickjs.ErrLayoutMismatch) when they could not be
	// sorted, after Init or at the end of the build.
	Free    int
	SortErr error
}

// reservedAtoms is how many free atom slots the image keeps right after
// the program's file name, for the names a program makes (its variables,
// properties, strings): they are the lowest free slots, so a program's
// first names take them. MainName follows them, so a compilation's table
// starts long enough for all of them; the more there are, the longer it
// starts and the farther its first growth (by half) reaches among the
// prelude's names. With 40, each program of TestWebGlobalsCostUnusedNothing's
// table spends at most 8 units more than at 1258cef, before the atoms were
// ordered, and most of them about 240 less.
const reservedAtoms = 40

// preludeGlobals are the names the prelude gives programs: console and its
// methods, the timers and input (TestPreludeGlobalsAreGlobals).
var preludeGlobals = []string{"console", "log", "info", "warn", "error", "debug",
	"setTimeout", "clearTimeout", "setInterval", "clearInterval", "input"}

// orderAtoms arranges the free atom slots, before the prelude's bytecode
// makes its atoms, so that the atoms programs name get the lowest indices,
// because compiling a program costs fuel by the highest index it names
// (see the top of this file). In order, after the atoms QuickJS's own
// context makes:
//
//   - programFile, which every program's bytecode names;
//   - reservedAtoms free slots for a program's own new names;
//   - transpile.MainName, which every program's bytecode names first;
//     programFile and MainName are made here, and the image keeps them;
//   - preludeGlobals, which programs name to use what the prelude gives
//     them, and the names of lazyObjects' members, which programs name and
//     QuickJS makes only when an object is first used;
//   - the names of names' bytecode (the prelude without the web globals'
//     installer), shortest first: a program's own names, when the prelude
//     has them too (i, a, key, id, …), are mostly short.
//
// Then the prelude's other names (the web globals' installer's), in the
// order its bytecode makes them, so that adding a web global moves no atom
// a program that does not use it names. Only the indices are arranged:
// the atoms are made when the prelude's bytecode is read, in its order, so
// their strings lie in memory as they would without the arrangement, next
// to the code that uses them (a run writes to an atom's page when it
// counts a reference to it).
func orderAtoms(ctx context.Context, qe *quickjs.Engine, in *quickjs.Instance, names string, prelude []byte) (atomOrder, error) {
	var a atomOrder
	// Of the program's file: its file name, which its bytecode names too,
	// is then the first of its two atoms rather than a third one that
	// would be freed after it ran.
	pin, err := compileStrings(ctx, qe, []string{programFile, transpile.MainName}, programFile)
	if err != nil {
		return a, err
	}
	seq, err := atomsToMake(in, pin, prelude)
	if errors.Is(err, quickjs.ErrLayoutMismatch) {
		a.SortErr = err
		return a, evalPin(in, pin)
	}
	if err != nil {
		return a, err
	}
	if err := makeRoom(ctx, qe, in, len(seq)+reservedAtoms); err != nil {
		return a, err
	}
	prio, err := atomPriority(ctx, qe, names)
	if err != nil {
		return a, err
	}
	free, err := in.SortFreeAtoms()
	if err != nil || len(free) < len(seq)+reservedAtoms {
		a.SortErr = errors.Join(err, fmt.Errorf("%w: %d free atom slots for %d atoms", quickjs.ErrLayoutMismatch, len(free), len(seq)))
		return a, evalPin(in, pin)
	}
	inSeq := map[string]bool{}
	for _, x := range seq {
		inSeq[x.Name] = x.String
	}
	slot, taken, k := map[string]uint32{}, map[uint32]bool{}, 0
	var reserved []uint32
	for _, name := range prio {
		_, done := slot[name]
		switch {
		case name == "":
			reserved = append(reserved, free[k])
			taken[free[k]], k = true, k+1
		case inSeq[name] && !done:
			slot[name], taken[free[k]], k = free[k], true, k+1
		}
	}
	order := make([]uint32, 0, len(free))
	for _, x := range seq {
		s, ok := slot[x.Name]
		if !ok || !x.String {
			for taken[free[k]] {
				k++
			}
			s, taken[free[k]] = free[k], true
		}
		order = append(order, s)
	}
	// The atoms the prelude makes as it runs (a builtin's members, made on
	// first use) take the slots left, the reserved ones last.
	for _, f := range free {
		if !taken[f] {
			order = append(order, f)
		}
	}
	if _, err := in.OrderFreeAtoms(append(order, reserved...)); err != nil {
		a.SortErr = err
	}
	a.Ordered = len(seq)
	return a, evalPin(in, pin)
}

// atomPriority returns the names orderAtoms places first, in order, an
// empty name for each reserved slot.
func atomPriority(ctx context.Context, qe *quickjs.Engine, names string) ([]string, error) {
	code, err := compileForSnapshot(ctx, qe, names, preludeFile)
	if err != nil {
		return nil, fmt.Errorf("compiling the prelude for its names: %w", err)
	}
	table, err := quickjs.BytecodeAtoms(code)
	if err != nil {
		return nil, err
	}
	var byLength []string
	for _, x := range table {
		if x.String {
			byLength = append(byLength, x.Name)
		}
	}
	slices.SortStableFunc(byLength, func(x, y string) int { return cmp.Compare(len(x), len(y)) })
	lazy, err := lazyBuiltinNames(ctx, qe)
	if err != nil {
		return nil, err
	}
	prio := append([]string{programFile}, make([]string, reservedAtoms)...)
	prio = append(append(append(prio, transpile.MainName), preludeGlobals...), lazy...)
	return append(prio, byLength...), nil
}

// atomsToMake returns the atoms that evaluating pin, then prelude, makes
// in the instance, in the order it makes them: their tables' entries that
// the instance does not have (symbols always).
func atomsToMake(in *quickjs.Instance, pin, prelude []byte) ([]quickjs.BytecodeAtom, error) {
	var all []quickjs.BytecodeAtom
	for _, code := range [][]byte{pin, prelude} {
		table, err := quickjs.BytecodeAtoms(code)
		if err != nil {
			return nil, err
		}
		all = append(all, table...)
	}
	names := make([]string, len(all))
	for i, x := range all {
		names[i] = x.Name
	}
	have, err := in.ExistingAtoms(names)
	if err != nil {
		return nil, err
	}
	var seq []quickjs.BytecodeAtom
	seen := map[string]bool{}
	for i, x := range all {
		if x.String && (have[i] || seen[x.Name]) {
			continue
		}
		seen[x.Name] = x.String
		seq = append(seq, x)
	}
	return seq, nil
}

// makeRoom makes the atom table hold at least n free slots, which
// OrderFreeAtoms can arrange: QuickJS grows the table only when it runs out
// of them. It makes n atoms of names no program uses and frees them.
func makeRoom(ctx context.Context, qe *quickjs.Engine, in *quickjs.Instance, n int) error {
	list := make([]string, n)
	for i := range list {
		list[i] = "\x00" + strconv.Itoa(i)
	}
	code, err := compileStrings(ctx, qe, list, preludeFile)
	if err != nil {
		return err
	}
	v, err := in.EvalBytecode(code, quickjs.EvalGlobal)
	if err != nil || v.IsException() {
		return fmt.Errorf("making room in the atom table: %v", err)
	}
	return in.FreeValue(v)
}

// lazyObjects are the standard objects whose members QuickJS-NG makes on
// their first use (JS_OBJECT_DEF in quickjs.c; Atomics is not built in),
// and with them their names' atoms: Math.max, JSON.stringify, ….
const lazyObjects = "[Math, JSON, Reflect]"

// lazyBuiltinNames returns the names of lazyObjects' members, read in an
// instance of their own, so that the snapshot's does not make the objects.
func lazyBuiltinNames(ctx context.Context, qe *quickjs.Engine) ([]string, error) {
	in, err := templateInstance(ctx, qe)
	if err != nil {
		return nil, err
	}
	defer in.Close(ctx)
	v, err := in.Eval("JSON.stringify("+lazyObjects+".flatMap((o) => Object.getOwnPropertyNames(o)))", preludeFile, quickjs.EvalGlobal)
	if err == nil && v.IsException() {
		err = describeException(in)
	}
	if err != nil {
		return nil, fmt.Errorf("listing the lazy builtins' names: %w", err)
	}
	text, err := in.String(v)
	if err != nil {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal([]byte(text), &names); err != nil {
		return nil, fmt.Errorf("listing the lazy builtins' names: %w", err)
	}
	return names, nil
}

// compileStrings compiles a script of the given file whose value is an
// array of the strings in list, which its evaluation makes atoms in that
// order.
func compileStrings(ctx context.Context, qe *quickjs.Engine, list []string, file string) ([]byte, error) {
	src, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	code, err := compileForSnapshot(ctx, qe, string(src), file)
	if err != nil {
		return nil, fmt.Errorf("compiling the names to make atoms: %w", err)
	}
	return code, nil
}

// evalPin evaluates pin, which compileStrings made, in the snapshot
// instance, and keeps its value: the image holds its names.
func evalPin(in *quickjs.Instance, pin []byte) error {
	v, err := in.EvalBytecode(pin, quickjs.EvalGlobal)
	if err != nil || v.IsException() {
		return fmt.Errorf("evaluating the names to pin: %v", err)
	}
	return nil
}
