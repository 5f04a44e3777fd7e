package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		value    string // expected JSON value, if any
		logs     []string
		kind     string
		stderrHa string
	}{
		{name: "example", args: []string{"run", "../../examples/hello.ts"}, code: 0,
			value: `{"revenue":510.5,"top":"linus","byCustomer":{"ada":120.5,"grace":80,"linus":310}}`, logs: []string{"live orders 3"}},
		{name: "stdin", args: []string{"run", "-"}, stdin: `console.log("hi"); return [1, "two"]`, code: 0, value: `[1,"two"]`, logs: []string{"hi"}},
		{name: "failure", args: []string{"run", "-"}, stdin: `throw new TypeError("nope")`, code: 1, kind: "exception"},
		{name: "budget flag", args: []string{"run", "-Fuel", "100000", "-"}, stdin: `for(;;){}`, code: 1, kind: "timeout"},
		{name: "no subcommand", args: nil, code: 2, stderrHa: "usage"},
		{name: "missing file", args: []string{"run", "/nonexistent/prog.ts"}, code: 2, stderrHa: "no such file"},
		{name: "bad flag", args: []string{"run", "-Bogus", "1", "x.ts"}, code: 2, stderrHa: "Bogus"},
		{name: "invalid config", args: []string{"run", "-MaxOutputBytes", "2", "-"}, stdin: "return 1", code: 2, stderrHa: "Config.MaxOutputBytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			require.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			if tc.stderrHa != "" {
				require.Contains(t, stderr.String(), tc.stderrHa)
				return
			}
			var res struct {
				Value json.RawMessage `json:"value"`
				Logs  []string        `json:"logs"`
				Error *struct{ Kind, Message string }
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), stdout.String())
			if tc.value != "" {
				require.JSONEq(t, tc.value, string(res.Value))
			}
			if tc.logs != nil {
				require.Equal(t, tc.logs, res.Logs)
			}
			if tc.kind != "" {
				require.NotNil(t, res.Error)
				require.Equal(t, tc.kind, res.Error.Kind)
			}
		})
	}
}
