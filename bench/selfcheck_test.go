package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dop251/goja"
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

func TestPeerScripts(t *testing.T) {
	for _, w := range []workload{coldRun(), echoLoop(50), jsonWorkload(`[{"a":1.5,"b":["x"]},{}]`)} {
		got, err := runGoja(w.script(), w.async)
		if err != nil || got != w.want {
			t.Errorf("goja: %q gave %s, %v; want %s", w.body, got, err, w.want)
		}
	}
}

func TestGojaLoopRejects(t *testing.T) {
	vm := goja.New()
	loop := newGojaLoop(vm)
	defer loop.close()
	fail := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("no such tool")
	}
	if err := vm.Set("fail", loop.asyncFunc(fail)); err != nil {
		t.Fatal(err)
	}
	v, err := vm.RunString(`(async () => { try { await fail({}) } catch (e) { return String(e.message) } })()`)
	if err != nil {
		t.Fatal(err)
	}
	v, err = loop.await(v.Export().(*goja.Promise))
	if err != nil || v.String() != "no such tool" {
		t.Errorf("got %v, %v; want the rejection's message", v, err)
	}
	v, err = vm.RunString(`new Promise(() => {})`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loop.await(v.Export().(*goja.Promise)); err == nil || !strings.Contains(err.Error(), "never settle") {
		t.Errorf("awaiting a promise nothing can settle: %v", err)
	}
}
