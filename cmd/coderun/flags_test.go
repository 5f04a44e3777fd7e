package main

import (
	"flag"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coderun/coderun"
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
