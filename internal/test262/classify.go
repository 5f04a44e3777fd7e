package test262

import (
	"context"
	"strings"
)

// Class is what a test's outcomes say about coderun.
type Class string

// The classes of a test.
const (
	// skipped: a module test, or one that needs the $262 host object.
	skipped Class = "skipped"
	// pass: the engine alone and coderun both pass.
	pass Class = "pass"
	// engineFails: the engine alone fails (coderun does too).
	engineFails Class = "engine fails"
	// coderunOnly: coderun passes a test the engine alone fails.
	coderunOnly Class = "coderun only"
	// inherentSloppy: a noStrict or raw test, which coderun runs in strict
	// mode, fails as a function body.
	inherentSloppy Class = "inherent: sloppy-mode test"
	// inherentBody: the test fails as an async function body on the engine
	// alone: global declarations, top-level this, and the like.
	inherentBody Class = "inherent: async function body"
	// Machinery: the engine alone passes the test as a function body, and
	// coderun fails it: the prelude, the transpiler or the host.
	Machinery Class = "machinery"
)

// Result is a test's outcomes and class.
type Result struct {
	Path  string `json:"path"`
	Class Class  `json:"class"`
	// Skip says why a Skipped test was not run.
	Skip string `json:"skip,omitempty"`
	// Why describes coderun's failure (or the engine's, for engineFails).
	Why string `json:"why,omitempty"`
	// BodyWhy describes the Body mode's failure of an inherent test.
	BodyWhy string   `json:"bodyWhy,omitempty"`
	Flags   []string `json:"flags,omitempty"`
}

// runner runs tests in every mode they need.
type runner struct {
	Suite   *suite
	Engine  *engine
	Coderun *Coderun
}

// run runs the test at path and classifies it.
func (r *runner) run(ctx context.Context, path string) (Result, error) {
	t, err := r.Suite.load(path)
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: path, Flags: t.Meta.Flags}
	if res.Skip = r.Suite.Skip(t); res.Skip != "" {
		res.Class = skipped
		return res, nil
	}
	script, err := r.Suite.scriptSource(t)
	if err != nil {
		return Result{}, err
	}
	body, err := r.Suite.bodySource(t)
	if err != nil {
		return Result{}, err
	}
	enginePass, engineWhy := t.passed(r.Engine.runScript(ctx, script), false)
	coderunPass, coderunWhy := t.passed(r.Coderun.run(ctx, body), true)
	switch {
	case enginePass && coderunPass:
		res.Class = pass
		return res, nil
	case !enginePass && coderunPass:
		res.Class, res.Why = coderunOnly, engineWhy
		return res, nil
	case !enginePass:
		res.Class, res.Why = engineFails, engineWhy
		return res, nil
	}
	res.Why = coderunWhy
	if ok, why := t.passed(r.Engine.runBody(ctx, body), true); !ok {
		res.BodyWhy = why
		res.Class = inherentBody
		if !t.strict() {
			res.Class = inherentSloppy
		}
		return res, nil
	}
	res.Class = Machinery
	return res, nil
}

// summary counts results by class.
type summary map[Class]int

// Add counts res.
func (s summary) Add(res Result) {
	s[res.Class]++
	if res.Class == skipped {
		s[Class("skipped: "+strings.TrimPrefix(res.Skip, ""))]++
	}
}
