package schema

import (
	"embed"
	"strings"
)

// The metaschemas of draft-07, 2019-09 and 2020-12 as json-schema.org
// publishes them, so that a "$ref" to one (a schema that accepts schemas)
// resolves without a fetch.
//
//go:embed metaschemas
var metaschemaFS embed.FS

// metaschema returns the embedded document for a metaschema URI.
func metaschema(uri string) ([]byte, bool) {
	path, ok := strings.CutPrefix(strings.Replace(uri, "https://", "http://", 1), "http://json-schema.org/")
	if !ok {
		return nil, false
	}
	b, err := metaschemaFS.ReadFile("metaschemas/" + strings.TrimSuffix(path, "#"))
	return b, err == nil
}
