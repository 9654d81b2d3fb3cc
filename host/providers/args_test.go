package providers

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/runtime/wire"
)

func TestMaskArgsHidesSecretsItShowsOtherwise(t *testing.T) {
	var secrets redact.Set
	secrets.AddEnv(map[string]string{"API_KEY": "PLANTEDenv-55"})
	args := []string{"--stdio", "--api-key=sk-abcdefghijklmnop", "--token", "PLANTEDtok-12", "--root", "/srv/files",
		"--header", "Authorization: Bearer PLANTEDbearer", "--key-file", "--verbose", "uses PLANTEDenv-55", "--pass=", "-p", "x1"}
	want := []string{"--stdio", "--api-key=[redacted]", "--token", "[redacted]", "--root", "/srv/files",
		"--header", "Authorization: [redacted]", "--key-file", "--verbose", "uses [redacted]", "--pass=", "-p", "x1"}
	if d := cmp.Diff(want, maskArgs(args, &secrets)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestRestoreArgsTakesBackWhatListShowed(t *testing.T) {
	stored := []string{"--stdio", "--api-key=sk-abcdefghijklmnop", "--token", "PLANTEDtok-12", "a=[x]"}
	tests := []struct {
		name        string
		given, want []string
		err         string
	}{
		{"as shown", []string{"--stdio", "--api-key=[redacted]", "--token", "[redacted]", "a=[x]"}, stored, ""},
		{"moved and edited around", []string{"--token", "[redacted]", "--new", "--api-key=[redacted]"},
			[]string{"--token", "PLANTEDtok-12", "--new", "--api-key=sk-abcdefghijklmnop"}, ""},
		{"typed in full", []string{"--token", "other"}, []string{"--token", "other"}, ""},
		{"one it cannot stand for", []string{"--secret=[redacted]"}, nil, "argument 1 holds [redacted]"},
		{"more than there are", []string{"x", "[redacted]", "[redacted]", "[redacted]", "[redacted]", "[redacted]", "[redacted]"}, nil, "holds [redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := restoreArgs(tt.given, stored)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// providers.list shows a server's arguments, error and stderr masked, and
// what it shows, sent back to providers.set (as the setup page does when a
// server is edited), keeps the stored arguments.
func TestListMasksArgumentsAndSetKeepsThem(t *testing.T) {
	f := newFixture(t, `{"providers":[{"name":"files","command":"EXE","prefix":"files","args":["--token","PLANTEDtok-12","--api-key=PLANTEDkey-34"]}]}`, nil)
	f.p.secrets = &redact.Set{}
	got, err := f.call("providers.list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "PLANTED") {
		t.Fatalf("providers.list shows a secret: %s", b)
	}
	listed := got.(listReply).Providers[0]
	if _, err := f.call("providers.set", map[string]any{"name": "files", "command": listed.Command, "args": listed.Args}); err != nil {
		t.Fatal(err)
	}
	var file struct{ Providers []struct{ Args []string } }
	data, _ := os.ReadFile(f.path)
	json.Unmarshal(data, &file)
	if d := cmp.Diff([]string{"--token", "PLANTEDtok-12", "--api-key=PLANTEDkey-34"}, file.Providers[0].Args); d != "" {
		t.Errorf("the stored arguments were not kept (-want +got):\n%s", d)
	}
	_, err = f.call("providers.set", map[string]any{"name": "files", "command": listed.Command, "args": []string{"--x=[redacted]"}})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeInvalidArguments {
		t.Errorf("an argument standing for nothing stored: %v", err)
	}
}
