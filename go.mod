module github.com/coderun/coderun

go 1.26

require (
	github.com/fastschema/qjs v0.0.6
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/evanw/esbuild v0.28.0 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.44.0 // indirect
)
