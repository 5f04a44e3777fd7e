package runtime

import (
	"strings"

	"github.com/coderun/coderun/internal/quickjs"
)

// Stacks are written by the guest. The prelude makes every error's stack
// (prepareStack in prelude.js): the program's frames at their positions in
// the user's source, which it asks of the host (userPosition), with the
// native frames between them, and without the prelude's frames or the
// host's way into the program. So err.stack read inside the program and
// the failure message the host reports show the same frames.

// positionScale packs a position in the user's source into one number for
// the guest: line*positionScale + column.
// Positions whose line reaches maxPackedLine (or column positionScale) are
// not mapped: the packed number must stay exact in a float64.
const (
	positionScale = 1 << 26
	maxPackedLine = 1 << 27
)

// userPosition maps the 1-based line and column of a position in the
// program's script, as the engine reports them, to the user's source, and
// returns it packed (see positionScale), or -1 for operands that are not a
// position in the program's own code (the wrapper's, or made up).
func (r *run) userPosition(lineArg, colArg quickjs.Value) quickjs.Value {
	line, ok1 := intArg(lineArg)
	col, ok2 := intArg(colArg)
	if !ok1 || !ok2 || r.program == nil {
		return quickjs.Int(-1)
	}
	ul, uc, ok := r.program.Position(line, col)
	if !ok || ul >= maxPackedLine || uc >= positionScale {
		return quickjs.Int(-1)
	}
	return quickjs.Float64(float64(ul)*positionScale + float64(uc))
}

// failureText is the message of a run that ended with an exception, from
// the text the guest rendered: "name: message" and the error's stack, as
// the program would read them. The stack's last line break is dropped.
func failureText(text string) string {
	if !strings.Contains(text, "    at ") {
		return text
	}
	return strings.TrimRight(text, "\n")
}
