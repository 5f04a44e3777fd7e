package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInterspersed(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // the reordered arguments
		err  string
	}{
		{name: "flags first", args: []string{"--fuel", "10", "prog.ts"}, want: []string{"--fuel", "10", "--", "prog.ts"}},
		{name: "flags after FILE", args: []string{"prog.ts", "--fuel", "10", "-stream"}, want: []string{"--fuel", "10", "-stream", "--", "prog.ts"}},
		{name: "value with =", args: []string{"prog.ts", "--fuel=10"}, want: []string{"--fuel=10", "--", "prog.ts"}},
		{name: "bool takes no value", args: []string{"--stream", "prog.ts"}, want: []string{"--stream", "--", "prog.ts"}},
		{name: "bool with =", args: []string{"--stream=false", "prog.ts"}, want: []string{"--stream=false", "--", "prog.ts"}},
		{name: "value that looks like a flag", args: []string{"-e", "-1", "x"}, want: []string{"-e", "-1", "--", "x"}},
		{name: "value that is --", args: []string{"-e", "--", "x"}, want: []string{"-e", "--", "--", "x"}},
		{name: "stdin is positional", args: []string{"-", "--fuel", "1"}, want: []string{"--fuel", "1", "--", "-"}},
		{name: "-- ends the flags", args: []string{"--fuel", "1", "--", "--stream", "-x"}, want: []string{"--fuel", "1", "--", "--stream", "-x"}},
		{name: "unknown flag left to Parse", args: []string{"a", "--bogus", "b"}, want: []string{"--bogus", "--", "a", "b"}},
		{name: "none", args: nil, want: []string{"--"}},
		{name: "missing value", args: []string{"prog.ts", "--fuel"}, err: "flag needs an argument: --fuel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Int("fuel", 0, "")
			fs.Bool("stream", false, "")
			fs.String("e", "", "")
			got, err := interspersed(fs, tc.args)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			if fs.Parse(got) == nil { // all but the unknown flag
				require.Equal(t, "--", got[len(got)-fs.NArg()-1], "fs.Parse stops at the added --")
			}
		})
	}
}
