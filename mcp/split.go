package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a command line into its arguments the way a POSIX
// shell would for simple cases: unquoted blanks (spaces, tabs, newlines)
// separate arguments; single quotes keep everything up to the next single
// quote literally; double quotes keep everything up to the next unescaped
// double quote, where a backslash escapes only '"', '\', '$' and '`'; outside
// quotes a backslash escapes the next character. Quotes may be adjacent to
// other text ("a"'b'c is one argument, abc), and "" is an empty argument.
// Nothing is expanded: no variables, globs, tildes or operators.
//
// It returns an error for an unterminated quote, a trailing backslash, or a
// command line with no arguments.
func SplitCommand(line string) ([]string, error) {
	var (
		args    []string
		cur     strings.Builder
		inWord  bool // cur holds an argument, possibly empty ("")
		escaped bool
		quote   rune // 0, '\'' or '"'
	)
	for _, r := range line {
		switch {
		case escaped:
			escaped = false
			if quote == '"' && !strings.ContainsRune("\"\\$`", r) {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case escaped:
		return nil, fmt.Errorf("command %q ends with a backslash", line)
	case quote != 0:
		return nil, fmt.Errorf("command %q has an unterminated %c quote", line, quote)
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}

// ParseUpstreamSpec parses the value of an --upstream flag, "NAME=COMMAND",
// into the upstream's name and its command's arguments (see SplitCommand).
// The name is not checked here beyond being non-empty: NewServer and
// CheckNames report names that cannot be binding globals.
func ParseUpstreamSpec(spec string) (name string, argv []string, err error) {
	name, command, ok := strings.Cut(spec, "=")
	if !ok {
		return "", nil, fmt.Errorf("upstream %q is not NAME=COMMAND", spec)
	}
	if name == "" {
		return "", nil, fmt.Errorf("upstream %q has an empty NAME", spec)
	}
	argv, err = SplitCommand(command)
	if err != nil {
		return "", nil, fmt.Errorf("upstream %q: %w", name, err)
	}
	return name, argv, nil
}
