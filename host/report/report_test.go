package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gnosis/gnosis/host/redact"
)

// The configuration keeps its structure, names, prefixes and commands;
// values that may be secret are replaced and returned, to be masked
// wherever else the report quotes them.
func TestConfigSectionRedactsValuesAndKeepsStructure(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(file, []byte(`{
	  "providers": [{"name": "munim", "command": "/opt/munim", "prefix": "computer", "timeout": "30s",
	    "args": ["-v", "--root", "/data/files", "--token=abc123", "-psecret1"],
	    "env": {"API_TOKEN": "tok-123456", "DEBUG": "true", "PORT": "8080"},
	    "headers": {"Authorization": "Bearer xyz789"}}],
	  "relay": {"allow": ["https://u:pw1234@api.example.com/v1?key=k-999999"]},
	  "nested": {"clientSecret": {"value": "deep-secret"}},
	  "policy": {"origins": {"https://chat.example.com": ["computer.*"]}}
	}`), 0o600)
	section, values := configSection(file)
	for _, want := range []string{
		`"command": "/opt/munim"`, `"prefix": "computer"`, `"timeout": "30s"`,
		`"-v"`, `"--root"`, `"--token=[redacted]"`,
		`"API_TOKEN": "[redacted]"`, `"DEBUG": "[redacted]"`, `"Authorization": "[redacted]"`,
		`"https://api.example.com/v1?key=[redacted]"`, `"clientSecret": "[redacted]"`,
		`"https://chat.example.com": [`,
	} {
		if !strings.Contains(section, want) {
			t.Errorf("section lacks %s:\n%s", want, section)
		}
	}
	for _, secret := range []string{"/data/files", "abc123", "psecret1", "tok-123456", "xyz789", "pw1234", "k-999999", "deep-secret"} {
		if strings.Contains(section, secret) {
			t.Errorf("section shows %q:\n%s", secret, section)
		}
	}
	want := []string{"/data/files", "abc123", "-psecret1", "tok-123456", "Bearer xyz789", "deep-secret"}
	if d := cmp.Diff(want, values, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("values to mask (-want +got):\n%s", d)
	}
}

// A file that is not JSON is not shown: where its structure is broken,
// nothing says which text is a secret.
func TestConfigSectionHidesAFileThatIsNotJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(file, []byte(`{"providers": [{"env": {"TOKEN": "hunter22"`), 0o600)
	section, _ := configSection(file)
	if strings.Contains(section, "hunter22") || !strings.Contains(section, "Not valid JSON") {
		t.Errorf("section:\n%s", section)
	}
}

// Secret-named variables of the environment are masked wherever the report
// quotes them; the working folder (PWD) is not a password.
func TestTextMasksTheEnvironmentsSecretsAndTheHome(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "gnosis-host.log")
	os.WriteFile(log, []byte(`{"message":"using envsecret42 in /home/ada/work"}`+"\n"), 0o600)
	text := Text(Options{Version: "1.0", Protocol: 2, ConfigFile: filepath.Join(dir, "none.json"), LogFile: log,
		Environ: []string{"OPENAI_API_KEY=envsecret42", "PWD=/home/ada/work"}, Home: "/home/ada"})
	if strings.Contains(text, "envsecret42") || strings.Contains(text, "/home/ada") {
		t.Errorf("report leaks:\n%s", text)
	}
	if !strings.Contains(text, `using [redacted] in ~/work`) {
		t.Errorf("report does not show the log line masked:\n%s", text)
	}
}

// A Windows home is shortened where the text quotes it as is and where JSON
// text quotes it with its backslashes doubled.
func TestShortenHomeAlsoInJSON(t *testing.T) {
	got := shortenHome(`C:\Users\Ada\x {"file":"C:\\Users\\Ada\\y"}`, `C:\Users\Ada`)
	if want := `~\x {"file":"~\\y"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// A log line longer than the debug log shows is cut after its secrets are
// masked, so no part of one is left.
func TestLongLogLinesLeaveNoPartOfASecret(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "gnosis-host.log")
	secret := "tok-" + strings.Repeat("s", 40)
	line := `{"message":"` + strings.Repeat("x", 180) + secret + strings.Repeat("y", 100) + `"}`
	os.WriteFile(log, []byte(line+"\n"), 0o600)
	text := Text(Options{ConfigFile: filepath.Join(dir, "none.json"), LogFile: log, Environ: []string{"API_TOKEN=" + secret}})
	if strings.Contains(text, "ssssssssss") {
		t.Errorf("report shows part of the secret:\n%s", text)
	}
}

// The preamble says what the report masks; it must read the same after the
// report's own masking.
func TestPreambleSurvivesMasking(t *testing.T) {
	var s redact.Set
	if got := s.Redact(Preamble); got != Preamble {
		t.Errorf("the preamble is masked as\n%s", got)
	}
}
