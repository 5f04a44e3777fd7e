package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/coderun/coderun"
	"github.com/coderun/coderun/budget"
	"github.com/coderun/coderun/mcp"
)

// configUsage is the help text of the flag of each coderun.Config field
// (flags_test.go checks that it covers exactly Config's fields): a budget's
// is its row of budget.Fields, with its bounds when it has a maximum; the
// other fields' is hostUsage's. printFlags names the form of the value
// (DURATION, SIZE, N).
var configUsage = budgetUsage()

// hostUsage is the help text of the flags of the Config fields that are not
// budgets.
func hostUsage() map[string]string {
	return map[string]string{
		"CacheDir": "`DIR` caching wazero's compiled code of the engine between processes (\"\" disables the cache)",
		"Prewarm":  "instances kept instantiated ahead of time (0 disables the pool)",
		"MaxTraceBytes": "cap on a recorded run's trace (run's --record, mcp's --record-dir) and on a trace replay reads, as JSON " +
			"(at least 1KiB)",
	}
}

// hostSizes are the Config fields that are not budgets and are sizes.
var hostSizes = map[string]bool{"MaxTraceBytes": true}

// budgetUsage returns hostUsage with the help text of every budget.
func budgetUsage() map[string]string {
	usage := hostUsage()
	for _, f := range budget.Fields() {
		usage[f.Name] = f.Help
		if f.Max != 0 {
			usage[f.Name] += fmt.Sprintf(" (%s to %s)", formatSize(f.Min), formatSize(f.Max))
		}
	}
	return usage
}

// budgetUnits maps the Config fields that are budgets to their units.
func budgetUnits() map[string]budget.Unit {
	units := map[string]budget.Unit{}
	for _, f := range budget.Fields() {
		units[f.Name] = f.Unit
	}
	return units
}

// flagName is the flag of the Config field field: its name in kebab case,
// without the suffix Bytes, since sizes take units (WallTime → wall-time,
// MemoryBytes → memory, MaxOutputBytes → max-output).
func flagName(field string) string {
	field = strings.TrimSuffix(field, "Bytes")
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// registerConfigFlags registers a flag for every coderun.Config field on fs
// (named by flagName), defaulting to cfg's current values and parsed into
// cfg. `coderun run` and `coderun mcp` share it, so their flags cannot
// drift from Config or from each other. A field of a type no flag parses
// is a programming error: it panics (and so does the drift test).
func registerConfigFlags(fs *flag.FlagSet, cfg *coderun.Config) {
	v, units := reflect.ValueOf(cfg).Elem(), budgetUnits()
	for i := range v.NumField() {
		name, field := v.Type().Field(i).Name, v.Field(i)
		if !field.CanInt() && !field.CanUint() && field.Kind() != reflect.String {
			panic(fmt.Sprintf("Config.%s is a %s, which no flag parses: teach fieldValue", name, field.Type()))
		}
		unit, isBudget := units[name]
		fv := fieldValue{v: field, size: isBudget && unit == budget.Size || hostSizes[name]}
		fs.Var(fv, flagName(name), configUsage[name])
	}
}

// fieldValueOf is the flag.Value of a size that is not a Config field's flag.
func fieldValueOf(n *int64) fieldValue {
	return fieldValue{v: reflect.ValueOf(n).Elem(), size: true}
}

// fieldValue is the flag.Value of one Config field.
type fieldValue struct {
	v    reflect.Value // the field, addressable
	size bool          // a size in bytes, which takes units
}

var durationType = reflect.TypeFor[time.Duration]()

// placeholder names the form of the field's value in the usage.
func (f fieldValue) placeholder() string {
	switch {
	case f.v.Type() == durationType:
		return "DURATION"
	case f.size:
		return "SIZE"
	case f.v.CanInt() || f.v.CanUint():
		return "N"
	}
	return "VALUE"
}

// unitsNote follows the flags of a command that has the Config flags.
const unitsNote = `
A DURATION is written as in Go: 500ms, 30s, 1m30s, 2h. A SIZE is a number of
bytes, or a number with the unit B, KiB, MiB or GiB (1024-based): 65536,
64KiB, 64MiB, 1GiB. Every flag may be spelled with - or --.
`

// printFlags writes the flags of fs to w, GNU style (--name VALUE, -n VALUE), with
// their usage and their defaults when not zero.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if fv, ok := f.Value.(fieldValue); ok && name == "value" {
			name = fv.placeholder()
		}
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-" // a short flag, such as -e
		}
		fmt.Fprintf(w, "  %s%s", dashes, f.Name)
		if name != "" {
			fmt.Fprintf(w, " %s", name)
		}
		fmt.Fprintf(w, "\n    \t%s", usage)
		switch f.DefValue {
		case "", "0", "0s", "false":
		default:
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// String implements flag.Value: durations as time.Duration prints them,
// sizes in the largest binary unit that divides them.
func (f fieldValue) String() string {
	switch {
	case !f.v.IsValid():
		return "" // the zero Value, made by flag.PrintDefaults
	case f.v.Type() == durationType:
		return time.Duration(f.v.Int()).String()
	case f.size:
		return formatSize(f.v.Int())
	case f.v.CanInt():
		return strconv.FormatInt(f.v.Int(), 10)
	case f.v.CanUint():
		return strconv.FormatUint(f.v.Uint(), 10)
	}
	return f.v.String()
}

// Set implements flag.Value.
func (f fieldValue) Set(s string) error {
	switch {
	case f.v.Type() == durationType:
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("not a duration such as 30s, 1m30s or 500ms")
		}
		f.v.SetInt(int64(d))
	case f.size:
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		f.v.SetInt(n)
	case f.v.CanInt():
		n, err := strconv.ParseInt(s, 10, f.v.Type().Bits())
		if err != nil {
			return errors.New("not a whole number")
		}
		f.v.SetInt(n)
	case f.v.CanUint():
		n, err := strconv.ParseUint(s, 10, f.v.Type().Bits())
		if err != nil {
			return errors.New("not a whole number of at least 0")
		}
		f.v.SetUint(n)
	default:
		f.v.SetString(s)
	}
	return nil
}

// sizeUnit is a unit of size, such as MiB.
type sizeUnit struct {
	name  string
	bytes int64
}

// sizeUnits are the units a size may have, largest first. Decimal units
// (KB, MB, GB) are refused rather than guessed at.
var sizeUnits = []sizeUnit{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// parseSize parses a size: a whole number of bytes, optionally followed
// by one of sizeUnits (in any case, optionally after a space).
func parseSize(s string) (int64, error) {
	digits := strings.TrimLeft(s, "0123456789")
	num, unit := s[:len(s)-len(digits)], strings.TrimSpace(digits)
	if num == "" {
		return 0, errors.New("not a size such as 65536, 64KiB, 64MiB or 1GiB")
	}
	mult := int64(1)
	if unit != "" {
		i := slices.IndexFunc(sizeUnits, func(u sizeUnit) bool { return strings.EqualFold(u.name, unit) })
		if i < 0 {
			return 0, fmt.Errorf("unknown unit %q: sizes take B, KiB, MiB or GiB (1024-based; KB, MB and GB are not accepted)", unit)
		}
		mult = sizeUnits[i].bytes
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n * mult, nil
}

// formatSize writes n in the largest unit of sizeUnits that divides it.
func formatSize(n int64) string {
	for _, u := range sizeUnits {
		if n != 0 && n%u.bytes == 0 && u.bytes > 1 {
			return strconv.FormatInt(n/u.bytes, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// newRuntime makes the Runtime of the flags' cfg; its error is worded for
// the command line (see flagError). A budget flag set to 0 is refused here,
// as is any value out of its bounds: coderun.New takes a zero field as its
// default, but every flag already defaults to it, so on the command line
// --fuel 0 is a mistake, not a way to ask for the default.
func newRuntime(cfg coderun.Config) (*coderun.Runtime, error) {
	if err := budget.From(cfg).Validate(); err != nil {
		return nil, flagError(fmt.Errorf("coderun: Config.%w", err))
	}
	rt, err := coderun.New(cfg)
	if err != nil {
		return nil, flagError(err)
	}
	return rt, nil
}

// fieldPattern matches the name of a Config field in an error message.
var fieldPattern = regexp.MustCompile(`\bConfig\.([A-Z][A-Za-z]*)`)

// flagError rewrites an error of coderun.New for the command line: each
// Config.Field it names becomes --flag (Config.Field).
func flagError(err error) error {
	msg := fieldPattern.ReplaceAllStringFunc(err.Error(), func(m string) string {
		field := strings.TrimPrefix(m, "Config.")
		if _, ok := configUsage[field]; !ok {
			return m
		}
		return "--" + flagName(field) + " (" + m + ")"
	})
	return errors.New(msg)
}

// upstreamSpec is one --upstream NAME=COMMAND.
type upstreamSpec struct {
	flag string // as given, for error messages
	name string
	argv []string
}

// upstreamFlags collects repeated --upstream flags.
type upstreamFlags []upstreamSpec

// upstreamUsage documents --upstream for both commands.
const upstreamUsage = "an MCP server to bind, as `NAME=COMMAND` (repeatable): COMMAND is started with its stdio as the transport, " +
	"and its tools become the members of the namespace NAME; quote COMMAND's arguments as in a shell"

// String implements flag.Value.
func (u *upstreamFlags) String() string {
	if u == nil {
		return ""
	}
	specs := make([]string, len(*u))
	for i, s := range *u {
		specs[i] = s.flag
	}
	return strings.Join(specs, " ")
}

// Set implements flag.Value.
func (u *upstreamFlags) Set(v string) error {
	name, argv, err := mcp.ParseUpstreamSpec(v)
	if err != nil {
		return err
	}
	*u = append(*u, upstreamSpec{flag: v, name: name, argv: argv})
	return nil
}

// upstreamSources are the flags that give upstreams: --config files, then
// --upstream specs.
type upstreamSources struct {
	configs configFiles
	specs   upstreamFlags
}

// register registers --config and --upstream on fs.
func (s *upstreamSources) register(fs *flag.FlagSet) {
	fs.Var(&s.configs, "config", configUsageText)
	fs.Var(&s.specs, "upstream", upstreamUsage)
}

// upstreams makes the upstreams of the --config files, then of the
// --upstream flags, and checks their names; it starts nothing. Each command
// upstream's stderr will be copied to stderr, line by line, prefixed with
// its name. The error names the offending flag.
func (s *upstreamSources) upstreams(stderr io.Writer, logger *slog.Logger) ([]*mcp.Upstream, error) {
	ups, err := s.configs.upstreams(stderr, logger)
	if err != nil {
		return nil, err
	}
	if err := mcp.CheckNames(ups); err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	for _, spec := range s.specs {
		ups = append(ups, mcp.NewCommandUpstream(spec.name, spec.argv, stderr, logger))
		if err := mcp.CheckNames(ups); err != nil {
			return nil, fmt.Errorf("--upstream %s: %w", spec.flag, err)
		}
	}
	return ups, nil
}

// startUpstreams starts ups; on error it closes them all.
func startUpstreams(ctx context.Context, ups []*mcp.Upstream) error {
	if err := mcp.StartAll(ctx, ups); err != nil {
		_ = mcp.CloseAll(ups)
		return err
	}
	return nil
}

// httpFlags are the flags of `coderun mcp` that configure --http.
type httpFlags struct {
	allowedOrigins stringsFlag
	tokenFile      string
	stateless      bool
	idleTimeout    time.Duration
	shutdownGrace  time.Duration
	maxSessions    int
}

// register registers the flags on fs.
func (f *httpFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.allowedOrigins, "allowed-origin", "with --http, a browser `ORIGIN` (scheme://host[:port]) allowed besides loopback ones (repeatable); other origins get 403")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --http, require \"Authorization: Bearer TOKEN\" with TOKEN read from `FILE` (default: $CODERUN_TOKEN); needed on a non-loopback address")
	fs.BoolVar(&f.stateless, "stateless", false, "with --http, serve without sessions, so that any replica behind a load balancer can answer any request")
	fs.DurationVar(&f.idleTimeout, "session-idle-timeout", 10*time.Minute, "with --http, close a session (cancelling its runs) after this long without a request; 0 never")
	fs.IntVar(&f.maxSessions, "max-sessions", 1024, "with --http, sessions open at once; an initialize beyond gets 503 with Retry-After (0: no limit)")
	fs.DurationVar(&f.shutdownGrace, "shutdown-grace", 30*time.Second, "on SIGTERM or SIGINT, how long the runs in flight may go on before they are cancelled")
}

// options returns the mcp.HTTPOptions for serving on addr. The token comes
// from --token-file, else from the environment variable CODERUN_TOKEN
// (read with getenv); an address that is not loopback requires one.
func (f *httpFlags) options(addr string, getenv func(string) string) (*mcp.HTTPOptions, error) {
	token := getenv("CODERUN_TOKEN")
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return nil, fmt.Errorf("--token-file %s: the file is empty", f.tokenFile)
		}
	}
	if token == "" && !mcp.IsLoopbackAddr(addr) {
		return nil, fmt.Errorf("--http %s listens beyond loopback: anything that reaches it could run code with every upstream's access; "+
			"set a bearer token with --token-file FILE or CODERUN_TOKEN, or listen on localhost", addr)
	}
	if f.idleTimeout < 0 || f.shutdownGrace < 0 || f.maxSessions < 0 {
		return nil, errors.New("--session-idle-timeout, --shutdown-grace and --max-sessions must not be negative")
	}
	return &mcp.HTTPOptions{
		AllowedOrigins:     f.allowedOrigins,
		Token:              token,
		Stateless:          f.stateless,
		SessionIdleTimeout: f.idleTimeout,
		MaxSessions:        f.maxSessions,
	}, nil
}

// stringsFlag collects a repeatable string flag.
type stringsFlag []string

// String implements flag.Value.
func (s *stringsFlag) String() string {
	if s == nil {
		return ""
	}
	return strings.Join(*s, " ")
}

// Set implements flag.Value.
func (s *stringsFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// defaultConfig is coderun.DefaultConfig with the compiled engine cached
// under os.UserCacheDir()/coderun, so that every start but the first skips
// compiling it. The library itself writes nothing to disk unless told to.
func defaultConfig() coderun.Config {
	cfg := coderun.DefaultConfig()
	if dir, err := os.UserCacheDir(); err == nil {
		cfg.CacheDir = filepath.Join(dir, "coderun")
	}
	return cfg
}
