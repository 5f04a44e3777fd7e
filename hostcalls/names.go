package hostcalls

import (
	"strings"
)

// reservedWords holds the reserved words of JavaScript and Python that may
// not name a binding global or an error class (contract §3).
var reservedWords = setOf(
	// JavaScript.
	"await", "break", "case", "catch", "class", "const", "continue",
	"debugger", "default", "delete", "do", "else", "enum", "export",
	"extends", "false", "finally", "for", "function", "if", "import", "in",
	"instanceof", "new", "null", "return", "super", "switch", "this",
	"throw", "true", "try", "typeof", "var", "void", "while", "with",
	"yield", "let", "static", "implements", "interface", "package",
	"private", "protected", "public", "arguments", "eval",
	// Python (those not already listed above).
	"False", "None", "True", "and", "as", "assert", "async", "def", "del",
	"elif", "except", "from", "global", "is", "lambda", "nonlocal", "not",
	"or", "pass", "raise", "match", "type", "_",
)

// reservedGlobals holds the names the runtime itself uses or injects, which
// may not name a binding global or an error class (contract §3): a
// namespace of such a name would hide the global from the program. They
// are the contract's, the program's input (coderun.Request.Input), the
// timers and the web-platform globals (runtime/prelude.js and runtime/web),
// URL, URLSearchParams and Intl among them.
var reservedGlobals = setOf(
	"console", "__dsh_main__", "__builtins__", "__name__", "__debug__",
	"setTimeout", "clearTimeout", "globalThis", "undefined", "NaN",
	"Infinity",
	"input",
	"setInterval", "clearInterval", "queueMicrotask",
	"TextEncoder", "TextDecoder", "atob", "btoa", "structuredClone", "crypto",
	"Event", "EventTarget", "AbortController", "AbortSignal", "DOMException",
	"performance", "URL", "URLSearchParams", "Intl",
)

// forbiddenMemberProperties holds the property names an error class may not
// use for the rejected member's name, because Error instances (in JavaScript
// or Python) already give them a meaning. Dunders are refused separately.
var forbiddenMemberProperties = setOf(
	"name", "message", "stack", "args", "with_traceback", "add_note",
)

func setOf(names ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

// isReservedWord reports whether name is a reserved word of JavaScript or
// Python and so may not name a binding global or an error class. The match
// is exact and case-sensitive ("None" is reserved, "none" is not).
func isReservedWord(name string) bool {
	_, ok := reservedWords[name]
	return ok
}

// isReservedGlobal reports whether name is used or injected by the runtime
// (for example "console" or "setTimeout") and so may not name a binding
// global or an error class.
func isReservedGlobal(name string) bool {
	_, ok := reservedGlobals[name]
	return ok
}

// isIdentifier reports whether s matches ^[A-Za-z_][A-Za-z0-9_]*$, the
// identifiers usable as binding globals and error classes: ASCII only and
// without "$", so that the same name works in JavaScript and Python.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// isDunder reports whether s matches ^__.+__$ (any character, including a
// newline, in the middle).
func isDunder(s string) bool {
	return len(s) >= 5 && strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__")
}
