package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderun/coderun"
)

// The keys of run_code's result _meta: the run's id (16 hex digits, also
// in the server's log line of the run) and its coderun.Usage (in its JSON
// form, times in milliseconds). A call refused before it ran has an id and
// no usage.
const (
	MetaRunID = "coderun/runId"
	MetaUsage = "coderun/usage"
)

// newRunID returns a random run id: 16 hex digits.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// runInfo identifies one run_code call in logs and results.
type runInfo struct {
	id      string
	session string // the MCP session's ID; "" for stdio and stateless HTTP
}

// withMeta adds the run's id, and its usage when not nil, to res's _meta.
func withMeta(res *sdk.CallToolResult, run runInfo, usage *coderun.Usage) *sdk.CallToolResult {
	if res.Meta == nil {
		res.Meta = sdk.Meta{}
	}
	res.Meta[MetaRunID] = run.id
	if usage != nil {
		res.Meta[MetaUsage] = *usage
	}
	return res
}

// runEnded counts and logs a run that ended with res, that budget ended
// ("none" when none did). The log line is at level Info: the run's id,
// session, outcome (its kind), budget and usage, and, with LogPrograms,
// the program and the failure's message (which may quote the program or
// what its tools returned).
func (s *Server) runEnded(ctx context.Context, run runInfo, code string, res coderun.Result, budget string, queueWait time.Duration) {
	s.metrics.runEnded(res, budget)
	outcome := "ok"
	if res.Error != nil {
		outcome = string(res.Error.Kind)
	}
	u := res.Usage
	attrs := []slog.Attr{
		slog.String("run_id", run.id),
		slog.String("session", run.session),
		slog.String("outcome", outcome),
		slog.String("budget", budget),
		slog.Uint64("fuel", u.Fuel),
		slog.Duration("compute_time", u.ComputeTime),
		slog.Duration("wall_time", u.WallTime),
		slog.Int64("peak_memory_bytes", u.PeakMemoryBytes),
		slog.Int("calls", u.Calls),
		slog.Int64("log_bytes", u.LogBytes),
		slog.Duration("queue_wait", queueWait),
	}
	if s.logPrograms {
		attrs = append(attrs, slog.String("program", code))
		if res.Error != nil {
			attrs = append(attrs, slog.String("message", res.Error.Message))
		}
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, "run_code finished", attrs...)
}

// runRefused counts and logs a call refused before it ran, for reason
// (see coderun_runs_refused_total).
func (s *Server) runRefused(ctx context.Context, run runInfo, reason string, err error) {
	s.metrics.refused.WithLabelValues(reason).Inc()
	level := slog.LevelWarn
	if reason == refusedCancelled || reason == refusedInvalidInput {
		level = slog.LevelInfo // the client's doing, not the server's load
	}
	s.logger.LogAttrs(ctx, level, "run_code refused", slog.String("run_id", run.id), slog.String("session", run.session),
		slog.String("reason", reason), slog.String("error", err.Error()))
}

// inputRefused is run_code's answer when its input is refused (see
// coderun.ErrInvalidInput), why saying what is wrong: nothing ran.
func (s *Server) inputRefused(ctx context.Context, run runInfo, why string) *sdk.CallToolResult {
	s.runRefused(ctx, run, refusedInvalidInput, errors.New(why))
	return withMeta(errorResult("run_code's input was refused, nothing ran: "+why), run, nil)
}

// runObserver watches the binding calls of one run: it counts them, logs
// them at level Debug (with their arguments and errors only with
// LogPrograms) and reports them to the run's progress reporter.
type runObserver struct {
	s   *Server
	run runInfo
	p   *progressReporter // nil without progress notifications
}

// call calls tool of u with args, as the program's binding does.
func (o *runObserver) call(ctx context.Context, u *Upstream, tool string, args json.RawMessage) (json.RawMessage, error) {
	var onProgress func(*sdk.ProgressNotificationParams)
	if o.p != nil {
		onProgress = func(params *sdk.ProgressNotificationParams) { o.p.upstreamProgress(u.Name(), tool, params) }
	}
	start := time.Now()
	res, err := u.call(ctx, tool, args, onProgress)
	d := time.Since(start)
	outcome := callOutcome(ctx, err)
	o.s.metrics.bindingCall(u, tool, outcome, d)
	if o.s.logger.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{slog.String("run_id", o.run.id), slog.String("upstream", u.Name()), slog.String("tool", tool),
			slog.String("outcome", outcome), slog.Duration("duration", d)}
		if o.s.logPrograms {
			attrs = append(attrs, slog.String("args", string(args)))
			if err != nil {
				attrs = append(attrs, slog.String("error", err.Error()))
			}
		}
		o.s.logger.LogAttrs(ctx, slog.LevelDebug, "binding call", attrs...)
	}
	o.p.callDone(u.Name(), tool, err)
	return res, err
}

// sdkLogger is l for go-sdk, which logs every session's start and end at
// level Info: its records below Warn are logged at Debug, so that a
// server logging at Info writes one line per run, not several per
// stateless request.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(demoteHandler{l.Handler()})
}

// demoteHandler logs records below Warn at Debug.
type demoteHandler struct{ h slog.Handler }

// Enabled implements slog.Handler.
func (d demoteHandler) Enabled(ctx context.Context, level slog.Level) bool {
	if level < slog.LevelWarn {
		level = slog.LevelDebug
	}
	return d.h.Enabled(ctx, level)
}

// Handle implements slog.Handler.
func (d demoteHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		r.Level = slog.LevelDebug
	}
	return d.h.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (d demoteHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return demoteHandler{d.h.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (d demoteHandler) WithGroup(name string) slog.Handler {
	return demoteHandler{d.h.WithGroup(name)}
}
