package main

import (
	"flag"
	"fmt"
	"strings"
)

// interspersed reorders args so that the flag package, which stops at the
// first argument that is not a flag, sees every flag wherever it stands
// among the positional arguments (coderun run prog.ts --fuel 10): it
// returns the flags with their values first, then "--", then the
// positional arguments in their order. As usual, "--" ends the flags (what
// follows it is positional even when it starts with "-"), and a lone "-"
// is positional (standard input). A flag of fs that takes a value takes
// the next argument, whatever it is, unless written --name=value; when
// there is no next argument the error says so. Unknown flags are left for
// fs.Parse to report.
func interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-':
			positional = append(positional, a)
		default:
			flags = append(flags, a)
			if !takesValue(fs, a) {
				continue
			}
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag needs an argument: %s", a)
			}
			i++
			flags = append(flags, args[i])
		}
	}
	return append(append(flags, "--"), positional...), nil
}

// takesValue reports whether arg, which starts with "-", is a flag of fs
// whose value is the next argument: a flag that is not boolean, written
// without "=".
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// evalFlag is -e CODE (also --eval CODE): the program given on the command
// line. set tells -e "" (an empty program) from no -e.
type evalFlag struct {
	code string
	set  bool
}

// register registers -e and --eval on fs.
func (e *evalFlag) register(fs *flag.FlagSet) {
	fs.Var(e, "e", "run `CODE` (TypeScript or JavaScript, as in FILE) instead of a FILE")
	fs.Var(e, "eval", "the same as -e `CODE`")
}

// String implements flag.Value.
func (e *evalFlag) String() string {
	if e == nil {
		return ""
	}
	return e.code
}

// Set implements flag.Value.
func (e *evalFlag) Set(v string) error {
	e.code, e.set = v, true
	return nil
}

// isEvalFlag reports whether arg is -e or --eval (with one dash or two,
// with or without =CODE).
func isEvalFlag(arg string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	return strings.HasPrefix(arg, "-") && (name == "e" || name == "eval")
}
