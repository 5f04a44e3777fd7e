package bench

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/coderun/coderun"
)

// recordEngine runs w with rt as coderunEngine does, recording every run
// (Runtime.Record): the samples against coderunEngine's, in the same
// rounds, are recording's overhead.
func recordEngine(rt *coderun.Runtime, w workload) engine {
	return engine{name: "record", sample: timedSample(w.want, func() (string, error) {
		req := coderun.Request{Program: w.body}
		if w.host != "" {
			req.Bindings = []coderun.Namespace{{Global: "tools", Functions: map[string]coderun.Func{w.host: w.fn}}}
		}
		res, trace, err := rt.Record(context.Background(), req)
		switch {
		case err != nil:
			return "", err
		case res.Error != nil:
			return "", res.Error
		case trace == nil:
			return "", errors.New("no trace")
		}
		return string(res.Value), nil
	})}
}

// replayEngine replays trace with rt, one Replay per sample.
func replayEngine(rt *coderun.Runtime, want string, trace *coderun.Trace) engine {
	return engine{name: "replay", sample: timedSample(want, func() (string, error) {
		res, err := rt.Replay(context.Background(), trace, coderun.ReplayOptions{})
		switch {
		case err != nil:
			return "", err
		case res.Error != nil:
			return "", res.Error
		}
		return string(res.Value), nil
	})}
}

// BenchmarkRecord measures what recording costs (issue 33's goal: at most
// 5%), on the 20-line program and on the binding round trip, each run
// recorded and not, interleaved in the same rounds: record/coderun is the
// ratio of the medians.
func BenchmarkRecord(b *testing.B) {
	rt := newRuntime(b)
	b.Run("Summary20", func(b *testing.B) {
		w := summary()
		compare(b, 0, coderunEngine(rt, w), recordEngine(rt, w))
	})
	b.Run("RoundTrip", func(b *testing.B) {
		w := echoLoop(echoCalls)
		compare(b, w.calls, coderunEngine(rt, w), recordEngine(rt, w))
	})
}

// replayCalls and replayWait are the calls of the replay benchmark's
// program and how long each binding waits.
const (
	replayCalls = 20
	replayWait  = 2 * time.Millisecond
)

// BenchmarkReplay compares a replay with the run it replays: a program of
// replayCalls sequential calls, each waiting replayWait in Go, and the
// 20-line program's work between them. replay/coderun is the ratio of the
// medians; wait-ms is the run's waiting, which a replay skips: issue 33's
// goal is a replay no slower than the run minus its waiting
// (replay-ns/op ≤ ns/op − wait-ms).
func BenchmarkReplay(b *testing.B) {
	rt := newRuntime(b)
	slow := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return sleepFor(ctx, replayWait, args)
	}
	w := workload{
		body: `let s = 0;
for (let i = 0; i < ` + strconv.Itoa(replayCalls) + `; i++) {
  const orders = Array.from({length: 200}, (_, k) => ({id: k, total: (k * 37) % 101, region: ["east", "west"][k % 2]}));
  const r = await tools.slow({i, n: orders.filter(o => o.total > 50).length});
  s += r.i + r.n;
}
return s`,
		host: "slow", fn: slow,
	}
	res, trace, err := rt.Record(context.Background(), coderun.Request{Program: w.body,
		Bindings: []coderun.Namespace{{Global: "tools", Functions: map[string]coderun.Func{"slow": slow}}}})
	if err != nil || res.Error != nil {
		b.Fatal(err, res.Error)
	}
	w.want = string(res.Value)
	compare(b, 0, coderunEngine(rt, w), replayEngine(rt, w.want, trace))
	b.ReportMetric(float64(replayCalls*replayWait)/float64(time.Millisecond), "wait-ms")
}
