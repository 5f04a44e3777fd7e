package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressReporter sends the progress notifications of one run_code call
// whose client sent a progressToken. Every event (a completed upstream
// call, a progress notification of an upstream, a log entry the program
// wrote) adds one to a counter and queues one notification; a goroutine of
// its own sends the queue in order, so that a slow client never holds up a
// binding call. Each event gets its own notification while fewer than
// maxQueuedProgress are waiting to be sent; beyond, an event is merged
// into the last one queued (its count and message replace that one's), so
// that memory stays bounded. Progress is strictly increasing on the wire,
// and there are never more notifications than events.
type progressReporter struct {
	notify func(context.Context, *sdk.ProgressNotificationParams) error
	token  any

	mu    sync.Mutex
	n     int            // events so far
	queue []progressStep // not yet sent

	wake chan struct{} // cap 1: an event is pending
	stop chan struct{} // closed by finish
	done chan struct{} // closed when the sender has flushed and ended
}

// progressStep is one notification to send.
type progressStep struct {
	n       int
	message string
}

// maxQueuedProgress bounds the notifications waiting to be sent.
const maxQueuedProgress = 1024

// maxProgressToken bounds the JSON text of a progressToken that gets
// notifications. Every notification repeats the token, so without a bound a
// client's token multiplies into the response: a 600 KiB token and a program
// logging 20,000 lines made a 1.2 GB response and 12 s of the server's CPU,
// outside every budget of the run.
const maxProgressToken = 256

// startProgress starts the sender of the notifications for token, sent
// with notify in ctx (the request's, so that they travel with its
// response). A nil token, or one whose JSON is over maxProgressToken bytes,
// gives a nil reporter, whose methods do nothing: the call runs without
// progress notifications.
func startProgress(ctx context.Context, token any, notify func(context.Context, *sdk.ProgressNotificationParams) error) *progressReporter {
	if token == nil {
		return nil
	}
	if b, err := json.Marshal(token); err != nil || len(b) > maxProgressToken {
		return nil
	}
	p := &progressReporter{notify: notify, token: token,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.send(ctx)
	return p
}

// event records one step of progress.
func (p *progressReporter) event(message string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.n++
	step := progressStep{n: p.n, message: message}
	if len(p.queue) < maxQueuedProgress {
		p.queue = append(p.queue, step)
	} else {
		p.queue[len(p.queue)-1] = step
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// finish sends what is pending and stops the sender: the notifications
// precede the call's response.
func (p *progressReporter) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
}

func (p *progressReporter) send(ctx context.Context) {
	defer close(p.done)
	failed := false
	flush := func() {
		p.mu.Lock()
		steps := p.queue
		p.queue = nil
		p.mu.Unlock()
		for _, st := range steps {
			if failed {
				return
			}
			if err := p.notify(ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(st.n), Message: st.message}); err != nil {
				failed = true // the client is gone or the request over; nothing to do
			}
		}
	}
	for {
		select {
		case <-p.wake:
			flush()
		case <-p.stop:
			flush()
			return
		}
	}
}

// callDone records a completed upstream call.
func (p *progressReporter) callDone(upstream, tool string, err error) {
	if p == nil {
		return
	}
	what := "done"
	if err != nil {
		what = "failed"
	}
	p.event(memberAccess(upstream, tool) + " " + what)
}

// upstreamProgress records a progress notification of an upstream call.
func (p *progressReporter) upstreamProgress(upstream, tool string, params *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	msg := params.Message
	if msg == "" {
		msg = fmt.Sprintf("%g", params.Progress)
		if params.Total > 0 {
			msg += fmt.Sprintf("/%g", params.Total)
		}
	}
	p.event(memberAccess(upstream, tool) + ": " + msg)
}

// logMessageMax is how many bytes of a log entry a progress message quotes.
const logMessageMax = 200

// onLog returns the coderun.Request.OnLog hook that records each log entry
// of the run as a step, or nil for a nil reporter. The hook never blocks:
// event only takes a mutex and signals the sender.
func (p *progressReporter) onLog() func(entry string) {
	if p == nil {
		return nil
	}
	return p.logged
}

// logged records a log entry, quoting its first line up to logMessageMax
// bytes (cut at a code point).
func (p *progressReporter) logged(entry string) {
	if p == nil {
		return
	}
	line, _, more := strings.Cut(entry, "\n")
	if len(line) > logMessageMax {
		cut := logMessageMax
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line, more = line[:cut], true
	}
	if more {
		line += "…"
	}
	p.event("log: " + line)
}
