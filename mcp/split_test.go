package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		line    string
		want    []string
		wantErr string
	}{
		{line: "node server.js", want: []string{"node", "server.js"}},
		{line: "  node \t server.js\n--stdio  ", want: []string{"node", "server.js", "--stdio"}},
		{line: `node '/path with spaces/x.js' "a b"`, want: []string{"node", "/path with spaces/x.js", "a b"}},
		{line: `echo 'it''s' "say \"hi\"" a\ b`, want: []string{"echo", "its", `say "hi"`, "a b"}},
		{line: `x "\$HOME \n" '\n' \\`, want: []string{"x", `$HOME \n`, `\n`, `\`}},
		{line: `x "" ''`, want: []string{"x", "", ""}},
		{line: `a"b"'c'd`, want: []string{"abcd"}},
		{line: `npx -y @modelcontextprotocol/server-everything`, want: []string{"npx", "-y", "@modelcontextprotocol/server-everything"}},
		{line: "", wantErr: "empty command"},
		{line: "   ", wantErr: "empty command"},
		{line: `node 'x`, wantErr: "unterminated ' quote"},
		{line: `node "x`, wantErr: `unterminated " quote`},
		{line: `node x\`, wantErr: "ends with a backslash"},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			got, err := SplitCommand(tc.line)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseUpstreamSpec(t *testing.T) {
	tests := []struct {
		spec     string
		wantName string
		wantArgv []string
		wantErr  string
	}{
		{spec: "files=node server.js /tmp", wantName: "files", wantArgv: []string{"node", "server.js", "/tmp"}},
		{spec: `e=node "a=b" c`, wantName: "e", wantArgv: []string{"node", "a=b", "c"}},
		{spec: "my-files=x", wantName: "my-files", wantArgv: []string{"x"}},
		{spec: "node server.js", wantErr: "is not NAME=COMMAND"},
		{spec: "=node", wantErr: "empty NAME"},
		{spec: "files=", wantErr: `upstream "files": empty command`},
		{spec: "files='x", wantErr: "unterminated"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			name, argv, err := ParseUpstreamSpec(tc.spec)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantName, name)
			require.Equal(t, tc.wantArgv, argv)
		})
	}
}
