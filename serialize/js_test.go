package serialize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coderun/coderun/internal/testenv"
)

// evalJS evaluates a complete guest program (the factory, then a case body;
// see jsProgram) and returns the string its completion value holds. The
// cases run in the real engine (engineEvalJS: the hardened QuickJS-NG module
// with coderun's guest stack, a fresh instance per case); the same cases are
// checked against Node (TestJSCasesMatchNode), whose util.inspect they copy.
var evalJS = engineEvalJS

// jsCase is one entry of testdata/inspect_cases.json or lossless_cases.json:
// Src is a function body that may tamper with intrinsics and then returns a
// string built with the factory's result (F for inspect.js, L for
// lossless.js); Want is that string. Note records a deliberate difference
// from Node, if any.
type jsCase struct {
	Name string `json:"name"`
	Src  string `json:"src"`
	Want string `json:"want"`
	Note string `json:"note,omitempty"`
}

// jsProgram builds the program for one case: the factory is evaluated and
// called first (as the prelude does, before user code), then the case body
// runs in strict mode. The program's completion value is the body's result.
func jsProgram(name, factory, body string) string {
	return "const " + name + " = (\n" + factory + "\n)();\n" +
		"(function () {\n\"use strict\";\n" + body + "\n})()"
}

func runJSCases(t *testing.T, file, name, factory string) {
	runJSCasesWith(t, evalJS, false, file, name, factory)
}

// runJSCasesWith runs the cases of file with eval; skipNoted skips the cases
// that record a deliberate difference from Node.
func runJSCasesWith(t *testing.T, eval func(*testing.T, string) string, skipNoted bool, file, name, factory string) {
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var cases []jsCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", file)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Fatalf("%s: duplicate case name %q", file, c.Name)
		}
		seen[c.Name] = true
		if skipNoted && c.Note != "" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			got := eval(t, jsProgram(name, factory, c.Src))
			if got != c.Want {
				t.Errorf("src:  %s\ngot:  %q\nwant: %q", c.Src, got, c.Want)
			}
		})
	}
}

func TestInspectJS(t *testing.T) {
	runJSCases(t, "inspect_cases.json", "F", InspectJS)
}

func TestLosslessJS(t *testing.T) {
	runJSCases(t, "lossless_cases.json", "L", LosslessJS)
}

// TestJSCasesMatchNode checks the expected strings themselves: apart from
// the cases that note a deliberate difference, they are what Node prints.
func TestJSCasesMatchNode(t *testing.T) {
	runJSCasesWith(t, nodeEvalJS, true, "inspect_cases.json", "F", InspectJS)
	runJSCasesWith(t, nodeEvalJS, true, "lossless_cases.json", "L", LosslessJS)
}

// TestJSFactoryShape checks the conventions the prelude relies on: each file
// is one parenthesised function expression in strict mode.
func TestJSFactoryShape(t *testing.T) {
	for name, src := range map[string]string{"inspect.js": InspectJS, "lossless.js": LosslessJS} {
		code := strings.TrimSpace(stripLineComments(src))
		if !strings.HasPrefix(code, "(function () {\n  \"use strict\";") || !strings.HasSuffix(code, "})") {
			t.Errorf("%s: not a single (function () { \"use strict\"; ... }) expression", name)
		}
	}
	got := evalJS(t, jsProgram("F", InspectJS,
		`return typeof F.formatLogArgs + typeof F.inspect + Object.getPrototypeOf(F);`))
	if got != "functionfunctionnull" {
		t.Errorf("inspect.js factory result: %q", got)
	}
	got = evalJS(t, jsProgram("L", LosslessJS,
		`return typeof L.stringify + typeof L.parse + Object.getPrototypeOf(L);`))
	if got != "functionfunctionnull" {
		t.Errorf("lossless.js factory result: %q", got)
	}
}

// stripLineComments drops the leading // comment lines of a factory file.
func stripLineComments(src string) string {
	var b strings.Builder
	for line := range strings.Lines(src) {
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// ---- the Node runner (to be replaced by the engine, see evalJS) ----

// nodeRunner evaluates one program per input line ({"src": ...}) in a fresh
// vm context and answers one line ({"out": ...} or {"err": ...}).
const nodeRunner = `
const vm = require('vm');
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (line) => {
  const {src} = JSON.parse(line);
  let res;
  try {
    const v = vm.runInNewContext(src, {}, {timeout: 60000});
    res = typeof v === 'string' ? {out: v} : {err: 'completion value is ' + typeof v};
  } catch (e) {
    res = {err: 'threw: ' + String(e && e.stack || e)};
  }
  process.stdout.write(JSON.stringify(res) + '\n');
});
`

type nodeProc struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

var (
	nodeOnce   sync.Once
	node       *nodeProc
	nodeErr    error
	nodeStderr bytes.Buffer
)

func startNode() (*nodeProc, error) {
	path, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, "-e", nodeRunner)
	cmd.Stderr = &nodeStderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &nodeProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// nodeEvalJS runs src in one shared node process (started on first use; it
// exits when the test binary closes its stdin at exit).
func nodeEvalJS(t *testing.T, src string) string {
	t.Helper()
	nodeOnce.Do(func() { node, nodeErr = startNode() })
	if nodeErr != nil {
		testenv.Missing(t, "this test compares with Node.js, which could not be started: %v; install Node.js 20 or later", nodeErr)
	}
	req, err := json.Marshal(map[string]string{"src": src})
	if err != nil {
		t.Fatal(err)
	}
	node.mu.Lock()
	defer node.mu.Unlock()
	if _, err := node.in.Write(append(req, '\n')); err != nil {
		t.Fatalf("node: %v", err)
	}
	line, err := node.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("node: %v (stderr: %s)", err, nodeStderr.String())
	}
	var res struct {
		Out *string `json:"out"`
		Err string  `json:"err"`
	}
	if err := json.Unmarshal(line, &res); err != nil {
		t.Fatalf("node answer %q: %v", line, err)
	}
	if res.Out == nil {
		t.Fatalf("program failed: %s", res.Err)
	}
	return *res.Out
}
