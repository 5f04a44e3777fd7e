package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// The checks below keep the benchmarks' own machinery honest; they are quick
// and take no timings.

func TestJSONDoc(t *testing.T) {
	doc := jsonDoc()
	if doc != jsonDoc() {
		t.Fatal("jsonDoc is not deterministic")
	}
	if n := len(doc); n < 950_000 || n > 1_050_000 {
		t.Errorf("jsonDoc is %d bytes, want about 1 MB", n)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(doc), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != jsonDocObjects {
		t.Errorf("jsonDoc has %d objects, want %d", len(items), jsonDocObjects)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(doc)); err != nil || compact.String() != doc {
		t.Errorf("jsonDoc is not compact JSON (%v)", err)
	}
	for i, c := range []byte(doc) {
		if c >= 0x80 || c == '<' || c == '>' || c == '&' || c == '\\' {
			t.Fatalf("jsonDoc has %q at %d: Go and JavaScript could format it differently", c, i)
		}
	}
}

// peerRunners are the peers linked into this package, by name.
var peerRunners = map[string]func(workload) (string, error){"goja": runGoja, "modernc": runModernc}

func TestPeerScripts(t *testing.T) {
	workloads := []workload{
		coldRun(), summary(), echoLoop(50), parallelSleeps(3), fib(10),
		jsonWorkload(`[{"a":1.5,"b":["x"]},{}]`),
	}
	for name, run := range peerRunners {
		for _, w := range workloads {
			got, err := run(w)
			if err != nil || got != w.want {
				t.Errorf("%s: %q gave %s, %v; want %s", name, w.body, got, err, w.want)
			}
		}
	}
}

func TestPeerLoopsReject(t *testing.T) {
	fail := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("no such tool")
	}
	tests := []struct {
		name    string
		w       workload
		wantErr string
	}{
		{"rejection", workload{body: `try { await tools.fail({}) } catch (e) { return String(e.message ?? e) }`, host: "fail", fn: fail, want: `"no such tool"`}, ""},
		{"never settles", workload{body: `await new Promise(() => {})`, host: "echo", fn: echo}, "never settle"},
	}
	for name, run := range peerRunners {
		for _, tt := range tests {
			got, err := run(tt.w)
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("%s, %s: got %s, %v; want an error with %q", name, tt.name, got, err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || got != tt.w.want):
				t.Errorf("%s, %s: got %s, %v; want %s", name, tt.name, got, err, tt.w.want)
			}
		}
	}
}

func TestTableFormat(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"µs", showTime(84_612), "84.6 µs"},
		{"ms", showTime(5_160_000), "5.16 ms"},
		{"s", showTime(1.69e9), "1.69 s"},
		{"rate", showRate(600_000), "1,667 runs/s"},
		{"bytes", showBytes(924 * 1024), "924 KiB"},
		{"small ratio", showRatio(0.0333), "0.033"},
		{"large ratio", showRatio(1234.4), "1,234"},
		{"negative", thousands(-1234567), "-1,234,567"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	rows := []tableRow{
		{label: "a", show: showTime, cells: []tableCell{{v: 2e6}, {v: 1e6}, {note: "–"}, {v: 4e6}}},
		{label: "b", show: showTime, cells: []tableCell{{v: 1e6}, {note: "cannot"}, {note: "–"}, {note: "–"}}},
	}
	got := renderTable(rows, "heading")
	for _, want := range []string{
		"| a | 2.00 ms | 1.00 ms | – | 4.00 ms | 0.500 | – | 2.00 |\n",
		"| b | 1.00 ms | cannot | – | – | – | – | – |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("renderTable gave\n%s\nwant a line %q", got, want)
		}
	}
}

// takeBlocks takes per consecutive samples of each engine, the order of
// the engines rotating from round to round, after one warm-up sample each.
func TestTakeBlocks(t *testing.T) {
	var order []string
	fake := func(name string) engine {
		return engine{name: name, sample: func() (time.Duration, error) {
			order = append(order, name)
			return time.Duration(len(order)), nil
		}}
	}
	samples, err := takeBlocks([]engine{fake("a"), fake("b")}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(order, ""), "ab"+"aaabbb"+"bbbaaa"; got != want {
		t.Errorf("samples taken in the order %s, want %s", got, want)
	}
	if len(samples[0]) != 6 || len(samples[1]) != 6 {
		t.Errorf("got %d and %d samples, want 6 each", len(samples[0]), len(samples[1]))
	}
}
