package runtime

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// redactTable is testdata/redact_table.json: the redaction cases the host
// and the extension's activity log (extension/bridge/core/redact.js) share,
// so both redact alike.
type redactTable struct {
	JSON []struct {
		Name, In, Want string
	} `json:"json"`
	Text []struct {
		In, Want string
	} `json:"text"`
}

func readRedactTable(t *testing.T) redactTable {
	t.Helper()
	raw, err := os.ReadFile("testdata/redact_table.json")
	if err != nil {
		t.Fatal(err)
	}
	var table redactTable
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("testdata/redact_table.json: %v", err)
	}
	if len(table.JSON) < 10 || len(table.Text) < 10 {
		t.Fatalf("the table has %d JSON and %d text cases; it was not read right", len(table.JSON), len(table.Text))
	}
	return table
}

func TestRedactJSONMasksSecretsAndKeepsTheRest(t *testing.T) {
	for _, tt := range readRedactTable(t).JSON {
		t.Run(tt.Name, func(t *testing.T) {
			if diff := cmp.Diff(tt.Want, string(RedactJSON([]byte(tt.In)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedactText(t *testing.T) {
	for _, tt := range readRedactTable(t).Text {
		if diff := cmp.Diff(tt.Want, RedactText(tt.In)); diff != "" {
			t.Errorf("RedactText(%q) (-want +got):\n%s", tt.In, diff)
		}
	}
}
