package coderun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// conformanceCase is one file of testdata/conformance: a program, config
// overrides, and the expected result. Each scenario of the contract (§8)
// that a program can express lives there.
type conformanceCase struct {
	Program string           `json:"program"`
	Config  map[string]any   `json:"config"`
	Tools   bool             `json:"tools"` // declare the standard "tools" namespace
	Expect  expectation      `json:"expect"`
	Then    *conformanceCase `json:"then"` // a following run on the same Runtime
}

type expectation struct {
	Value              json.RawMessage `json:"value"`
	NoValue            bool            `json:"noValue"`
	Generated          string          `json:"generated"`
	Logs               []string        `json:"logs"`
	LogsNonEmpty       bool            `json:"logsNonEmpty"`
	LogCount           int             `json:"logCount"`
	WithinCap          bool            `json:"withinCap"`
	Kind               string          `json:"kind"`
	Message            *string         `json:"message"`
	MessagePrefix      string          `json:"messagePrefix"`
	MessageContains    []string        `json:"messageContains"`
	MessageNotContains []string        `json:"messageNotContains"`
}

// generated values too large to write in a case file.
var generated = map[string]func() string{
	"array-50000-sevens": func() string { return "[" + strings.TrimSuffix(strings.Repeat("7,", 50000), ",") + "]" },
	"nested-arrays-5000": func() string { return strings.Repeat("[", 5000) + strings.Repeat("]", 5000) },
	"string-x-1MiB":      func() string { return `"` + strings.Repeat("x", 1<<20) + `"` },
	"nested-arrays-3000": func() string { return strings.Repeat("[", 3000) + strings.Repeat("]", 3000) },
}

func TestConformance(t *testing.T) {
	files, err := filepath.Glob("testdata/conformance/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			var c conformanceCase
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&c), "case file")
			rt := newRuntime(t, c.Config)
			for step := &c; step != nil; step = step.Then {
				checkCase(t, rt, step)
			}
		})
	}
}

func newRuntime(t *testing.T, overrides map[string]any) *coderun.Runtime {
	t.Helper()
	cfg := coderun.DefaultConfig()
	for k, v := range overrides {
		f := v.(float64)
		switch k {
		case "Fuel":
			cfg.Fuel = uint64(f)
		case "ComputeTime":
			cfg.ComputeTime = time.Duration(f) * time.Millisecond
		case "WallTime":
			cfg.WallTime = time.Duration(f) * time.Millisecond
		case "MemoryBytes":
			cfg.MemoryBytes = int64(f)
		case "MaxOutputBytes":
			cfg.MaxOutputBytes = int64(f)
		case "MaxConcurrentCalls":
			cfg.MaxConcurrentCalls = int(f)
		default:
			t.Fatalf("unknown config field %q", k)
		}
	}
	rt, err := coderun.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

// toolsNamespace is the contract's standard namespace: echo returns
// {"echoed": args}, fail returns the error "nope", slow waits 1.5 s, never
// waits for its ctx.
func toolsNamespace() coderun.Namespace {
	return coderun.Namespace{
		Global: "tools",
		Functions: map[string]coderun.Func{
			"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"echoed":` + string(args) + `}`), nil
			},
			"fail": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return nil, errors.New("nope")
			},
			"slow": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				select {
				case <-time.After(1500 * time.Millisecond):
					return json.RawMessage(`"slow done"`), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
			"never": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
		},
		ErrorClass: &coderun.ErrorClass{Name: "ToolCallError", MemberNameProperty: "toolName"},
	}
}

func checkCase(t *testing.T, rt *coderun.Runtime, c *conformanceCase) {
	t.Helper()
	req := coderun.Request{Program: c.Program}
	if c.Tools {
		req.Bindings = []coderun.Namespace{toolsNamespace()}
	}
	res, err := rt.Run(context.Background(), req)
	require.NoError(t, err)
	e := c.Expect
	require.NotNil(t, res.Logs, "Logs is never nil")
	if e.Kind == "" {
		require.Nil(t, res.Error, "unexpected failure")
	} else {
		require.NotNil(t, res.Error, "expected a %s failure, got value %s", e.Kind, res.Value)
		require.Equal(t, e.Kind, string(res.Error.Kind), res.Error.Message)
		require.Nil(t, res.Value, "a failure has no value")
	}
	switch {
	case e.Generated != "":
		require.Equal(t, generated[e.Generated](), string(res.Value))
	case e.Value != nil:
		require.JSONEq(t, string(e.Value), string(res.Value))
	case e.NoValue:
		require.Nil(t, res.Value)
	}
	if e.Logs != nil {
		require.Equal(t, e.Logs, res.Logs)
	}
	if e.LogsNonEmpty {
		require.NotEmpty(t, res.Logs)
	}
	if e.LogCount > 0 {
		require.Len(t, res.Logs, e.LogCount)
	}
	if e.WithinCap {
		// The kept logs and the failure message fit in the cap together:
		// logs stop short of it by the room of the output-limit message.
		logs, _ := json.Marshal(res.Logs)
		msg, _ := json.Marshal(res.Error.Message)
		limit := int(c.Config["MaxOutputBytes"].(float64))
		require.LessOrEqual(t, len(logs)+len(msg), limit)
	}
	if res.Error != nil {
		msg := res.Error.Message
		if e.Message != nil {
			require.Equal(t, *e.Message, msg)
		}
		require.True(t, strings.HasPrefix(msg, e.MessagePrefix), "message %q lacks prefix %q", msg, e.MessagePrefix)
		for _, s := range e.MessageContains {
			require.Contains(t, msg, s)
		}
		for _, s := range e.MessageNotContains {
			require.NotContains(t, msg, s)
		}
	}
}
