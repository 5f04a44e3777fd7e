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
	frames := make([]frame, len(lines)) // the zero frame for a line that is not one
	first, last := -1, -1               // the innermost and outermost frames in program.ts
	hostFirst := false                  // a prelude frame comes before first
	for i, line := range lines {
		f, ok := strings.CutPrefix(line, "    at ")
		if !ok {
			continue
		}
		frames[i] = parseFrame(f)
		switch {
		case frames[i].inProgram():
			if first < 0 {
				first = i
			}
			last = i
		case first < 0 && frames[i].inPrelude():
			hostFirst = true
		}
	}
	out := lines[:0]
	for i, line := range lines {
		if frames[i].text == "" {
			out = append(out, line)
			continue
		}
		if last >= 0 && (i > last || hostFirst && i < first) {
			continue
		}
		if mapped, keep := r.mapFrame(frames[i]); keep {
			out = append(out, "    at "+mapped)
		}
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// A frame is one line of a QuickJS stack, without its "    at ":
// "name (loc)" or "loc", where loc is "file:line:col" or "native".
type frame struct {
	text, name, loc string
}

func parseFrame(f string) frame {
	fr := frame{text: f, loc: f}
	if strings.HasSuffix(f, ")") {
		if i := strings.LastIndex(f, " ("); i >= 0 {
			fr.name, fr.loc = f[:i], f[i+2:len(f)-1]
		}
	}
	return fr
}

func (f frame) inProgram() bool { return strings.HasPrefix(f.loc, programFile+":") }
func (f frame) inPrelude() bool { return strings.HasPrefix(f.loc, "coderun:") }

// mapFrame maps a frame in program.ts to the user's source; it drops
// prelude frames and those it cannot map, and keeps the others as they are.
func (r *run) mapFrame(f frame) (string, bool) {
	if f.inPrelude() {
		return "", false
	}
	if !f.inProgram() {
		return f.text, true
	}
	parts := strings.Split(strings.TrimPrefix(f.loc, programFile+":"), ":")
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
	switch f.name {
	case "":
		return pos, true
	case mainName:
		return "<program> (" + pos + ")", true
	}
	return f.name + " (" + pos + ")", true
}
