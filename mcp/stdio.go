package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun"
)

// StdioTransport serves MCP over newline-delimited JSON-RPC on r and w
// (a process's stdin and stdout), with every line checked before go-sdk
// reads it: go-sdk ends the whole session on a line it cannot decode
// (go-sdk#1209), so such a line is answered here and dropped, as the
// TypeScript SDK's servers do, and the session goes on:
//
//   - a line that is not JSON: a -32700 parse error, id null;
//   - JSON that is not a JSON-RPC message (or a batch, which MCP no longer
//     has): a -32600 invalid-request error, with the message's id if any;
//   - a line over RequestLimit(MaxProgramBytes, MaxInputBytes) bytes,
//     which is read through without being buffered: a tool error for a
//     tools/call (the program or its input is too large), else a -32600
//     error, with the message's id.
//
// Blank lines are skipped. At the end of r, every request read is answered
// before the connection reports its end. The transport never closes w.
type StdioTransport struct {
	// Reader and Writer are the streams, usually os.Stdin and os.Stdout.
	Reader io.Reader
	Writer io.Writer
	// MaxProgramBytes is Config.MaxProgramBytes and MaxInputBytes
	// Config.MaxInputBytes; 0 means the default. They set the longest line
	// read (see RequestLimit).
	MaxProgramBytes int64
	MaxInputBytes   int64
}

// Connect implements sdk.Transport. It starts the goroutine that filters
// the lines of Reader; the goroutine ends at the end of Reader, or at the
// next line after the connection is closed. The connection reads the end
// of Reader only once the requests read before it have been answered.
func (t *StdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	program, input := t.MaxProgramBytes, t.MaxInputBytes
	if program <= 0 {
		program = coderun.DefaultConfig().MaxProgramBytes
	}
	if input <= 0 {
		input = coderun.DefaultConfig().MaxInputBytes
	}
	pr, pw := io.Pipe()
	w := &lockedWriter{w: t.Writer}
	f := &lineFilter{in: t.Reader, out: pw, reply: w, limit: RequestLimit(program, input), maxProgramBytes: program, maxInputBytes: input}
	go func() { _ = pw.CloseWithError(f.run()) }()
	c, err := (&sdk.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newDrainConn(c), nil
}

// lockedWriter serialises whole writes from go-sdk and from the filter's
// replies, so that messages never interleave; its Close does nothing.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// lineFilter copies the valid lines of in to out and answers the others on
// reply.
type lineFilter struct {
	in              io.Reader
	out             io.Writer
	reply           io.Writer
	limit           int64 // the longest line kept, in bytes
	maxProgramBytes int64
	maxInputBytes   int64
}

// run filters until the end of in (returning nil, so that the reader sees
// EOF) or a failed write to out (the connection closed).
func (f *lineFilter) run() error {
	br := bufio.NewReaderSize(f.in, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case int64(len(line))+int64(len(chunk)) > f.limit:
			size, rerr := f.skipLine(line, chunk, br, err)
			line = nil // release the buffer
			if werr := f.answer(f.oversize(size)); werr != nil {
				return werr
			}
			if rerr != nil {
				return nil
			}
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
			continue
		}
		line = append(line, chunk...)
		if werr := f.handle(line); werr != nil {
			return werr
		}
		line = line[:0]
		if err != nil {
			return nil // io.EOF or a read error: the end of the input
		}
	}
}

// skipLine reads the rest of a line over the limit through a scanner,
// without keeping it, and returns the scanner (the line's id, method and
// size) and the read error that ended the line, if any.
func (f *lineFilter) skipLine(line, chunk []byte, br *bufio.Reader, err error) (*envelopeScanner, error) {
	s := &envelopeScanner{}
	_, _ = s.Write(line)
	_, _ = s.Write(chunk)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		_, _ = s.Write(chunk)
	}
	return s, err
}

func (f *lineFilter) oversize(s *envelopeScanner) []byte {
	reply, _ := oversizeReply(s, f.limit, f.maxProgramBytes, f.maxInputBytes)
	return reply
}

// handle forwards line when go-sdk can decode it, else answers it.
func (f *lineFilter) handle(line []byte) error {
	msg := bytes.TrimSpace(line)
	if len(msg) == 0 {
		return nil
	}
	if reply := checkMessage(msg); reply != nil {
		return f.answer(reply)
	}
	if _, err := f.out.Write(append(msg, '\n')); err != nil {
		return err
	}
	return nil
}

// answer writes a reply line; a failure means the output is gone.
func (f *lineFilter) answer(reply []byte) error {
	_, err := f.reply.Write(append(reply, '\n'))
	return err
}

// checkMessage returns nil when msg is a JSON-RPC message go-sdk accepts,
// else the error response to send instead.
func checkMessage(msg []byte) []byte {
	if !json.Valid(msg) {
		return rpcError(nil, codeParseError, "Parse error: the line is not valid JSON")
	}
	s := &envelopeScanner{}
	_, _ = s.Write(msg)
	if msg[0] != '{' {
		return rpcError(nil, codeInvalidRequest, "Invalid Request: a message must be a JSON-RPC 2.0 object (batches are not supported)")
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return rpcError(s.id, codeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err))
	}
	return nil
}
