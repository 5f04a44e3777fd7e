package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/coderun/coderun"
	"github.com/stretchr/testify/require"
)

// With RecordDir, each run_code call's trace is written as RUN_ID.json,
// replays to the call's result, and the server keeps at most
// RecordMaxFiles of the files it wrote.
func TestRecordDir(t *testing.T) {
	rt := newRuntime(t, nil)
	dir := filepath.Join(t.TempDir(), "traces")
	s, err := NewServer(rt, nil, &ServerOptions{RecordDir: dir, RecordMaxFiles: 2})
	require.NoError(t, err)
	var ids []string
	for i, code := range []string{`return 1`, `console.log(Math.random() < 2); return Date.now() > 0`, `throw new Error("boom")`} {
		res := s.RunCode(context.Background(), code)
		id := res.Meta[MetaRunID].(string)
		ids = append(ids, id)
		f, err := os.Open(filepath.Join(dir, id+".json"))
		require.NoError(t, err, "call %d", i)
		tr, err := coderun.ReadTrace(f, coderun.DefaultMaxTraceBytes)
		f.Close()
		require.NoError(t, err)
		require.Equal(t, code, tr.Program)
		got, err := rt.Replay(context.Background(), tr, coderun.ReplayOptions{})
		require.NoError(t, err)
		require.Equal(t, FormatResult(got, 0).Content, res.Content)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	_, err = os.Stat(filepath.Join(dir, ids[0]+".json"))
	require.True(t, os.IsNotExist(err), "the oldest trace is removed")

	_, err = NewServer(rt, nil, &ServerOptions{RecordDir: dir, RecordMaxFiles: -1})
	require.ErrorContains(t, err, "RecordMaxFiles must not be negative")
}
