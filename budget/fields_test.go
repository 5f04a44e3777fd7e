package budget

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// Every field of Limits is a row of Fields, in order, of a unit that fits
// its type; and the defaults are valid.
func TestFieldsCoverLimits(t *testing.T) {
	typ, fields := reflect.TypeFor[Limits](), Fields()
	if typ.NumField() != len(fields) {
		t.Fatalf("Limits has %d fields, Fields %d rows", typ.NumField(), len(fields))
	}
	for i, f := range fields {
		sf := typ.Field(i)
		if sf.Name != f.Name {
			t.Errorf("row %d is %s, field %d is %s", i, f.Name, i, sf.Name)
		}
		if isDuration := sf.Type == reflect.TypeFor[time.Duration](); isDuration != (f.Unit == Duration) {
			t.Errorf("%s: unit %d for a %s", f.Name, f.Unit, sf.Type)
		}
		if sf.Type.String() != f.Type {
			t.Errorf("%s: the row's Type is %q, the field's %s (run go generate ./budget)", f.Name, f.Type, sf.Type)
		}
		if f.Help == "" || f.Doc == "" || f.Min < 1 || (f.Max != 0 && f.Max < f.Min) {
			t.Errorf("%s: help %q, doc %q, bounds %d..%d", f.Name, f.Help, f.Doc, f.Min, f.Max)
		}
	}
	if err := Defaults().Validate(); err != nil {
		t.Fatal(err)
	}
}

// Validate names the first field out of bounds, its value and its bounds,
// as a *FieldError.
func TestValidate(t *testing.T) {
	tests := []struct {
		change func(*Limits)
		want   string
	}{
		{func(l *Limits) { l.Fuel = 0 }, "Fuel must be positive, got 0"},
		{func(l *Limits) { l.ComputeTime = -1 }, "ComputeTime must be positive, got -1ns"},
		{func(l *Limits) { l.WallTime = 0 }, "WallTime must be positive, got 0s"},
		{func(l *Limits) { l.MemoryBytes = 4<<20 - 1 },
			"MemoryBytes must be between 4 MiB (4194304) and 4 GiB (4294967296), got 4194303"},
		{func(l *Limits) { l.MemoryBytes = 4<<30 + 1 },
			"MemoryBytes must be between 4 MiB (4194304) and 4 GiB (4294967296), got 4294967297"},
		{func(l *Limits) { l.MaxOutputBytes = 3 }, "MaxOutputBytes must be at least 4, got 3"},
		{func(l *Limits) { l.MaxConcurrentCalls = -2 }, "MaxConcurrentCalls must be positive, got -2"},
		{func(l *Limits) { l.MaxProgramBytes = 0 }, "MaxProgramBytes must be positive, got 0"},
		{func(l *Limits) { l.MaxArgumentBytes = 1 }, "MaxArgumentBytes must be at least 2, got 1"},
		{func(l *Limits) { l.MaxInputBytes = 0 }, "MaxInputBytes must be positive, got 0"},
		{func(l *Limits) { l.Fuel, l.MaxArgumentBytes = 0, 1 }, "Fuel must be positive, got 0"},
		{func(l *Limits) { l.MemoryBytes, l.Fuel = 4<<20, 1 }, ""},
		{func(l *Limits) { l.MemoryBytes = 4 << 30 }, ""},
	}
	for _, tc := range tests {
		l := Defaults()
		tc.change(&l)
		err := l.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", l, err)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// From and CopyTo copy the budgets between Limits and a struct that holds
// them among other fields (the struct is made from the table, as
// coderun.Config's budget fields are, so that a new row needs no edit here).
func TestFromCopyTo(t *testing.T) {
	var fields []reflect.StructField
	for i := range reflect.TypeFor[Limits]().NumField() {
		fields = append(fields, reflect.TypeFor[Limits]().Field(i))
	}
	fields = append(fields, reflect.StructField{Name: "Other", Type: reflect.TypeFor[string]()})
	p := reflect.New(reflect.StructOf(fields))
	c := p.Elem()
	Defaults().CopyTo(p.Interface())
	if c.FieldByName("Fuel").Uint() != DefaultFuel || c.FieldByName("MemoryBytes").Int() != 256<<20 ||
		c.FieldByName("WallTime").Int() != int64(10*time.Minute) || c.FieldByName("Other").String() != "" {
		t.Fatalf("CopyTo: %+v", c.Interface())
	}
	c.FieldByName("MaxArgumentBytes").SetInt(9)
	want := Defaults()
	want.MaxArgumentBytes = 9
	if got := From(c.Interface()); got != want {
		t.Fatalf("From: %+v", got)
	}
}

// WithDefaults sets the zero fields, and only them, to their defaults: the
// zero Limits become Defaults(), a set field is kept, and a negative one is
// kept for Validate to refuse.
func TestWithDefaults(t *testing.T) {
	if got := (Limits{}).WithDefaults(); got != Defaults() {
		t.Errorf("zero Limits: got %+v, want %+v", got, Defaults())
	}
	l := Limits{Fuel: 5, MemoryBytes: 8 << 20, WallTime: -1}.WithDefaults()
	want := Defaults()
	want.Fuel, want.MemoryBytes, want.WallTime = 5, 8<<20, -1
	if l != want {
		t.Errorf("got %+v, want %+v", l, want)
	}
	if err := l.Validate(); err == nil || err.Error() != "WallTime must be positive, got -1ns" {
		t.Errorf("a negative field: got %v", err)
	}
}
