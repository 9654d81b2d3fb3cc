package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime"
)

func TestSetOrigin(t *testing.T) {
	rule := runtime.Rule{Allow: []string{"computer.screenshot"}, Ask: []string{"computer.click"}}
	tests := []struct {
		name    string
		before  string // "" = no file
		want    string
		wantErr string
	}{
		{
			name: "no file: a policy with the origin and an empty default",
			want: `{"policy":{"default":[],"origins":{"https://chat.example":{"allow":["computer.screenshot"],"ask":["computer.click"]}}}}`,
		},
		{
			name:   "other settings, other origins and the default are kept",
			before: `{"providers":[{"name":"munim"}],"future":{"x":1},"policy":{"default":["a.b"],"askTimeout":"5s","origins":{"https://other.example":["*"]}}}`,
			want: `{"future":{"x":1},"policy":{"askTimeout":"5s","default":["a.b"],"origins":{"https://chat.example":{"allow":["computer.screenshot"],"ask":["computer.click"]},` +
				`"https://other.example":["*"]}},"providers":[{"name":"munim"}]}`,
		},
		{
			name:   "a key written another way for the same origin is replaced",
			before: `{"policy":{"origins":{"HTTPS://Chat.Example:443/":["*"]}}}`,
			want:   `{"policy":{"default":[],"origins":{"https://chat.example":{"allow":["computer.screenshot"],"ask":["computer.click"]}}}}`,
		},
		{name: "a file that is not JSON is left alone", before: `{"policy":`, wantErr: "is not a JSON object, not touching it"},
		{name: "a file that is JSON null is left alone", before: `null`, wantErr: "is not a JSON object, not touching it"},
		{name: "a policy that is not an object is left alone", before: `{"policy":[1]}`, wantErr: "line 1, column 11"},
		{name: "a file the host cannot read is left alone", before: `{"providers":[{"name":"a","timeout":"soon"}]}`, wantErr: "fix it there first"},
		{
			name:   "clashing spellings of the origin are all replaced, other keys kept byte for byte",
			before: `{"policy":{"origins":{"https://chat.example":{"deny":["*"]},"HTTPS://CHAT.EXAMPLE":["*"],"https://x.example":["a.<b>&"]}}}`,
			want: `{"policy":{"default":[],"origins":{"https://chat.example":{"allow":["computer.screenshot"],"ask":["computer.click"]},` +
				`"https://x.example":["a.<b>&"]}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkEdit(t, tc.before, tc.want, tc.wantErr, func(path string) error { return SetOrigin(path, "https://chat.example", rule) })
		})
	}
}

// checkEdit runs change on a config file holding before ("" for none) and
// checks the file holds want after it (as JSON, with its text unescaped),
// or, with wantErr, that change failed saying so and left the file as it was.
func checkEdit(t *testing.T, before, want, wantErr string, change func(path string) error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if before != "" {
		os.WriteFile(path, []byte(before), 0o600)
	}
	err := change(path)
	data, _ := os.ReadFile(path)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) || string(data) != before {
			t.Fatalf("err %v, file %s; want error %q and the file untouched", err, data, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(want, "<b>&") && !strings.Contains(string(data), "<b>&") {
		t.Errorf("the file's text was escaped: %s", data)
	}
	var got, wantV any
	json.Unmarshal(data, &got)
	json.Unmarshal([]byte(want), &wantV)
	if d := cmp.Diff(wantV, got); d != "" {
		t.Errorf("file (-want +got):\n%s", d)
	}
}
