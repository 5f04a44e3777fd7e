package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/mcp"
)

// Every Config field is a flag of the same name, and the flags set it.
func TestConfigFlags(t *testing.T) {
	cfg := coderun.DefaultConfig()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerConfigFlags(fs, &cfg)

	fields := reflect.TypeFor[coderun.Config]()
	for i := range fields.NumField() {
		require.NotNil(t, fs.Lookup(fields.Field(i).Name), "Config.%s has no flag", fields.Field(i).Name)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	require.Len(t, names, fields.NumField())

	require.NoError(t, fs.Parse([]string{"--Fuel", "7", "--ComputeTime", "3s", "--WallTime", "4s", "--MemoryBytes", "8388608",
		"--MaxOutputBytes", "99", "--MaxConcurrentCalls", "5", "--MaxProgramBytes", "1000", "--MaxArgumentBytes", "2000", "--CacheDir", "", "--Prewarm", "2"}))
	require.Equal(t, coderun.Config{Fuel: 7, ComputeTime: 3 * time.Second, WallTime: 4 * time.Second, MemoryBytes: 8 << 20,
		MaxOutputBytes: 99, MaxConcurrentCalls: 5, MaxProgramBytes: 1000, MaxArgumentBytes: 2000, CacheDir: "", Prewarm: 2}, cfg)
}

func TestUpstreamFlags(t *testing.T) {
	var u upstreamFlags
	require.NoError(t, u.Set(`files=node "my server.js" --root /tmp`))
	require.NoError(t, u.Set("web=./web-server"))
	require.Equal(t, upstreamFlags{
		{flag: `files=node "my server.js" --root /tmp`, name: "files", argv: []string{"node", "my server.js", "--root", "/tmp"}},
		{flag: "web=./web-server", name: "web", argv: []string{"./web-server"}},
	}, u)
	require.Equal(t, `files=node "my server.js" --root /tmp web=./web-server`, u.String())
	require.ErrorContains(t, u.Set("web"), "is not NAME=COMMAND")
	require.Len(t, u, 2)
}

func TestHTTPFlags(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("  from-file\n"), 0o600))
	emptyFile := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(emptyFile, []byte("\n"), 0o600))
	env := func(token string) func(string) string {
		return func(k string) string {
			if k == "CODERUN_TOKEN" {
				return token
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		args    []string
		addr    string
		env     string
		want    *mcp.HTTPOptions
		wantErr string
	}{
		{name: "defaults on loopback", addr: "localhost:8080",
			want: &mcp.HTTPOptions{SessionIdleTimeout: 10 * time.Minute}},
		{name: "every flag", addr: ":8080", args: []string{"--allowed-origin", "https://a.example", "--allowed-origin", "https://b.example",
			"--token-file", tokenFile, "--stateless", "--session-idle-timeout", "1m", "--shutdown-grace", "5s"},
			want: &mcp.HTTPOptions{AllowedOrigins: []string{"https://a.example", "https://b.example"}, Token: "from-file", Stateless: true, SessionIdleTimeout: time.Minute}},
		{name: "token from the environment", addr: "0.0.0.0:80", env: "from-env",
			want: &mcp.HTTPOptions{Token: "from-env", SessionIdleTimeout: 10 * time.Minute}},
		{name: "the file wins over the environment", addr: ":80", env: "from-env", args: []string{"--token-file", tokenFile},
			want: &mcp.HTTPOptions{Token: "from-file", SessionIdleTimeout: 10 * time.Minute}},
		{name: "all interfaces without a token", addr: ":8080", wantErr: "--http :8080 listens beyond loopback"},
		{name: "a LAN address without a token", addr: "192.168.1.5:8080", wantErr: "set a bearer token with --token-file FILE or CODERUN_TOKEN"},
		{name: "empty token file", addr: "localhost:1", args: []string{"--token-file", emptyFile}, wantErr: "the file is empty"},
		{name: "missing token file", addr: "localhost:1", args: []string{"--token-file", filepath.Join(dir, "nope")}, wantErr: "--token-file: open"},
		{name: "negative grace", addr: "localhost:1", args: []string{"--shutdown-grace", "-1s"}, wantErr: "must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hf httpFlags
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			hf.register(fs)
			require.NoError(t, fs.Parse(tc.args))
			got, err := hf.options(tc.addr, env(tc.env))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// The CLI caches the compiled engine under the user's cache directory; the
// library's default writes nothing.
func TestDefaultConfigCachesUnderUserCacheDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	require.Equal(t, filepath.Join(dir, "coderun"), defaultConfig().CacheDir)
	require.Empty(t, coderun.DefaultConfig().CacheDir)
}
