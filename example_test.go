package coderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/coderun/coderun"
)

// WeatherArgs is the argument of the weather function below.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"a city name, e.g. Paris"`
	Days int    `json:"days,omitempty" jsonschema:"how many days ahead; 1 when absent"`
}

// Forecast is its result.
type Forecast struct {
	City    string    `json:"city"`
	Celsius []float64 `json:"celsius"`
}

// weather is a typed host function, bound with coderun.Bind.
func weather(_ context.Context, in WeatherArgs) (Forecast, error) {
	days := max(in.Days, 1)
	f := Forecast{City: in.City}
	for i := range days {
		f.Celsius = append(f.Celsius, 20+float64(i))
	}
	return f, nil
}

// A program runs in a fresh sandbox; what it returned, what it printed and
// how it failed come back as data. Data goes in as Request.Input; the
// program calls host functions through a namespace, and a host error
// reaches it as an instance of the declared error class. A failure says
// which budget, if any, ended the run.
func Example() {
	ctx := context.Background()
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)

	search := func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in struct{ Q string }
		if err := json.Unmarshal(args, &in); err != nil || in.Q == "" {
			return nil, errors.New("search needs {q: string}")
		}
		return json.Marshal(map[string]int{"hits": len(in.Q)})
	}
	tools := coderun.Namespace{
		Global:     "tools",
		Functions:  map[string]coderun.Func{"search": search},
		ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"},
	}

	res, err := rt.Run(ctx, coderun.Request{
		Program: `const found = await Promise.all(input.queries.map((q) => tools.search({q})));
try { await tools.search({}) } catch (e) { if (e instanceof ToolCallError) console.log(e.toolName, "failed:", e.message) }
return {hits: found.reduce((n, r) => n + r.hits, 0)}`,
		Input:    json.RawMessage(`{"queries": ["go", "wasm"]}`),
		Bindings: []coderun.Namespace{tools},
	})
	if err != nil { // only misuse: a closed Runtime, an invalid binding declaration or input
		log.Fatal(err)
	}
	if err := res.Err(); err != nil { // the run failed: res.Error says how
		log.Fatal(err)
	}
	fmt.Println(string(res.Value), res.Logs)

	// A failure is a Result too: a kind, the budget that ended the run (none
	// when the program itself failed) and a message a model can act on.
	res, _ = rt.Run(ctx, coderun.Request{Program: "const n: number = 1\nreturn n.toFixed(200)"})
	if f := res.Error; f != nil {
		switch f.Budget {
		case coderun.BudgetFuel, coderun.BudgetCompute, coderun.BudgetWall:
			fmt.Println("too slow:", f.Message)
		case coderun.BudgetMemory, coderun.BudgetOutput:
			fmt.Println("too big:", f.Message)
		default:
			fmt.Println(f.Kind, "|", f.Message)
		}
	}
	// Output:
	// {"hits":6} [search failed: search needs {q: string}]
	// exception | RangeError: invalid number of digits
	//     at toFixed (native)
	//     at <program> (program.ts:2:10)
}

// A typed Go function becomes an async function of the program's: its
// argument is decoded from the program's object and its result encoded
// back.
func ExampleBind() {
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(context.Background())

	tools := coderun.Namespace{
		Global:    "tools",
		Functions: map[string]coderun.Func{"weather": coderun.Bind(weather)},
	}
	res, err := rt.Run(context.Background(), coderun.Request{
		Program: `const f = await tools.weather({city: "Paris", days: 2});
return f.celsius.map(c => c + "°C").join(", ");`,
		Bindings: []coderun.Namespace{tools},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(res.Value))
	// Output: "20°C, 21°C"
}

// Describe documents a member made by Bind: its description and the
// schemas of its argument and result, inferred from the same Go types.
// Declarations renders them as TypeScript for a model's prompt.
func ExampleDescribe() {
	tools := coderun.Namespace{
		Global:    "tools",
		Functions: map[string]coderun.Func{"weather": coderun.Bind(weather)},
		Docs: map[string]coderun.Doc{
			"weather": coderun.Describe[WeatherArgs, Forecast]("Forecasts the weather, in degrees Celsius per day."),
		},
		ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"},
	}
	fmt.Print(tools.Declarations())
	// Output:
	// declare const tools: {
	//   /** Forecasts the weather, in degrees Celsius per day. */
	//   weather(args: {
	//     /** a city name, e.g. Paris */
	//     city: string;
	//     /** how many days ahead; 1 when absent */
	//     days?: number;
	//   }): Promise<{ city: string; celsius: number[] }>;
	// };
	// declare class ToolCallError extends Error { readonly toolName: string; }
}

// Members can be documented with JSON Schemas written by hand (or taken
// from elsewhere, as the MCP package does with its tools' schemas), and
// several namespaces that share an error class are declared together.
func ExampleDeclarations() {
	echo := func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }
	class := &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"}
	notes := coderun.Namespace{
		Global:    "notes",
		Functions: map[string]coderun.Func{"find": echo, "raw": echo},
		Docs: map[string]coderun.Doc{
			"find": {
				Description: "Finds notes by tag.",
				Input:       json.RawMessage(`{"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]}`),
				Output:      json.RawMessage(`{"type": "array", "items": {"type": "string"}}`),
			},
		},
		ErrorClass: class,
	}
	web := coderun.Namespace{Global: "web", Functions: map[string]coderun.Func{"fetch-page": echo}, ErrorClass: class}
	fmt.Print(coderun.Declarations(notes, web))
	// Output:
	// declare const notes: {
	//   /** Finds notes by tag. */
	//   find(args: { tag: string }): Promise<string[]>;
	//   raw(args: unknown): Promise<unknown>;
	// };
	//
	// declare const web: {
	//   "fetch-page"(args: unknown): Promise<unknown>;
	// };
	// declare class ToolCallError extends Error { readonly toolName: string; }
}

// Failure.Budget says which budget ended a run, for code to switch on;
// the message says the same for a person or a model.
func ExampleFailure_budget() {
	cfg := coderun.DefaultConfig()
	cfg.Fuel = 1_000_000
	rt, err := coderun.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(context.Background())

	res, err := rt.Run(context.Background(), coderun.Request{Program: `for (;;) {}`})
	if err != nil {
		log.Fatal(err)
	}
	if f := res.Error; f != nil {
		switch f.Budget {
		case coderun.BudgetFuel, coderun.BudgetCompute:
			fmt.Println("too much computation:", f.Message)
		case coderun.BudgetMemory:
			fmt.Println("too much memory:", f.Message)
		default:
			fmt.Println(f.Kind, f.Message)
		}
	}
	// Output: too much computation: fuel budget exhausted (1000000 units)
}

// AddFunc adds a typed Go function to a namespace and documents it in one
// call, its argument and result types inferred from the function: what
// Bind and Describe do, without writing the types twice.
func ExampleAddFunc() {
	tools := coderun.Namespace{Global: "tools"}
	coderun.AddFunc(&tools, "weather", "Forecasts the weather, in degrees Celsius per day.", weather)
	fmt.Print(tools.Declarations())

	rt, err := coderun.New(coderun.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(context.Background())
	res, err := rt.Run(context.Background(), coderun.Request{
		Program:  `return (await tools.weather({city: "Oslo"})).celsius`,
		Bindings: []coderun.Namespace{tools},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(res.Value), res.Err())
	// Output:
	// declare const tools: {
	//   /** Forecasts the weather, in degrees Celsius per day. */
	//   weather(args: {
	//     /** a city name, e.g. Paris */
	//     city: string;
	//     /** how many days ahead; 1 when absent */
	//     days?: number;
	//   }): Promise<{ city: string; celsius: number[] }>;
	// };
	// [20] <nil>
}

// Data goes into a run as Request.Input, not spliced into the program's
// text: the program reads it as the frozen global input, and one program
// run with many inputs compiles once.
func ExampleRequest_input() {
	ctx := context.Background()
	rt, err := coderun.New(coderun.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)

	const program = `const total = input.orders.reduce((sum, o) => sum + o.amount, 0)
return {customer: input.customer, total}`
	for _, in := range []string{
		`{"customer": "ada", "orders": [{"amount": 120.5}, {"amount": 80}]}`,
		`{"customer": "linus", "orders": [{"amount": 310}]}`,
	} {
		res, err := rt.Run(ctx, coderun.Request{Program: program, Input: json.RawMessage(in)})
		if err != nil { // misuse: an input over Config.MaxInputBytes or not lossless JSON
			log.Fatal(err)
		}
		fmt.Println(string(res.Value), res.Err())
	}

	// The input is frozen: a program that needs to change it copies it.
	res, _ := rt.Run(ctx, coderun.Request{Program: `input.orders.push({amount: 1})`, Input: json.RawMessage(`{"orders": []}`)})
	fmt.Println(res.Error.Kind, "|", res.Error.Message)

	// An input that is not lossless JSON is refused before anything runs.
	_, err = rt.Run(ctx, coderun.Request{Program: "return input", Input: json.RawMessage(`{"id": 12345678901234567890}`)})
	fmt.Println(errors.Is(err, coderun.ErrInvalidInput), "|", err)
	// Output:
	// {"customer":"ada","total":200.5} <nil>
	// {"customer":"linus","total":310} <nil>
	// exception | TypeError: object is not extensible
	//     at push (native)
	//     at <program> (program.ts:1:14)
	// true | coderun: invalid Request.Input: it must be lossless JSON, as a binding's result must: integer beyond ±2^53: 12345678901234567890 at offset 7
}
