package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/coderun/coderun"
)

// DefaultRecordMaxFiles is ServerOptions.RecordMaxFiles's default.
const DefaultRecordMaxFiles = 1000

// recorder writes the trace of every run_code call into a directory
// (ServerOptions.RecordDir), one file per run named by its id, and keeps at
// most max of the files it wrote: past that it removes its oldest. Files
// already in the directory are left alone; retention beyond that is the
// operator's.
type recorder struct {
	dir string
	max int

	mu      sync.Mutex
	written []string // paths written, oldest first
}

// newRecorder returns the recorder of dir, nil when dir is "".
func newRecorder(dir string, max int) (*recorder, error) {
	if dir == "" {
		return nil, nil
	}
	if max < 0 {
		return nil, fmt.Errorf("mcp: RecordMaxFiles must not be negative, got %d", max)
	}
	if max == 0 {
		max = DefaultRecordMaxFiles
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mcp: the record directory: %w", err)
	}
	return &recorder{dir: dir, max: max}, nil
}

// run runs req on rt, recording it as run id. What cannot be recorded is
// logged: the run's Result is complete either way. The error is Record's
// misuse error.
func (rec *recorder) run(ctx context.Context, rt *coderun.Runtime, req coderun.Request, id string, logger *slog.Logger) (coderun.Result, error) {
	res, trace, err := rt.Record(ctx, req)
	switch {
	case errors.Is(err, coderun.ErrTraceTooBig):
		logger.Warn("run_code's trace was not recorded", "run_id", id, "error", err)
		return res, nil
	case err != nil:
		return res, err
	}
	if err := rec.write(id, trace); err != nil {
		logger.Warn("run_code's trace was not written", "run_id", id, "error", err)
	}
	return res, nil
}

// write writes trace into the file of run id, and removes the oldest file
// written past the cap.
func (rec *recorder) write(id string, trace *coderun.Trace) error {
	path := filepath.Join(rec.dir, id+".json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = trace.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return err
	}
	rec.mu.Lock()
	rec.written = append(rec.written, path)
	var drop []string
	if n := len(rec.written) - rec.max; n > 0 {
		drop = append(drop, rec.written[:n]...)
		rec.written = append(rec.written[:0], rec.written[n:]...)
	}
	rec.mu.Unlock()
	for _, p := range drop {
		_ = os.Remove(p)
	}
	return nil
}
