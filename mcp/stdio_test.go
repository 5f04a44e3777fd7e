package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coderun/coderun/internal/testenv"
	"github.com/stretchr/testify/require"
)

// stdioPeer is a raw client of a Server over a StdioTransport.
type stdioPeer struct {
	t   *testing.T
	in  *os.File
	out *bufio.Scanner
}

func newStdioPeer(t *testing.T, s *Server) *stdioPeer {
	t.Helper()
	// OS pipes, buffered as a process's stdin and stdout are.
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), s.StdioTransport(inR, outW)) }()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end at the end of its input")
		}
		_ = outW.Close()
		_ = outR.Close()
		_ = inR.Close()
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 16<<20)
	p := &stdioPeer{t: t, in: inW, out: sc}
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Contains(t, p.recv(), `"serverInfo"`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(p.t, err)
}

// recv returns the next message the server wrote.
func (p *stdioPeer) recv() string {
	p.t.Helper()
	require.True(p.t, p.out.Scan(), "the server's output ended: %v", p.out.Err())
	return p.out.Text()
}

// call sends tools/call run_code with id and returns the response's text.
func (p *stdioPeer) call(id int, code string) (string, bool) {
	p.t.Helper()
	args, _ := json.Marshal(map[string]any{"name": ToolName, "arguments": map[string]any{"code": code}})
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, args))
	return p.toolResult(id)
}

func (p *stdioPeer) toolResult(id int) (string, bool) {
	p.t.Helper()
	var res struct {
		ID     int
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	line := p.recv()
	require.NoError(p.t, json.Unmarshal([]byte(line), &res), line)
	require.Equal(p.t, id, res.ID, line)
	var texts []string
	for _, c := range res.Result.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n"), res.Result.IsError
}

// A line go-sdk cannot decode is answered and dropped, and the session goes
// on; a line over the limit is read through, not kept, and answered with
// its id.
func TestStdioLineFilter(t *testing.T) {
	const maxProgram = 1000
	s, err := NewServer(newRuntime(t, nil), nil, &ServerOptions{MaxProgramBytes: maxProgram})
	require.NoError(t, err)
	p := newStdioPeer(t, s)

	tests := []struct {
		name, line, reply string
	}{
		{name: "not JSON", line: `{"jsonrpc":"2.0","id":1,"method":`, reply: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
		{name: "garbage", line: "hello\x00", reply: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
		{name: "wrong version", line: `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, reply: `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: invalid message version tag \"1.0\"; expected \"2.0\""}}`},
		{name: "bad id type", line: `{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, reply: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: parse error: invalid ID type bool"}}`},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`, reply: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON-RPC 2.0 object (batches are not supported)"}}`},
		{name: "a scalar", line: `42`, reply: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON-RPC 2.0 object (batches are not supported)"}}`},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.line)
			p.send("   ") // blank lines are skipped
			require.JSONEq(t, tc.reply, p.recv())
			text, isError := p.call(100+i, `return "still serving"`)
			require.False(t, isError, text)
			require.Equal(t, "still serving", text)
		})
	}

	t.Run("program over MaxProgramBytes", func(t *testing.T) {
		p.t = t
		text, isError := p.call(200, "return '"+strings.Repeat("x", maxProgram)+"'")
		require.True(t, isError)
		require.Equal(t, "code run failed (exception, program): SyntaxError: the program is 1009 bytes, over the limit of Config.MaxProgramBytes = 1000 bytes; split the work into several runs", text)
	})

	t.Run("line over the limit", func(t *testing.T) {
		p.t = t
		limit := RequestLimit(maxProgram, 0)
		// The TypeScript SDK writes the id last.
		huge := `{"method":"tools/call","params":{"name":"run_code","arguments":{"code":"` + strings.Repeat("y", int(3*limit)) + `"}},"jsonrpc":"2.0","id":300}`
		p.send(huge)
		text, isError := p.toolResult(300)
		require.True(t, isError)
		require.Contains(t, text, fmt.Sprintf("the request is over %d bytes, the limit for programs of up to Config.MaxProgramBytes = 1000 bytes", limit))

		ping := `{"jsonrpc":"2.0","id":301,"method":"ping","params":{"pad":"` + strings.Repeat("z", int(limit)) + `"}}`
		p.send(ping)
		require.JSONEq(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":301,"error":{"code":-32600,"message":"request too large (at least %d bytes): the request is over %d bytes, the limit for programs of up to Config.MaxProgramBytes = 1000 bytes with inputs of up to Config.MaxInputBytes = 1048576 bytes; the program or its input must be smaller: split the work into several runs"}}`, len(ping)+1, limit), p.recv())

		text, isError = p.call(302, `return 1 + 1`)
		require.False(t, isError, text)
		require.Equal(t, "2", text)
	})
}

// repeatReader yields n bytes of b.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n)]
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// A line far over the limit is read through in bounded memory and
// answered with its id; the next line is served.
func TestLineFilterBoundsMemory(t *testing.T) {
	const fed = 16 << 20
	limit := RequestLimit(1000, 1000)
	in := io.MultiReader(strings.NewReader(`{"method":"tools/call","params":{"arguments":{"code":"`),
		&repeatReader{b: 'x', n: fed}, strings.NewReader(`"}},"jsonrpc":"2.0","id":"last"}`+"\n"+`{"jsonrpc":"2.0","method":"ping","id":2}`+"\n"))
	var out, reply strings.Builder
	f := &lineFilter{in: in, out: &out, reply: &reply, limit: limit, maxProgramBytes: 1000, maxInputBytes: 1000}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	require.NoError(t, f.run())
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d bytes to filter a %d-byte line (limit %d)", allocated, fed, limit)
	require.Less(t, allocated, uint64(4*limit+(1<<20)), "bytes allocated for a line of %d bytes", fed)
	require.Contains(t, reply.String(), `"id":"last"`)
	require.Contains(t, reply.String(), `"isError":true`)
	require.Equal(t, `{"jsonrpc":"2.0","method":"ping","id":2}`+"\n", out.String())
}

// The response to a deep value carries it compact, in the text and in the
// structured content: its size is twice the value's compact size plus a
// constant, not the 200 MB of the value indented, and rendering it
// allocates accordingly.
func TestRunCodeDeepValueResponseBounded(t *testing.T) {
	const depth = 9990
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	p := newStdioPeer(t, s)
	args, _ := json.Marshal(map[string]any{"name": ToolName, "arguments": map[string]any{
		"code": fmt.Sprintf("let v=1;for(let i=0;i<%d;i++)v=[v]; return v", depth)}})

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`, args))
	line := p.recv()
	runtime.ReadMemStats(&after)

	compact := strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
	require.Contains(t, line, `"text":"`+compact+`"`)
	require.Contains(t, line, `"value":`+compact)
	require.LessOrEqual(t, len(line), 2*len(compact)+512, "response bytes")
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("response %d bytes for a %d-byte value; %d bytes allocated by the call", len(line), len(compact), allocated)
	require.Less(t, allocated, uint64(16<<20), "bytes allocated by the call")
}

// Requests followed at once by the end of the input are all answered
// before the server ends (`printf '…' | coderun mcp`): go-sdk stops
// writing once a read fails.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	s, err := NewServer(newRuntime(t, nil), nil, nil)
	require.NoError(t, err)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"await new Promise(r => setTimeout(r, 20)); return 6 * 7"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"return 'last'"}}}`,
		// A request the client cancels is not waited for.
		`{"jsonrpc":"2.0","id":"spin","method":"tools/call","params":{"name":"run_code","arguments":{"code":"for (;;) {}"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"spin"}}`,
	}, "\n") + "\n"
	var out testenv.Buffer
	require.NoError(t, s.Serve(context.Background(), s.StdioTransport(strings.NewReader(in), &out)))
	ids := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     any
			Result json.RawMessage
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg), line)
		if id, ok := msg.ID.(float64); ok {
			ids[int(id)] = string(msg.Result)
		}
	}
	require.Len(t, ids, 4, out.String())
	require.Contains(t, ids[1], `"text":"42"`)
	require.Contains(t, ids[3], `"text":"last"`)
}
