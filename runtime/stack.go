package runtime

import (
	"strconv"
	"strings"
)

// mainName is the name of the wrapper function that holds the program's
// top-level code; its frames are shown as the program's own.
const mainName = "__dsh_main__"

// renderStack rewrites the stack frames in an exception text so that they
// point into the user's own source: frames in program.ts are mapped back
// through the source map, frames in wrapper code and in coderun's prelude
// are dropped, and native frames are kept between the program's frames.
// The host's own frames around the program's are dropped too: those past
// the outermost program.ts frame (the prelude calling the program or a
// timer callback through Reflect.apply) and, when the error was made by
// the prelude (a binding's rejection), everything before the innermost.
func (r *run) renderStack(text string) string {
	if r.program == nil || !strings.Contains(text, "    at ") {
		return text
	}
	lines := strings.Split(text, "\n")
	first, last := -1, -1 // the innermost and outermost frames in program.ts
	hostFirst := false    // a prelude frame comes before first
	for i, line := range lines {
		if !strings.HasPrefix(line, "    at ") {
			continue
		}
		switch {
		case strings.Contains(line, programFile+":"):
			if first < 0 {
				first = i
			}
			last = i
		case first < 0 && strings.Contains(line, "coderun:"):
			hostFirst = true
		}
	}
	out := lines[:0]
	for i, line := range lines {
		if !strings.HasPrefix(line, "    at ") {
			out = append(out, line)
			continue
		}
		if last >= 0 && (i > last || hostFirst && i < first) {
			continue
		}
		frame, keep := r.mapFrame(strings.TrimPrefix(line, "    at "))
		if keep {
			out = append(out, "    at "+frame)
		}
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// mapFrame maps one frame, "name (file:line:col)" or "file:line:col".
func (r *run) mapFrame(f string) (string, bool) {
	name, loc := "", f
	if strings.HasSuffix(f, ")") {
		if i := strings.LastIndex(f, " ("); i >= 0 {
			name, loc = f[:i], f[i+2:len(f)-1]
		}
	}
	if strings.HasPrefix(loc, "coderun:") {
		return "", false
	}
	if !strings.HasPrefix(loc, programFile+":") {
		return f, true
	}
	parts := strings.Split(strings.TrimPrefix(loc, programFile+":"), ":")
	if len(parts) != 2 {
		return "", false
	}
	line, err1 := strconv.Atoi(parts[0])
	col, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return "", false
	}
	ul, uc, ok := r.program.Position(line, col)
	if !ok {
		return "", false
	}
	pos := programFile + ":" + strconv.Itoa(ul) + ":" + strconv.Itoa(uc)
	switch name {
	case "":
		return pos, true
	case mainName:
		return "<program> (" + pos + ")", true
	}
	return name + " (" + pos + ")", true
}
