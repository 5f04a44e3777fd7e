package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/mcp"
)

// The drift test: every Config field has exactly one flag, named by the
// rule, whose help text is the field's entry of configUsage, and the flags
// set every field.
func TestConfigFlags(t *testing.T) {
	cfg := coderun.DefaultConfig()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerConfigFlags(fs, &cfg)

	fields := reflect.TypeFor[coderun.Config]()
	require.Len(t, configUsage, fields.NumField(), "configUsage has an entry per Config field, no more")
	names := map[string]bool{}
	for i := range fields.NumField() {
		field := fields.Field(i).Name
		f := fs.Lookup(flagName(field))
		require.NotNil(t, f, "Config.%s has no flag", field)
		require.False(t, names[f.Name], "two fields have the flag --%s", f.Name)
		names[f.Name] = true
		require.NotEmpty(t, configUsage[field], "Config.%s has no help text", field)
		require.Equal(t, configUsage[field], f.Usage)
	}
	var all []string
	fs.VisitAll(func(f *flag.Flag) { all = append(all, f.Name) })
	require.Len(t, all, fields.NumField())

	args := []string{"--fuel", "7", "--compute-time", "3s", "-wall-time", "4s", "--memory", "8MiB",
		"--max-output", "99", "--max-concurrent-calls", "5", "--max-program", "1KiB", "--max-argument=2000B", "--max-input", "3KiB", "--max-trace", "2MiB", "--cache-dir", "", "--prewarm", "2"}
	want := coderun.Config{Fuel: 7, ComputeTime: 3 * time.Second, WallTime: 4 * time.Second, MemoryBytes: 8 << 20,
		MaxOutputBytes: 99, MaxConcurrentCalls: 5, MaxProgramBytes: 1024, MaxArgumentBytes: 2000, MaxInputBytes: 3 << 10, MaxTraceBytes: 2 << 20, CacheDir: "", Prewarm: 2}
	args = appendOtherBudgets(args, &want)
	require.NoError(t, fs.Parse(args))
	require.Equal(t, want, cfg)
}

// appendOtherBudgets adds to args a flag setting each budget that want does
// not set to its least valid value, and sets it in want too: a budget added
// to budget.Fields is parsed without an edit here.
func appendOtherBudgets(args []string, want *coderun.Config) []string {
	v := reflect.ValueOf(want).Elem()
	for _, f := range budget.Fields() {
		field := v.FieldByName(f.Name)
		if !field.IsZero() {
			continue
		}
		switch {
		case f.Unit == budget.Duration:
			args = append(args, "--"+flagName(f.Name), time.Duration(f.Min).String())
		case f.Unit == budget.Size:
			args = append(args, "--"+flagName(f.Name), formatSize(f.Min))
		default:
			args = append(args, "--"+flagName(f.Name), strconv.FormatInt(f.Min, 10))
		}
		if field.CanUint() {
			field.SetUint(uint64(f.Min))
		} else {
			field.SetInt(f.Min)
		}
	}
	return args
}

func TestFlagName(t *testing.T) {
	for field, want := range map[string]string{
		"Fuel": "fuel", "WallTime": "wall-time", "MemoryBytes": "memory", "MaxOutputBytes": "max-output",
		"MaxConcurrentCalls": "max-concurrent-calls", "CacheDir": "cache-dir",
	} {
		require.Equal(t, want, flagName(field), field)
	}
}

// The flags of the two commands that run programs have the same Config
// flags, with the same defaults.
func TestConfigFlagsShared(t *testing.T) {
	defaults := func(c *command) map[string]string {
		m := map[string]string{}
		c.fs.VisitAll(func(f *flag.Flag) {
			if _, ok := f.Value.(fieldValue); ok {
				m[f.Name] = f.DefValue
			}
		})
		return m
	}
	runFlags := defaults(newRunCommand(&runOptions{cfg: coderun.DefaultConfig()}))
	require.Len(t, runFlags, reflect.TypeFor[coderun.Config]().NumField())
	require.Equal(t, runFlags, defaults(newMCPCommand(&mcpOptions{cfg: coderun.DefaultConfig()})))
	require.Equal(t, "64MiB", runFlags["max-output"])
	require.Equal(t, "10m0s", runFlags["wall-time"])
}

func TestSizes(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{in: "0", want: 0},
		{in: "65536", want: 65536},
		{in: "100B", want: 100},
		{in: "64KiB", want: 64 << 10},
		{in: "64MiB", want: 64 << 20},
		{in: "64 MiB", want: 64 << 20},
		{in: "64mib", want: 64 << 20},
		{in: "4GiB", want: 4 << 30},
		{in: "8589934591GiB", want: 8589934591 << 30},
		{in: "8589934592GiB", wantErr: "8589934592GiB is too large"},
		{in: "99999999999999999999", wantErr: "too large"},
		{in: "64MB", wantErr: `unknown unit "MB": sizes take B, KiB, MiB or GiB (1024-based; KB, MB and GB are not accepted)`},
		{in: "64M", wantErr: `unknown unit "M"`},
		{in: "1.5MiB", wantErr: `unknown unit ".5MiB"`},
		{in: "MiB", wantErr: "not a size such as 65536, 64KiB, 64MiB or 1GiB"},
		{in: "-1", wantErr: "not a size"},
		{in: "", wantErr: "not a size"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSize(tc.in)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, got, must(parseSize(formatSize(got))), "formatSize round trips")
		})
	}
	require.Equal(t, "256MiB", formatSize(256<<20))
	require.Equal(t, "1GiB", formatSize(1<<30))
	require.Equal(t, "1536KiB", formatSize(1536<<10))
	require.Equal(t, "1000", formatSize(1000))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A bad value names the flag and what it wants.
func TestConfigFlagErrors(t *testing.T) {
	tests := []struct{ args, want string }{
		{"--wall-time 30", `invalid value "30" for flag -wall-time: not a duration such as 30s, 1m30s or 500ms`},
		{"--memory 64MB", `invalid value "64MB" for flag -memory: unknown unit "MB": sizes take B, KiB, MiB or GiB (1024-based; KB, MB and GB are not accepted)`},
		{"--fuel -1", `invalid value "-1" for flag -fuel: not a whole number of at least 0`},
		{"--max-concurrent-calls many", `invalid value "many" for flag -max-concurrent-calls: not a whole number`},
		{"--WallTime 5s", "flag provided but not defined: -WallTime"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			cfg := coderun.DefaultConfig()
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			registerConfigFlags(fs, &cfg)
			require.EqualError(t, fs.Parse(strings.Fields(tc.args)), tc.want)
		})
	}
}

// coderun.New's errors name the flag besides the field.
func TestFlagError(t *testing.T) {
	cfg := coderun.DefaultConfig()
	cfg.MaxOutputBytes = 2
	_, err := coderun.New(cfg)
	require.Error(t, err)
	require.EqualError(t, flagError(err), "coderun: --max-output (Config.MaxOutputBytes) must be at least 4, got 2")
	require.EqualError(t, flagError(errors.New("Config.Nope and Config.WallTime")), "Config.Nope and --wall-time (Config.WallTime)")
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
			want: &mcp.HTTPOptions{SessionIdleTimeout: 10 * time.Minute, MaxSessions: 1024}},
		{name: "every flag", addr: ":8080", args: []string{"--allowed-origin", "https://a.example", "--allowed-origin", "https://b.example",
			"--token-file", tokenFile, "--stateless", "--session-idle-timeout", "1m", "--shutdown-grace", "5s", "--max-sessions", "8"},
			want: &mcp.HTTPOptions{AllowedOrigins: []string{"https://a.example", "https://b.example"}, Token: "from-file", Stateless: true, SessionIdleTimeout: time.Minute, MaxSessions: 8}},
		{name: "token from the environment", addr: "0.0.0.0:80", env: "from-env",
			want: &mcp.HTTPOptions{Token: "from-env", SessionIdleTimeout: 10 * time.Minute, MaxSessions: 1024}},
		{name: "the file wins over the environment", addr: ":80", env: "from-env", args: []string{"--token-file", tokenFile},
			want: &mcp.HTTPOptions{Token: "from-file", SessionIdleTimeout: 10 * time.Minute, MaxSessions: 1024}},
		{name: "all interfaces without a token", addr: ":8080", wantErr: "--http :8080 listens beyond loopback"},
		{name: "a LAN address without a token", addr: "192.168.1.5:8080", wantErr: "set a bearer token with --token-file FILE or CODERUN_TOKEN"},
		{name: "empty token file", addr: "localhost:1", args: []string{"--token-file", emptyFile}, wantErr: "the file is empty"},
		{name: "missing token file", addr: "localhost:1", args: []string{"--token-file", filepath.Join(dir, "nope")}, wantErr: "--token-file: open"},
		{name: "negative grace", addr: "localhost:1", args: []string{"--shutdown-grace", "-1s"}, wantErr: "must not be negative"},
		{name: "negative max sessions", addr: "localhost:1", args: []string{"--max-sessions", "-1"}, wantErr: "must not be negative"},
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
