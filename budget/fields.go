package budget

import (
	"fmt"
	"reflect"
	"time"
)

// Unit is how a budget's value is measured, and so how it is written: the
// command line parses and prints each unit its own way.
type Unit int

// The units of budgets.
const (
	// Count is a whole number (of fuel units, of calls).
	Count Unit = iota
	// Size is a number of bytes.
	Size
	// Duration is a [time.Duration].
	Duration
)

// Field is one budget: a field of [Limits] and of coderun.Config, by the
// same name, with what validates it, its default, its flag's help and its
// documentation. Adding a budget is adding its row to [Fields] and running
// `go generate ./budget`, which writes both structs from the table
// (internal/budgetgen: budget/limits_gen.go and the root package's
// config_gen.go); validation, DefaultConfig and the command line's flags
// follow the row. What the budget bounds is then the runtime's to enforce,
// and the user-facing docs (docs/contract.md) to describe.
type Field struct {
	// Name is the Go field's name in Limits and coderun.Config.
	Name string
	// Type is the Go field's type, as written in Go: "uint64", "int64",
	// "int" or "time.Duration" (the one type of the unit Duration; a Size
	// is an int64).
	Type string
	// Unit is how the value is measured.
	Unit Unit
	// Default is coderun.DefaultConfig's value.
	Default int64
	// Min is the least valid value; Max, when not 0, the most.
	Min, Max int64
	// Help is the command line flag's help text: what the budget bounds.
	Help string
	// Doc is the doc comment of coderun.Config's field, without the
	// comment markers: one text that the generator wraps, beginning with
	// Name, its paragraphs separated by a blank line.
	Doc string
}

//go:generate go run ../internal/budgetgen -budget . -root ..

// DefaultFuel is the default fuel budget: about 60 seconds of CPU-bound
// work on the reference machine (see coderun.DefaultFuel).
const DefaultFuel = 4_000_000_000

// Fields returns the table of budgets, in the order of Limits' fields; the
// first field out of its bounds is the one [Limits.Validate] reports.
func Fields() []Field {
	return []Field{
		{Name: "Fuel", Type: "uint64", Unit: Count, Default: DefaultFuel, Min: 1,
			Help: "deterministic compute budget of a run, in fuel units",
			Doc: "Fuel is the deterministic compute budget, in fuel units. A unit is " +
				"roughly one function call or one backward jump (loop iteration) of the " +
				"interpreter, or one repeated loop iteration of the engine's C code; the " +
				"count depends only on the program and the binding results it sees."},
		{Name: "ComputeTime", Type: "time.Duration", Unit: Duration, Default: int64(60 * time.Second), Min: 1,
			Help: "a run's busy-time budget; time spent waiting on bindings and timers is not charged",
			Doc: "ComputeTime is the guest's busy time; time spent waiting on bindings and " +
				"timers is not charged."},
		{Name: "WallTime", Type: "time.Duration", Unit: Duration, Default: int64(10 * time.Minute), Min: 1,
			Help: "wall-clock ceiling of a run",
			Doc:  "WallTime is the wall-clock ceiling for the whole run."},
		{Name: "MemoryBytes", Type: "int64", Unit: Size, Default: 256 << 20, Min: 4 << 20, Max: 4 << 30,
			Help: "memory of a run: the guest's linear memory plus what the host holds for it",
			Doc: "MemoryBytes caps a run's memory: the guest's linear memory and native " +
				"stack, plus what the host holds for the run (its arguments, undelivered " +
				"results, logs, value, failure message and the compilation of its program; " +
				"docs/contract.md §4). Reaching it ends the run as worker-exit. It must be " +
				"between 4 MiB and 4 GiB."},
		{Name: "MaxOutputBytes", Type: "int64", Unit: Size, Default: 64 << 20, Min: 4,
			Help: "cap on a run's logs plus its value, as compact JSON in UTF-8",
			Doc: "MaxOutputBytes is the combined cap on the logs and the value (or the " +
				"failure message), counted as compact JSON in UTF-8. At least 4."},
		{Name: "MaxConcurrentCalls", Type: "int", Unit: Count, Default: 16, Min: 1,
			Help: "binding calls a run may have in flight; later calls wait their turn",
			Doc: "MaxConcurrentCalls is the number of binding calls a run may have in " +
				"flight; later calls wait their turn in submission order."},
		{Name: "MaxProgramBytes", Type: "int64", Unit: Size, Default: 1 << 20, Min: 1,
			Help: "cap on a program's source text",
			Doc: "MaxProgramBytes caps the size of a program's source text, in bytes of " +
				"UTF-8; a larger program fails as an exception (SyntaxError) before " +
				"anything compiles it. The limits on a program's compile work follow it: " +
				"at most a unit of work per 4 bytes (a token counts 1, a block 6, a new " +
				"name or a function 17) and two units of scope work per byte (a name " +
				"counts the depth it is nested at), so that raising it allows " +
				"proportionally larger programs and proportionally longer compiler calls, " +
				"which a cancel cannot interrupt."},
		{Name: "MaxArgumentBytes", Type: "int64", Unit: Size, Default: 8 << 20, Min: 2,
			Help: "cap on one binding call's argument, as JSON text",
			Doc: "MaxArgumentBytes caps the JSON text of one binding call's argument, in " +
				"bytes of UTF-8; a larger argument rejects the call in the program with a " +
				"message naming the limit. At least 2."},
		{Name: "MaxInputBytes", Type: "int64", Unit: Size, Default: 1 << 20, Min: 1,
			Help: "cap on a program's input data (run's --input, run_code's input), as JSON text",
			Doc: "MaxInputBytes caps Request.Input, the JSON text as given, in bytes; Run " +
				"refuses a larger input with an error wrapping ErrInvalidInput."},
	}
}

// FieldError reports the budget Field whose Value is out of its bounds.
// Its text reads "Field Reason, got Value"; package coderun prefixes it with
// "coderun: Config.".
type FieldError struct {
	Field  string // the Go field's name, such as "MemoryBytes"
	Value  any    // its value, as the field holds it
	Reason string // what it must be, such as "must be positive"
}

// Error implements error.
func (e *FieldError) Error() string { return fmt.Sprintf("%s %s, got %v", e.Field, e.Reason, e.Value) }

// Validate returns a *[FieldError] for the first field of l out of its
// bounds, or nil.
func (l Limits) Validate() error {
	v := reflect.ValueOf(l)
	for _, f := range Fields() {
		if err := f.check(v.FieldByName(f.Name)); err != nil {
			return err
		}
	}
	return nil
}

// check returns the error of the value v of f, or nil.
func (f Field) check(v reflect.Value) *FieldError {
	var low, high bool
	if v.CanUint() {
		low = v.Uint() < uint64(f.Min)
		high = f.Max != 0 && v.Uint() > uint64(f.Max)
	} else {
		low = v.Int() < f.Min
		high = f.Max != 0 && v.Int() > f.Max
	}
	if !low && !high {
		return nil
	}
	return &FieldError{Field: f.Name, Value: v.Interface(), Reason: f.reason()}
}

// reason words f's bounds.
func (f Field) reason() string {
	switch {
	case f.Max != 0:
		return fmt.Sprintf("must be between %s and %s", f.bound(f.Min), f.bound(f.Max))
	case f.Min == 1:
		return "must be positive"
	}
	return fmt.Sprintf("must be at least %d", f.Min)
}

// bound words a bound of f: a size in its largest binary unit, followed by
// its bytes ("4 MiB (4194304)").
func (f Field) bound(n int64) string {
	if f.Unit != Size {
		return fmt.Sprint(n)
	}
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.bytes == 0 {
			return fmt.Sprintf("%d %s (%d)", n/u.bytes, u.name, n)
		}
	}
	return fmt.Sprint(n)
}

// Defaults returns the default budgets.
func Defaults() Limits {
	var l Limits
	v := reflect.ValueOf(&l).Elem()
	for _, f := range Fields() {
		if fv := v.FieldByName(f.Name); fv.CanUint() {
			fv.SetUint(uint64(f.Default))
		} else {
			fv.SetInt(f.Default)
		}
	}
	return l
}

// WithDefaults returns l with each zero field set to its default (see
// [Fields]): coderun.New reads a zero field of a Config as "the default",
// as net/http's Server does. Other values are kept as they are, for
// [Limits.Validate] to check: a negative one is still refused.
func (l Limits) WithDefaults() Limits {
	v := reflect.ValueOf(&l).Elem()
	for _, f := range Fields() {
		if fv := v.FieldByName(f.Name); fv.IsZero() {
			if fv.CanUint() {
				fv.SetUint(uint64(f.Default))
			} else {
				fv.SetInt(f.Default)
			}
		}
	}
	return l
}

// From returns the budgets held by the fields of the struct s (such as a
// coderun.Config) named as the rows of [Fields]. It panics when s lacks one
// or holds it in another type: a programming error that the tests of s's
// package catch.
func From(s any) Limits {
	var l Limits
	dst, src := reflect.ValueOf(&l).Elem(), reflect.ValueOf(s)
	for _, f := range Fields() {
		dst.FieldByName(f.Name).Set(src.FieldByName(f.Name))
	}
	return l
}

// CopyTo sets the fields of the struct *p (such as a coderun.Config) named
// as the rows of [Fields] to l's. It panics as [From] does.
func (l Limits) CopyTo(p any) {
	dst, src := reflect.ValueOf(p).Elem(), reflect.ValueOf(l)
	for _, f := range Fields() {
		dst.FieldByName(f.Name).Set(src.FieldByName(f.Name))
	}
}
