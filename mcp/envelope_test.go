package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The scanner finds the top-level id and method wherever they are, and
// nothing nested, in bounded memory.
func TestEnvelopeScanner(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name     string
		msg      string
		id       string // "" when none
		toolCall bool
	}{
		{name: "id first", msg: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"code":"` + big + `"}}`, id: "5", toolCall: true},
		{name: "id after params (TypeScript SDK order)", msg: `{"method":"tools/call","params":{"name":"run_code","arguments":{"code":"` + big + `"}},"jsonrpc":"2.0","id":"abc"}`, id: `"abc"`, toolCall: true},
		{name: "nested id and method ignored", msg: `{"params":{"id":9,"method":"tools/call","a":[{"id":1}]},"method":"ping","id":-3}`, id: "-3"},
		{name: "escaped quotes and braces in strings", msg: `{"params":{"code":"\"}],{\"id\":1,\\"},"id":2, "method" : "tools/call" }`, id: "2", toolCall: true},
		{name: "compound id dropped", msg: `{"id":{"x":1},"method":"tools/call"}`},
		{name: "null id", msg: `{"id":null,"method":"tools/call"}`},
		{name: "boolean id", msg: `{"id":true,"method":"tools/call"}`},
		{name: "no id (a notification)", msg: `{"method":"tools/call","params":{}}`},
		{name: "long id dropped", msg: `{"id":"` + strings.Repeat("i", 1000) + `","method":"tools/call"}`},
		{name: "truncated", msg: `{"method":"tools/call","params":{"code":"abc`},
		{name: "batch", msg: `[{"id":1,"method":"tools/call"}]`},
		{name: "whitespace", msg: "{ \"id\" :\n 12 ,\t\"method\":\"tools/list\"}", id: "12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &envelopeScanner{}
			// Fed in odd chunks, as reads deliver them.
			for rest := tc.msg; rest != ""; {
				n := min(len(rest), 7777)
				_, _ = s.Write([]byte(rest[:n]))
				rest = rest[n:]
			}
			require.Equal(t, tc.id, string(s.id))
			require.Equal(t, tc.toolCall, s.isToolCall())
			require.Equal(t, int64(len(tc.msg)), s.size)
			require.LessOrEqual(t, cap(s.val), 2*maxCapturedValue, "bounded memory")
			require.LessOrEqual(t, cap(s.key), 2*maxCapturedValue, "bounded memory")
		})
	}
}

func TestOversizeReply(t *testing.T) {
	s := &envelopeScanner{}
	_, _ = s.Write([]byte(`{"method":"tools/call","params":{"code":"xxxx"},"id":4}`))
	reply, isCall := oversizeReply(s, 100, 10, 20)
	require.True(t, isCall)
	var res struct {
		ID     int
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	require.NoError(t, json.Unmarshal(reply, &res), string(reply))
	require.Equal(t, 4, res.ID)
	require.True(t, res.Result.IsError)
	require.Equal(t, "code run failed (exception, program): SyntaxError: the request is over 100 bytes, the limit for programs of up to Config.MaxProgramBytes = 10 bytes with inputs of up to Config.MaxInputBytes = 20 bytes; the program or its input must be smaller: split the work into several runs",
		res.Result.Content[0].Text)

	s = &envelopeScanner{}
	_, _ = s.Write([]byte(`{"method":"ping","id":"p"}`))
	reply, isCall = oversizeReply(s, 10, 1, 2)
	require.False(t, isCall)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":"p","error":{"code":-32600,"message":"request too large (at least 26 bytes): the request is over 10 bytes, the limit for programs of up to Config.MaxProgramBytes = 1 bytes with inputs of up to Config.MaxInputBytes = 2 bytes; the program or its input must be smaller: split the work into several runs"}}`, string(reply))
}

func TestRequestLimit(t *testing.T) {
	require.Equal(t, int64(6<<20+1<<20+envelopeBytes), RequestLimit(1<<20, 1<<20))
	require.Equal(t, int64(6<<10+3<<20+envelopeBytes), RequestLimit(1<<10, 3<<20), "the input counts once: it is JSON in the request")
	require.Equal(t, RequestLimit(1<<20, 1<<20), RequestLimit(0, 0), "0 is the default")
	require.Equal(t, int64(1<<63-1), RequestLimit(1<<62, 1), "no overflow")
	require.Equal(t, int64(1<<63-1), RequestLimit(1, 1<<62), "no overflow")
}
