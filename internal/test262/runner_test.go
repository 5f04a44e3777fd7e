package test262

import (
	"context"
	"testing"
)

// TestRunnerClassifies runs the runner over testdata/suite, a stand-in
// for test262 with one test of each class, and checks each class.
func TestRunnerClassifies(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the engine")
	}
	ctx := context.Background()
	suite, err := newSuite("testdata/suite")
	if err != nil {
		t.Fatal(err)
	}
	engine, err := newEngine(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(ctx)
	cr, err := newCoderun()
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close(ctx)
	r := &runner{Suite: suite, Engine: engine, Coderun: cr}
	tests := []struct {
		path  string
		class Class
		skip  string
	}{
		{"cases/pass.js", pass, ""},
		{"cases/negative.js", pass, ""},
		{"cases/async.js", pass, ""},
		{"cases/async-fails.js", engineFails, ""},
		{"cases/engine-fails.js", engineFails, ""},
		{"cases/top-level-this.js", inherentBody, ""},
		{"cases/sloppy.js", inherentSloppy, ""},
		{"cases/deleted-before.js", pass, ""},
		{"cases/host.js", skipped, "$262"},
		{"cases/module.js", skipped, "module"},
		{"cases/template-object.js", Machinery, ""},
		{"cases/await-using-for-head.js", pass, ""},
		{"cases/added-identifiers.js", pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res, err := r.run(ctx, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if res.Class != tt.class || res.Skip != tt.skip {
				t.Errorf("class %q, want %q (%+v)", res.Class, tt.class, res)
			}
		})
	}
	paths, err := suite.Select([]string{"cases"}, []string{"cases/a"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cases/deleted-before.js", "cases/host.js", "cases/negative.js", "cases/sloppy.js", "cases/top-level-this.js"}
	if len(paths) != len(want) {
		t.Fatalf("selected %v, want %v", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Fatalf("selected %v, want %v", paths, want)
		}
	}
}
