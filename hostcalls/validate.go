package hostcalls

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInvalidBinding is wrapped by every binding-declaration error returned by
// Validate. Package coderun re-exports it.
var ErrInvalidBinding = errors.New("coderun: invalid binding declaration")

// Length limits on declared names, in bytes. Names are untrusted input, so
// each is bounded.
const (
	// maxIdentifierLen bounds a binding global and an error class name.
	maxIdentifierLen = 64
	// maxMemberPropertyLen bounds an error class's member-name property.
	maxMemberPropertyLen = 64
	// MaxMemberNameLen bounds a member name.
	MaxMemberNameLen = 256
)

// Decl is the part of a namespace declaration that validation needs.
type Decl struct {
	// Global is the identifier the program uses for the namespace.
	Global string
	// Members are the member names. Any string is allowed, including "",
	// "__proto__" and "my-tool", within the limits Validate enforces.
	Members []string
	// ErrorClass is the injected error class's name, or "" when the
	// namespace has none.
	ErrorClass string
	// MemberProperty is the own property of the error class that holds the
	// rejected member's name. It is only checked when ErrorClass != "".
	MemberProperty string
	// SharesErrorClass says that ErrorClass is the class an earlier
	// namespace declared (the caller passed the same declaration for both):
	// it is injected once, and both namespaces reject with it. It needs an
	// earlier namespace declaring the same class and member property.
	SharesErrorClass bool
}

// Validate checks a request's namespace declarations against the rules of
// contract §3 and returns the first violation, wrapping ErrInvalidBinding,
// or nil. Namespaces are checked in order; within one namespace the global
// is checked first, then the error class, its member property, and finally
// the member names in sorted order.
func Validate(decls []Decl) error {
	globals := make(map[string]struct{}, len(decls))
	for _, d := range decls {
		globals[d.Global] = struct{}{}
	}
	seenGlobals := make(map[string]struct{}, len(decls))
	seenClasses := make(map[string]string, len(decls)) // class -> member property
	for _, d := range decls {
		if err := checkName("binding global", d.Global); err != nil {
			return err
		}
		if _, dup := seenGlobals[d.Global]; dup {
			return invalidf("duplicate binding global %q", d.Global)
		}
		seenGlobals[d.Global] = struct{}{}

		if d.ErrorClass != "" && d.SharesErrorClass {
			if prop, ok := seenClasses[d.ErrorClass]; !ok || prop != d.MemberProperty {
				return invalidf("binding error class %s of %q is not declared by an earlier namespace",
					quoteBounded(d.ErrorClass, maxIdentifierLen), d.Global)
			}
		} else if d.ErrorClass != "" {
			if err := checkName("binding error class", d.ErrorClass); err != nil {
				return err
			}
			_, isGlobal := globals[d.ErrorClass]
			_, isClass := seenClasses[d.ErrorClass]
			if isGlobal || isClass {
				return invalidf("duplicate injected global %q", d.ErrorClass)
			}
			seenClasses[d.ErrorClass] = d.MemberProperty
			if !usableMemberProperty(d.MemberProperty) {
				return invalidf("binding error member property %s is not usable",
					quoteBounded(d.MemberProperty, maxMemberPropertyLen))
			}
		}

		if err := checkMembers(d.Global, d.Members); err != nil {
			return err
		}
	}
	return nil
}

// checkName applies the identifier rules shared by globals and error
// classes; what names the kind of name ("binding global").
func checkName(what, name string) error {
	switch {
	case len(name) > maxIdentifierLen:
		return invalidf("%s %s is too long (max %d)", what,
			quoteBounded(name, maxIdentifierLen), maxIdentifierLen)
	case !isIdentifier(name):
		return invalidf("%s %q is not a usable identifier", what, name)
	case isReservedWord(name):
		return invalidf("%s %q is a reserved word", what, name)
	case isReservedGlobal(name):
		return invalidf("reserved %s %q", what, name)
	}
	return nil
}

// usableMemberProperty reports whether p may name the own property that holds
// a rejected member's name. It is set from JavaScript rather than written as
// an identifier, so any bounded, valid UTF-8, NUL-free string is allowed
// except those Error instances already use and Python dunders.
func usableMemberProperty(p string) bool {
	if p == "" || len(p) > maxMemberPropertyLen || !cleanString(p) || isDunder(p) {
		return false
	}
	_, forbidden := forbiddenMemberProperties[p]
	return !forbidden
}

// checkMembers bounds member names and refuses duplicates. Members are
// checked in sorted order so the reported error does not depend on the order
// the caller listed them in (which is random when it comes from a map).
func checkMembers(global string, members []string) error {
	sorted := slices.Clone(members)
	slices.Sort(sorted)
	for i, m := range sorted {
		if len(m) > MaxMemberNameLen || !cleanString(m) {
			return invalidf("binding member %s of %q is not usable",
				quoteBounded(m, MaxMemberNameLen), global)
		}
		if i > 0 && sorted[i-1] == m {
			return invalidf("duplicate binding member %q of %q", m, global)
		}
	}
	return nil
}

// cleanString reports whether s is valid UTF-8 without NUL bytes, so that it
// survives the trip into the guest unchanged.
func cleanString(s string) bool {
	return utf8.ValidString(s) && !strings.Contains(s, "\x00")
}

// quoteBounded quotes s like %q; when s is longer than limit bytes only its
// first limit bytes (backed off to a rune start, by at most three bytes) are quoted, followed by "...",
// so that an oversized untrusted name cannot bloat the error.
func quoteBounded(s string, limit int) string {
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && cut > limit-(utf8.UTFMax-1) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidBinding}, args...)...)
}
