package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/coderun/coderun"
)

// envelopeBytes is what a request may hold besides its program and its
// input: the JSON-RPC envelope, the tool name, _meta.
const envelopeBytes = 64 << 10

// RequestLimit is the largest JSON-RPC message, in bytes, that a Server
// reads (a stdin line, an HTTP body) for programs of up to maxProgramBytes
// and inputs of up to maxInputBytes: six times the program, since JSON may
// escape every byte as \u00XX, plus the input, whose JSON text is counted
// as sent, plus an envelope; 0 means the default of each. Any program and
// input within their limits fit, so a larger one is refused as a tool error
// by run_code, and a message over the limit is answered without being
// buffered (see oversizeReply).
func RequestLimit(maxProgramBytes, maxInputBytes int64) int64 {
	if maxProgramBytes <= 0 {
		maxProgramBytes = coderun.DefaultConfig().MaxProgramBytes
	}
	if maxInputBytes <= 0 {
		maxInputBytes = coderun.DefaultConfig().MaxInputBytes
	}
	if maxProgramBytes > (math.MaxInt64-envelopeBytes)/12 || maxInputBytes > (math.MaxInt64-envelopeBytes)/2 {
		return math.MaxInt64
	}
	return 6*maxProgramBytes + maxInputBytes + envelopeBytes
}

// maxCapturedValue bounds the raw top-level "id" and "method" values an
// envelopeScanner keeps.
const maxCapturedValue = 256

// envelopeScanner reads a JSON-RPC message as a stream of bytes and keeps
// only its top-level "id" and "method" values, in bounded memory, so that a
// message too large to buffer can still be answered with its id (clients
// such as the TypeScript SDK write "id" after "params").
type envelopeScanner struct {
	depth    int
	inString bool
	escape   bool
	isKey    bool   // the string being read is a top-level key
	wantKey  bool   // at depth 1, the next string is a key
	key      []byte // the current top-level key, bounded
	keyLong  bool
	capture  string // the key whose value is being captured: "id", "method" or ""
	val      []byte
	valLong  bool
	id       json.RawMessage
	method   json.RawMessage
	size     int64 // bytes fed
}

// Write feeds p to the scanner; it never fails.
func (s *envelopeScanner) Write(p []byte) (int, error) {
	before := s.size
	s.size += int64(len(p))
	for len(p) > 0 {
		if s.inString && !s.escape && !s.isKey && (s.depth != 1 || s.capture == "") {
			// Skip the body of a string that is not kept, fast.
			i := bytes.IndexAny(p, `"\`)
			if i < 0 {
				break
			}
			p = p[i:]
		}
		s.feed(p[0])
		p = p[1:]
	}
	return int(s.size - before), nil
}

func (s *envelopeScanner) feed(c byte) {
	if s.inString {
		s.keep(c)
		switch {
		case s.escape:
			s.escape = false
		case c == '\\':
			s.escape = true
		case c == '"':
			s.inString = false
			s.isKey = false
		}
		return
	}
	switch c {
	case ' ', '\t', '\r', '\n':
	case '{', '[':
		if s.depth == 1 {
			s.capture = "" // a compound id or method is invalid: drop it
		}
		s.depth++
		s.wantKey = s.depth == 1 && c == '{'
	case '}', ']':
		if s.depth == 1 {
			s.endValue()
		}
		s.depth--
	case '"':
		s.inString = true
		if s.depth == 1 && s.wantKey {
			s.isKey, s.wantKey = true, false
			s.key, s.keyLong = s.key[:0], false
			return
		}
		s.keep(c)
	case ':':
		if s.depth == 1 {
			s.capture = ""
			if !s.keyLong {
				switch k := string(s.key); k {
				case "id", "method":
					s.capture = k
				}
			}
			s.val, s.valLong = s.val[:0], false
		}
	case ',':
		if s.depth == 1 {
			s.endValue()
			s.wantKey = true
		}
	default:
		s.keep(c)
	}
}

// keep appends c to the key or the captured value it belongs to.
func (s *envelopeScanner) keep(c byte) {
	switch {
	case s.isKey:
		if c == '"' && !s.escape {
			return // the closing quote
		}
		if len(s.key) < maxCapturedValue {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case s.depth == 1 && s.capture != "":
		if len(s.val) < maxCapturedValue {
			s.val = append(s.val, c)
		} else {
			s.valLong = true
		}
	}
}

// endValue stores the captured value, when it is a usable id or method.
func (s *envelopeScanner) endValue() {
	capture, val := s.capture, s.val
	s.capture = ""
	if capture == "" || s.valLong || !json.Valid(val) {
		return
	}
	switch {
	case capture == "method" && val[0] == '"':
		s.method = append(json.RawMessage(nil), val...)
	case capture == "id" && (val[0] == '"' || val[0] == '-' || (val[0] >= '0' && val[0] <= '9')):
		s.id = append(json.RawMessage(nil), val...)
	}
}

// isToolCall reports whether the message was a tools/call request.
func (s *envelopeScanner) isToolCall() bool {
	var m string
	return s.id != nil && json.Unmarshal(s.method, &m) == nil && m == "tools/call"
}

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// oversizeReply is the answer to a message over limit bytes, fed to s (at
// least in part): a tool error for a tools/call (a program too large for
// MaxProgramBytes, or an input for MaxInputBytes), else a JSON-RPC
// invalid-request error, with the message's id when the scanner found one.
// isCall says which.
func oversizeReply(s *envelopeScanner, limit, maxProgramBytes, maxInputBytes int64) (reply []byte, isCall bool) {
	text := fmt.Sprintf("the request is over %d bytes, the limit for programs of up to Config.MaxProgramBytes = %d bytes "+
		"with inputs of up to Config.MaxInputBytes = %d bytes; the program or its input must be smaller: split the work into several runs",
		limit, maxProgramBytes, maxInputBytes)
	if s.isToolCall() {
		res := FormatResult(coderun.Result{Error: &coderun.Failure{Kind: coderun.Exception,
			Budget: coderun.BudgetProgram, Message: "SyntaxError: " + text}}, 0)
		body, _ := marshalJSON(map[string]any{"jsonrpc": "2.0", "id": s.id, "result": res})
		return body, true
	}
	return rpcError(s.id, codeInvalidRequest, fmt.Sprintf("request too large (at least %d bytes): %s", s.size, text)), false
}

// rpcError encodes a JSON-RPC error response; a nil id is null.
func rpcError(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := marshalJSON(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return body
}
