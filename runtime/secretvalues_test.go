package runtime

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretValuesAreTheScalarsUnderSecretNames(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{"a top-level password", `{"user":"ann","password":"hunter22"}`, []string{"hunter22"}},
		{"nested header and env maps", `{"headers":{"Authorization":"Bearer abc123"},"env":{"OPENAI_API_KEY":"sk-xyz","HOME":"/root"}}`,
			[]string{"Bearer abc123", "sk-xyz"}},
		{"everything below a secret name, numbers as written", `{"credentials":{"pin":12345,"list":["one","two"]}}`, []string{"12345", "one", "two"}},
		{"short values too (the set decides what is too short)", `{"token":"ab"}`, []string{"ab"}},
		{"no secret names", `{"x":1,"text":"password hunter2"}`, nil},
		{"not JSON", `{"password":`, nil},
		{"empty", ``, nil},
		{"over the bound", `{"password":"` + strings.Repeat("a", maxDecodedJSON) + `"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SecretValues([]byte(tt.raw))
			slices.Sort(got)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("SecretValues (-want +got):\n%s", d)
			}
		})
	}
}
