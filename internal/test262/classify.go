package test262

import (
	"context"
	"strings"
)

// Class is what a test's outcomes say about coderun.
type Class string

// The classes of a test.
const (
	// Skipped: a module test, or one that needs the $262 host object.
	Skipped Class = "skipped"
	// Pass: the engine alone and coderun both pass.
	Pass Class = "pass"
	// EngineFails: the engine alone fails (coderun does too).
	EngineFails Class = "engine fails"
	// CoderunOnly: coderun passes a test the engine alone fails.
	CoderunOnly Class = "coderun only"
	// InherentSloppy: a noStrict or raw test, which coderun runs in strict
	// mode, fails as a function body.
	InherentSloppy Class = "inherent: sloppy-mode test"
	// InherentBody: the test fails as an async function body on the engine
	// alone: global declarations, top-level this, and the like.
	InherentBody Class = "inherent: async function body"
	// Neutralized: the test fails only because the prelude deleted engine
	// surface with known memory bugs (docs/engine-bugs.md).
	Neutralized Class = "neutralized on purpose"
	// Machinery: the engine alone passes the test as a function body, and
	// coderun fails it: the prelude, the transpiler or the host.
	Machinery Class = "machinery"
)

// neutralizeJS deletes what runtime/prelude.js deletes for known engine
// memory bugs; keep the two lists the same.
const neutralizeJS = `for (const [owner, name] of [
  [ArrayBuffer.prototype, "transfer"], [ArrayBuffer.prototype, "transferToFixedLength"],
  [ArrayBuffer.prototype, "resize"], [SharedArrayBuffer.prototype, "grow"],
  [Iterator, "concat"], [globalThis, "FinalizationRegistry"],
]) delete owner[name];`

// Result is a test's outcomes and class.
type Result struct {
	Path  string `json:"path"`
	Class Class  `json:"class"`
	// Skip says why a Skipped test was not run.
	Skip string `json:"skip,omitempty"`
	// Why describes coderun's failure (or the engine's, for EngineFails).
	Why string `json:"why,omitempty"`
	// BodyWhy describes the Body mode's failure of an inherent test.
	BodyWhy string   `json:"bodyWhy,omitempty"`
	Flags   []string `json:"flags,omitempty"`
}

// Runner runs tests in every mode they need.
type Runner struct {
	Suite   *Suite
	Engine  *Engine
	Coderun *Coderun
}

// Run runs the test at path and classifies it.
func (r *Runner) Run(ctx context.Context, path string) (Result, error) {
	t, err := r.Suite.Load(path)
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: path, Flags: t.Meta.Flags}
	if res.Skip = r.Suite.Skip(t); res.Skip != "" {
		res.Class = Skipped
		return res, nil
	}
	script, err := r.Suite.ScriptSource(t)
	if err != nil {
		return Result{}, err
	}
	body, err := r.Suite.BodySource(t)
	if err != nil {
		return Result{}, err
	}
	enginePass, engineWhy := t.Passed(r.Engine.RunScript(ctx, script, ""), false)
	coderunPass, coderunWhy := t.Passed(r.Coderun.Run(ctx, body), true)
	switch {
	case enginePass && coderunPass:
		res.Class = Pass
		return res, nil
	case !enginePass && coderunPass:
		res.Class, res.Why = CoderunOnly, engineWhy
		return res, nil
	case !enginePass:
		res.Class, res.Why = EngineFails, engineWhy
		return res, nil
	}
	res.Why = coderunWhy
	if ok, why := t.Passed(r.Engine.RunBody(ctx, body, ""), true); !ok {
		res.BodyWhy = why
		res.Class = InherentBody
		if !t.Strict() {
			res.Class = InherentSloppy
		}
		return res, nil
	}
	if ok, _ := t.Passed(r.Engine.RunBody(ctx, body, neutralizeJS), true); !ok {
		res.Class = Neutralized
		return res, nil
	}
	res.Class = Machinery
	return res, nil
}

// Summary counts results by class.
type Summary map[Class]int

// Add counts res.
func (s Summary) Add(res Result) {
	s[res.Class]++
	if res.Class == Skipped {
		s[Class("skipped: "+strings.TrimPrefix(res.Skip, ""))]++
	}
}
