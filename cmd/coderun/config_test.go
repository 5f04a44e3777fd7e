package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// envServerEnv makes the test binary an MCP server on its stdio (see
// TestMain) with one tool, env, that returns an environment variable.
const envServerEnv = "CODERUN_TEST_ENV_SERVER"

// serveEnvServer serves the env tool on stdio until the client leaves.
func serveEnvServer() {
	s := sdk.NewServer(&sdk.Implementation{Name: "env", Version: "1"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "env"}, func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: os.Getenv(a.Name)}}}, nil, nil
	})
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
}

// headerServer is a streamable HTTP MCP server with one tool, header, that
// returns a header of the request that called it.
func headerServer(t *testing.T) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "header"}, func(_ context.Context, req *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Extra.Header.Get(a.Name)}}}, nil, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// writeConfig writes a --config file and returns its path.
func writeConfig(t *testing.T, text string) string {
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// A --config file in the shape MCP clients use binds a command upstream
// (started with its env) and a streamable HTTP upstream (called with its
// headers), and unknown fields are ignored.
func TestConfigFile(t *testing.T) {
	cfg, err := json.Marshal(map[string]any{
		"globalShortcut": "Ctrl+Space", // a client's own setting
		"mcpServers": map[string]any{
			"local": map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"},
				"env": map[string]string{envServerEnv: "1", "GREETING": "hello from env"}, "disabled": false},
			"web": map[string]any{"type": "http", "url": headerServer(t), "headers": map[string]string{"X-Api-Key": "secret-key"}},
		},
	})
	require.NoError(t, err)
	file := writeConfig(t, string(cfg))
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--config", file, "-"},
		strings.NewReader(`return [await local.env({name: "GREETING"}), await web.header({name: "X-Api-Key"}), typeof local.env]`), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	var res struct{ Value json.RawMessage }
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	require.JSONEq(t, `["hello from env", "secret-key", "function"]`, string(res.Value))
	require.Empty(t, os.Getenv("GREETING"), "env is the upstream's, not this process's")
}

// A bad --config file fails before anything starts, naming the file, the
// place and the problem.
func TestConfigFileErrors(t *testing.T) {
	tests := []struct {
		name, text string
		args       []string // after --config FILE
		want       string   // after "--config FILE"
	}{
		{name: "not JSON", text: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n", want: ":3:26: invalid character '}' looking for beginning of object key string"},
		{name: "wrong type", text: `{"mcpServers": {"a": {"command": ["x"]}}}`, want: ":1:34: json: cannot unmarshal array into Go struct field serverEntry.mcpServers.command of type string"},
		{name: "no servers", text: `{"servers": {}}`, want: `: no servers: want {"mcpServers": {"NAME": {"command": "...", "args": [...]}, ...}}`},
		{name: "both", text: `{"mcpServers": {"a": {"command": "x", "url": "http://localhost"}}}`, want: `: mcpServers.a: has both "command" and "url": give one`},
		{name: "neither", text: `{"mcpServers": {"a": {"args": ["x"]}}}`, want: `: mcpServers.a: has neither "command" nor "url"`},
		{name: "sse", text: `{"mcpServers": {"a": {"type": "sse", "url": "http://localhost/sse"}}}`, want: `: mcpServers.a: has type "sse": the old HTTP+SSE transport is not supported`},
		{name: "command of type http", text: `{"mcpServers": {"a": {"type": "http", "command": "x"}}}`, want: `: mcpServers.a: has a "command" but type "http"`},
		{name: "bad url", text: `{"mcpServers": {"a": {"url": "localhost:8080"}}}`, want: `: mcpServers.a: "url" "localhost:8080" is not an http:// or https:// URL`},
		{name: "name not an identifier", text: `{"mcpServers": {"my-files": {"command": "true"}}}`,
			want: `: upstream "my-files": coderun: invalid binding declaration: binding global "my-files" is not a usable identifier`},
		{name: "name taken by --upstream", text: `{"mcpServers": {"a": {"command": "true"}}}`, args: []string{"--upstream", "a=false"},
			want: `--upstream a=false: upstream "a": coderun: invalid binding declaration: duplicate binding global "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := writeConfig(t, tc.text)
			for _, cmd := range []string{"run", "mcp"} {
				args := append([]string{cmd, "--config", file}, tc.args...)
				if cmd == "run" {
					args = append(args, "-")
				}
				var stdout, stderr bytes.Buffer
				code := run(args, strings.NewReader("return 1"), &stdout, &stderr)
				require.Equal(t, 2, code, "stderr: %s", stderr.String())
				want := tc.want
				if !strings.HasPrefix(want, "--upstream") {
					want = "--config " + file + want
					if strings.HasPrefix(tc.want, ": upstream") {
						want = "--config" + tc.want
					}
				}
				require.Contains(t, stderr.String(), want)
				require.Empty(t, stdout.String())
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, run([]string{"mcp", "--config", "/nonexistent/mcp.json"}, strings.NewReader(""), &stdout, &stderr))
		require.Contains(t, stderr.String(), "coderun mcp: --config /nonexistent/mcp.json: open /nonexistent/mcp.json: no such file or directory")
	})
	t.Run("too large", func(t *testing.T) {
		file := writeConfig(t, `{"mcpServers": {}, "pad": "`+strings.Repeat("x", maxConfigFile)+`"}`)
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, run([]string{"mcp", "--config", file}, strings.NewReader(""), &stdout, &stderr))
		require.Contains(t, stderr.String(), "the file is over 4194304 bytes")
	})
}
