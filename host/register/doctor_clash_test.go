package register

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two spellings of one origin in the policy: doctor names both keys on a row
// of its own and says the origin gets nothing; the config row stays about
// the rest of the file.
func TestDoctorNamesClashingPolicyKeys(t *testing.T) {
	e := tempEnv(t)
	os.MkdirAll(filepath.Dir(e.ConfigFile), 0o755)
	os.WriteFile(e.ConfigFile, []byte(`{"providers":[{"name":"munim","command":"sh"}],
		"policy":{"origins":{"https://x.example.net":{"deny":["*"]},"HTTPS://X.EXAMPLE.NET":["computer.*"]}}}`), 0o600)
	checks, _ := Doctor(DoctorOptions{Env: e, LookPath: noPath})
	var policy, config []Check
	for _, c := range checks {
		switch c.Item {
		case "policy":
			policy = append(policy, c)
		case "config":
			config = append(config, c)
		}
	}
	want := `keys "HTTPS://X.EXAMPLE.NET" and "https://x.example.net" are one origin, https://x.example.net: it is denied everything`
	if len(policy) != 1 || policy[0].Status != Fail || !strings.Contains(policy[0].Detail, want) {
		t.Errorf("policy rows %+v, want one FAIL saying %q:\n%s", policy, want, table(checks))
	}
	if len(config) != 1 || config[0].Status != OK {
		t.Errorf("config rows %+v, want one OK:\n%s", config, table(checks))
	}
}
