package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainConn is a connection whose reader reports the end of its input only
// once every request read from it has been answered (or cancelled by the
// client, or the connection closed): go-sdk cancels the requests in flight
// and stops writing as soon as a read fails, so a client that writes a
// request and closes its end at once (`printf '…' | coderun mcp`) would
// get no answer. The wait is bounded by the requests' own bounds: a
// run_code call ends within its run's budgets.
type drainConn struct {
	sdk.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]int // requests read and not yet answered
	changed chan struct{}      // cap 1: pending shrank
	closed  chan struct{}
	once    sync.Once
}

func newDrainConn(c sdk.Connection) *drainConn {
	return &drainConn{Connection: c, pending: map[jsonrpc.ID]int{},
		changed: make(chan struct{}, 1), closed: make(chan struct{})}
}

// Read implements sdk.Connection.
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) {
			c.drain(ctx)
		}
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch {
		case req.IsCall():
			c.mu.Lock()
			c.pending[req.ID]++
			c.mu.Unlock()
		case req.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					c.answered(id) // no response is due
				}
			}
		}
	}
	return msg, nil
}

// Write implements sdk.Connection.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answered(resp.ID)
	}
	return err
}

// Close implements sdk.Connection.
func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// answered drops one pending request with id.
func (c *drainConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[id] == 0 {
		return
	}
	if c.pending[id]--; c.pending[id] == 0 {
		delete(c.pending, id)
	}
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// drain waits until no request is pending, ctx is done or the connection
// is closed.
func (c *drainConn) drain(ctx context.Context) {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}
