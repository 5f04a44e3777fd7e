module github.com/coderun/coderun/bench/peers/fastschema

go 1.26.0

require github.com/fastschema/qjs v0.0.6

// fastschema/qjs v0.0.6 fails at run time with wazero v1.12.0, coderun's (a
// host-function signature mismatch): keep v1.9.0, the version it requires.
require github.com/tetratelabs/wazero v1.9.0 // indirect
