package coderun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/coderun/coderun"
)

// A run that failed on data nobody can fetch again is recorded, its trace
// saved, and replayed: first as it was (the same failure, without calling
// the binding), then with a fix, against the same data.
func ExampleRuntime_Replay() {
	ctx := context.Background()
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)

	// Today's prices: one of them is missing.
	prices := coderun.Namespace{Global: "shop", Functions: map[string]coderun.Func{
		"prices": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`[{"sku":"a","eur":3},{"sku":"b"},{"sku":"c","eur":4}]`), nil
		},
	}}
	program := `const items = await shop.prices({});
return items.reduce((sum, it) => sum + it.eur.toFixed(2) * 1, 0);`
	res, trace, err := rt.Record(ctx, coderun.Request{Program: program, Bindings: []coderun.Namespace{prices}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("recorded:", res.Error.Kind)

	// The trace is a JSON document: keep it, read it back later.
	var saved bytes.Buffer
	if _, err := trace.WriteTo(&saved); err != nil {
		log.Fatal(err)
	}
	trace, err = coderun.ReadTrace(&saved, coderun.DefaultMaxTraceBytes)
	if err != nil {
		log.Fatal(err)
	}

	// Replayed as it was: the same failure, and no binding is called.
	again, err := rt.Replay(ctx, trace, coderun.ReplayOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replayed:", again.Error.Message == res.Error.Message, again.Usage.Fuel == res.Usage.Fuel)

	// The fix, run on the recorded data.
	fixed := `const items = await shop.prices({});
return items.reduce((sum, it) => sum + (it.eur ?? 0), 0);`
	fix, err := rt.Replay(ctx, trace, coderun.ReplayOptions{Program: fixed})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fixed:", string(fix.Value), fix.Error)
	// Output:
	// recorded: exception
	// replayed: true true
	// fixed: 7 <nil>
}

// A replayed program that departs from its recording stops at the first
// call the trace cannot answer, saying where and what the recording did.
func ExampleRuntime_Replay_divergence() {
	ctx := context.Background()
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	echo := coderun.Namespace{Global: "tools", Functions: map[string]coderun.Func{
		"echo": func(_ context.Context, a json.RawMessage) (json.RawMessage, error) { return a, nil },
	}}
	_, trace, err := rt.Record(ctx, coderun.Request{Program: `return await tools.echo({n: 1})`, Bindings: []coderun.Namespace{echo}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := rt.Replay(ctx, trace, coderun.ReplayOptions{Program: "const n = 2;\nreturn await tools.echo({n})"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Error.Kind, res.Error.Budget)
	fmt.Println(res.Error.Message)
	// Output:
	// worker-exit replay
	// replay diverged: the program made call 1, tools.echo with argument sha256:363379742f80b51b, but the recording made call 1, tools.echo with argument sha256:2bfd14f43d17fc7c (at program.ts:2:20)
}
