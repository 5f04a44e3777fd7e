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
