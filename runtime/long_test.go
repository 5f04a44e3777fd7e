package runtime

import "os"

// longRun reports whether $CODERUN_LONG is 1 (scripts/test --long): stress
// cases then run at full size, which the default run samples.
func longRun() bool { return os.Getenv("CODERUN_LONG") == "1" }
