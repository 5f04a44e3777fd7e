package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sniffTransport wraps an upstream's transport to read what go-sdk's types
// drop from the raw tools/list results: each tool's execution.taskSupport
// (go-sdk v1.8.0's Tool has no execution field).
type sniffTransport struct {
	sdk.Transport
	conn **sniffConn // where Connect stores the connection
}

// Connect implements sdk.Transport.
func (t *sniffTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc := &sniffConn{Connection: c, listIDs: map[jsonrpc.ID]bool{}, taskOnly: map[string]bool{}}
	*t.conn = sc
	return sc, nil
}

// sniffConn records the tools that require tasks from the responses to
// tools/list requests.
type sniffConn struct {
	sdk.Connection

	mu       sync.Mutex
	listIDs  map[jsonrpc.ID]bool // tools/list requests awaiting their response
	taskOnly map[string]bool     // since startListing
}

// Write implements sdk.Connection.
func (c *sniffConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.mu.Lock()
		c.listIDs[req.ID] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// Read implements sdk.Connection.
func (c *sniffConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		if c.listIDs[resp.ID] {
			delete(c.listIDs, resp.ID)
			c.recordTools(resp.Result)
		}
		c.mu.Unlock()
	}
	return msg, err
}

// recordTools notes the tools of a tools/list result that require tasks.
func (c *sniffConn) recordTools(result json.RawMessage) {
	var res struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &res) != nil {
		return // go-sdk reports the listing's error
	}
	for _, t := range res.Tools {
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			c.taskOnly[t.Name] = true
		}
	}
}

// startListing forgets what earlier listings said.
func (c *sniffConn) startListing() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.taskOnly)
}

// requiresTasks reports whether tool requires tasks, per the listing since
// startListing.
func (c *sniffConn) requiresTasks(tool string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.taskOnly[tool]
}
