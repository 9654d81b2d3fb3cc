module github.com/gnosis/gnosis

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/qri-io/jsonpointer v0.1.1 // indirect
	github.com/qri-io/jsonschema v0.2.1 // indirect
	github.com/rs/zerolog v1.35.1 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
