package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/wasm"
)

// A trace is what a recorded run got from outside its program's text, in
// the order the program observed it, and what the run produced; replaying
// it runs the program again with every such input answered from the trace
// (see replay.go). docs/replay.md documents the format.

// TraceFormat and TraceVersion identify the trace format: a reader refuses
// a trace of another format or version.
const (
	TraceFormat  = "coderun-trace"
	TraceVersion = 1
)

// Event types of a trace (TraceEvent.Type).
const (
	EventCall   = "call"   // the program made a binding call
	EventTurn   = "turn"   // the host delivered call results and timers
	EventClock  = "clock"  // the program read a clock
	EventRandom = "random" // the program read random bytes (crypto)
	EventZone   = "zone"   // the program read a time zone's offset
	EventStop   = "stop"   // the run was stopped from outside
)

// Places a stop is replayed at (TraceEvent.Place).
const (
	StopAtStart = "start" // before the program started
	StopAtYield = "yield" // while the guest ran: at its fuel, Fuel
	StopAtWait  = "wait"  // while the run waited
	StopAtLog   = "log"   // at the OnLog hook of the log entry number Logs
	StopAtPiece = "piece" // while the host read or copied a long text: at its piece number Pieces (see run.Pace)
)

// DefaultMaxTraceBytes is the default bound of a recorded run's trace
// (coderun.Config.MaxTraceBytes), and MinTraceBytes the least valid one.
const (
	DefaultMaxTraceBytes = 64 << 20
	MinTraceBytes        = 1 << 10
)

// ErrInvalidTrace is wrapped by every error about a trace that cannot be
// read or replayed: not a trace, another version, budgets or declarations
// out of bounds.
var ErrInvalidTrace = errors.New("coderun: invalid trace")

// ErrTraceTooBig is wrapped by the error of a recorded run whose trace
// passed MaxTraceBytes; the run itself was not affected.
var ErrTraceTooBig = errors.New("coderun: trace over MaxTraceBytes")

// Trace is one recorded run.
type Trace struct {
	Format  string      `json:"format"`
	Version int         `json:"version"`
	Engine  TraceEngine `json:"engine"`
	// Config is the budgets the run had.
	Config  budget.Limits   `json:"config"`
	Program string          `json:"program"`
	Input   json.RawMessage `json:"input,omitempty"`
	// InputText is the input when its text is not compact JSON: a JSON
	// document's whitespace is not kept by encoding/json, and parsing it
	// spends fuel (see isCompactJSON).
	InputText string         `json:"inputText,omitempty"`
	Bindings  []TraceBinding `json:"bindings,omitempty"`
	// Seed is Math.random's state when the program started.
	Seed    uint64       `json:"seed,string"`
	Outcome TraceOutcome `json:"outcome"`
	// events are the trace's events (see Events), written after the
	// outcome as "events".
	events *eventList
}

// eventList is a trace's events: those read, or those a recorder kept,
// which become TraceEvents when they are first asked for, so that a
// recorded run does not pay for making them.
type eventList struct {
	once sync.Once
	rec  *recorder
	list []TraceEvent
}

// Events returns the trace's events, in the order the program observed
// them. The slice is the trace's: it is not to be modified. It is safe
// for concurrent use.
func (t *Trace) Events() []TraceEvent {
	if t.events == nil {
		return nil
	}
	l := t.events
	l.once.Do(func() {
		if l.rec != nil {
			l.list, l.rec = l.rec.traceEvents(), nil
		}
	})
	return l.list
}

// SetEvents replaces the trace's events (for a trace made or edited by
// hand).
func (t *Trace) SetEvents(events []TraceEvent) { t.events = &eventList{list: events} }

// traceJSON is a Trace's JSON form.
type traceJSON struct {
	*traceFields
	Events []TraceEvent `json:"events"`
}

// traceFields is Trace without its methods.
type traceFields Trace

// MarshalJSON writes the trace with its events.
func (t *Trace) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	events := t.Events()
	if events == nil {
		events = []TraceEvent{}
	}
	if err := enc.Encode(traceJSON{(*traceFields)(t), events}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads what MarshalJSON writes, refusing unknown fields.
func (t *Trace) UnmarshalJSON(b []byte) error {
	var j traceJSON
	j.traceFields = (*traceFields)(t)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	t.SetEvents(j.Events)
	return nil
}

// TraceEngine identifies the engine that recorded a trace (wasm/engine.json).
type TraceEngine struct {
	QuickJS      string `json:"quickjs"`
	Commit       string `json:"commit"`
	ModuleSHA256 string `json:"moduleSha256"`
}

// TraceBinding is the declaration of one namespace of a recorded run: what
// replay declares to the program again, without its functions.
type TraceBinding struct {
	Global         string   `json:"global"`
	Members        []string `json:"members"`
	ErrorClass     string   `json:"errorClass,omitempty"`
	MemberProperty string   `json:"memberProperty,omitempty"`
	SharesClass    bool     `json:"sharesErrorClass,omitempty"`
	// Secret: the trace holds none of the namespace's results.
	Secret bool `json:"secret,omitempty"`
}

// TraceEvent is one event of a trace; Type says which fields it has.
type TraceEvent struct {
	Type string `json:"t"`
	// call: namespace, function, the SHA-256 of the argument's JSON text
	// (hex), and whether its result is secret.
	Namespace string `json:"ns,omitempty"`
	Function  string `json:"fn,omitempty"`
	Digest    string `json:"arg,omitempty"`
	Secret    bool   `json:"secret,omitempty"`
	// turn: the fuel spent when it came, and what it delivered, in order.
	// stop: the fuel spent when the run was stopped.
	Fuel       uint64     `json:"fuel,omitempty"`
	Deliveries []Delivery `json:"ev,omitempty"`
	// clock: the WASI clock (0 real time, 1 monotonic) and its reading.
	Clock uint32 `json:"clock,omitempty"`
	Nanos int64  `json:"nanos,omitempty"`
	// random: the bytes, in hexadecimal.
	Hex string `json:"hex,omitempty"`
	// zone: the time zone, the instant (ms) and its UTC offset (s).
	Zone   string  `json:"zone,omitempty"`
	Ms     float64 `json:"ms,omitempty"`
	Offset int32   `json:"offset,omitempty"`
	// stop: the outcome, where it is replayed, (Place log) after which
	// log entry, and (Place piece) at which piece of a long text.
	Kind    string `json:"kind,omitempty"`
	Budget  string `json:"budget,omitempty"`
	Message string `json:"message,omitempty"`
	Place   string `json:"at,omitempty"`
	Logs    int    `json:"logs,omitempty"`
	Pieces  int    `json:"pieces,omitempty"`
}

// Delivery is one completion of a turn: a call's (Call, its number from 1
// in the order the program made them) or a timer's (Timer, its id). A
// call resolved with the JSON text Resolve or was rejected with the
// message Reject (JSON text of a string); a secret one holds neither.
type Delivery struct {
	Call    int             `json:"call,omitempty"`
	Timer   int32           `json:"timer,omitempty"`
	Resolve json.RawMessage `json:"resolve,omitempty"`
	// ResolveText is a resolution whose text is not compact JSON, as a
	// string (see isCompactJSON).
	ResolveText string          `json:"resolveText,omitempty"`
	Reject      json.RawMessage `json:"reject,omitempty"`
	Secret      bool            `json:"secret,omitempty"`
}

// TraceOutcome is what the recorded run produced.
type TraceOutcome struct {
	Value   json.RawMessage `json:"value,omitempty"`
	Logs    []string        `json:"logs"`
	Kind    string          `json:"kind,omitempty"`
	Budget  string          `json:"budget,omitempty"`
	Message string          `json:"message,omitempty"`
	Fuel    uint64          `json:"fuel"`
	Calls   int             `json:"calls"`
}

// WriteTo writes the trace as one JSON document, without HTML escapes (so
// no text grows past what MaxTraceBytes counted), and a final newline.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	b, err := t.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("coderun: writing a trace: %w", err)
	}
	n, err := w.Write(append(b, '\n'))
	return int64(n), err
}

// ReadTrace reads a trace written by WriteTo, of at most max bytes, and
// checks its format and version. Its budgets, declarations and input are
// checked when it is replayed.
func ReadTrace(r io.Reader, max int64) (*Trace, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("coderun: reading a trace: %w", err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: it is over %d bytes (MaxTraceBytes)", ErrInvalidTrace, max)
	}
	var t Trace
	if err := t.UnmarshalJSON(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidTrace, err)
	}
	if t.Format != TraceFormat || t.Version != TraceVersion {
		return nil, fmt.Errorf("%w: format %q version %d, want %q version %d", ErrInvalidTrace, t.Format, t.Version, TraceFormat, TraceVersion)
	}
	return &t, nil
}

// engineIdentity is the identity of the engine this process runs, read
// once from its manifest.
var engineIdentity = sync.OnceValue(func() TraceEngine {
	m, err := wasm.Manifest()
	if err != nil {
		return TraceEngine{}
	}
	return TraceEngine{QuickJS: m.QuickJS.Version, Commit: m.QuickJS.Commit, ModuleSHA256: m.ModuleSHA256}
})

// traceBindings is the declaration of bindings, as a trace holds it:
// members in the order the guest numbers them (hostcalls.Calls.AddNamespace).
func traceBindings(bindings []Binding) []TraceBinding {
	var out []TraceBinding
	for _, b := range bindings {
		members := make([]string, 0, len(b.Functions))
		for name := range b.Functions {
			members = append(members, name)
		}
		slices.Sort(members)
		out = append(out, TraceBinding{Global: b.Global, Members: members, ErrorClass: b.ErrorClass,
			MemberProperty: b.MemberProperty, SharesClass: b.SharesErrorClass, Secret: b.Secret})
	}
	return out
}

// jsonStringLen is at least the length of s as a JSON string written
// without HTML escapes: quotes, two bytes per short escape, six per \u
// escape (control characters, U+2028 and U+2029, and each byte of invalid
// UTF-8, which becomes \ufffd).
func jsonStringLen(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}

// isCompactJSON reports whether the JSON text b has no whitespace outside its
// strings: only then does a trace hold it as JSON, since encoding/json
// compacts what it embeds, and the replay must hand the guest the very
// text the recording did (parsing whitespace spends fuel). Other texts are
// held as strings.
func isCompactJSON(b []byte) bool {
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// traceInput sets the trace's input, as JSON or as text (see isCompactJSON).
func (t *Trace) setInput(input []byte) {
	if len(input) == 0 {
		return
	}
	if isCompactJSON(input) {
		t.Input = input
	} else {
		t.InputText = string(input)
	}
}

// input is the trace's input text.
func (t *Trace) input() []byte {
	if t.InputText != "" {
		return []byte(t.InputText)
	}
	return t.Input
}
