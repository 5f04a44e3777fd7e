module github.com/coderun/coderun/wasm/upstream/fetch

go 1.26.0

require github.com/fastschema/qjs v0.0.6

require (
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
