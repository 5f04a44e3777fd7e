package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun/mcp"
)

// configUsageText documents --config for both commands.
const configUsageText = "read upstream MCP servers from `FILE`, in the mcpServers JSON shape of MCP clients' configuration " +
	`({"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...}}, "NAME": {"url": "...", "headers": {...}}}}); ` +
	"each NAME is a namespace, as with --upstream (repeatable)"

// maxConfigFile bounds what --config reads: a configuration file is small.
const maxConfigFile = 4 << 20

// serversFile is the configuration file of MCP clients (Claude Desktop,
// Cursor, VS Code …): the servers by name. Fields other than those below
// are ignored.
type serversFile struct {
	MCPServers map[string]serverEntry `json:"mcpServers"`
}

// serverEntry is one server of a serversFile: a command speaking MCP over
// its stdio, or the URL of a streamable HTTP endpoint.
type serverEntry struct {
	Type    string            `json:"type"` // "stdio", "http", "streamable-http" or absent
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// configFiles collects repeated --config flags.
type configFiles []string

// String implements flag.Value.
func (c *configFiles) String() string {
	if c == nil {
		return ""
	}
	return strings.Join(*c, " ")
}

// Set implements flag.Value.
func (c *configFiles) Set(v string) error {
	*c = append(*c, v)
	return nil
}

// upstreams reads every file of c and makes their upstreams, in file order
// and by name within a file; it starts nothing. The error names the file.
func (c configFiles) upstreams(stderr io.Writer, logger *slog.Logger) ([]*mcp.Upstream, error) {
	var ups []*mcp.Upstream
	for _, file := range c {
		b, err := readConfigFile(file)
		if err != nil {
			return nil, fmt.Errorf("--config %s: %w", file, err)
		}
		more, err := parseServers(b, stderr, logger)
		if err != nil {
			return nil, fmt.Errorf("--config %s%w", file, err)
		}
		ups = append(ups, more...)
	}
	return ups, nil
}

// readConfigFile reads file, refusing one over maxConfigFile.
func readConfigFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigFile {
		return nil, fmt.Errorf("the file is over %d bytes; a configuration file is not that large", maxConfigFile)
	}
	return b, nil
}

// parseServers makes the upstreams of a serversFile. Its errors start with
// ":LINE:COLUMN: " for a JSON error, else ": ", to follow the file's name.
func parseServers(b []byte, stderr io.Writer, logger *slog.Logger) ([]*mcp.Upstream, error) {
	var f serversFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, jsonError(b, err)
	}
	if len(f.MCPServers) == 0 {
		return nil, errors.New(`: no servers: want {"mcpServers": {"NAME": {"command": "...", "args": [...]}, ...}}`)
	}
	var ups []*mcp.Upstream
	for _, name := range slices.Sorted(maps.Keys(f.MCPServers)) {
		u, err := f.MCPServers[name].upstream(name, stderr, logger)
		if err != nil {
			return nil, fmt.Errorf(": mcpServers.%s: %w", name, err)
		}
		ups = append(ups, u)
	}
	return ups, nil
}

// jsonError says where in b a json.Unmarshal error is, as ":LINE:COLUMN: ".
func jsonError(b []byte, err error) error {
	var offset int64
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	default:
		return fmt.Errorf(": %w", err)
	}
	// Offset counts the bytes read up to the offending one, which it
	// includes: the position is that of the byte at Offset-1.
	before := b[:min(max(offset-1, 0), int64(len(b)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf(":%d:%d: %w", line, col, err)
}

// upstream makes the upstream named name that e describes.
func (e serverEntry) upstream(name string, stderr io.Writer, logger *slog.Logger) (*mcp.Upstream, error) {
	switch {
	case e.Command != "" && e.URL != "":
		return nil, errors.New(`has both "command" and "url": give one`)
	case e.Command != "":
		if e.Type != "" && e.Type != "stdio" {
			return nil, fmt.Errorf(`has a "command" but type %q: a command speaks MCP over stdio`, e.Type)
		}
		return mcp.NewCommandUpstreamEnv(name, append([]string{e.Command}, e.Args...), e.environ(), stderr, logger), nil
	case e.URL != "":
		return e.httpUpstream(name, logger)
	}
	return nil, errors.New(`has neither "command" nor "url"`)
}

// environ is this process's environment plus e.Env (which wins), or nil
// (inherit) when e.Env is empty, as MCP clients start servers.
func (e serverEntry) environ() []string {
	if len(e.Env) == 0 {
		return nil
	}
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		env = append(env, k+"="+e.Env[k])
	}
	return env
}

// httpUpstream makes an upstream served over streamable HTTP at e.URL, with
// e.Headers on every request.
func (e serverEntry) httpUpstream(name string, logger *slog.Logger) (*mcp.Upstream, error) {
	switch e.Type {
	case "", "http", "streamable-http", "streamableHttp":
	case "sse":
		return nil, errors.New(`has type "sse": the old HTTP+SSE transport is not supported; use the server's streamable HTTP endpoint`)
	default:
		return nil, fmt.Errorf(`has a "url" but type %q: a url is a streamable HTTP endpoint`, e.Type)
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf(`"url" %q is not an http:// or https:// URL`, e.URL)
	}
	header := http.Header{}
	for k, v := range e.Headers {
		header.Set(k, v)
	}
	client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, header: header}}
	endpoint := e.URL
	return mcp.NewUpstream(name, func(context.Context) (sdk.Transport, error) {
		return &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}, nil
	}, logger), nil
}

// headerTransport adds header to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}
