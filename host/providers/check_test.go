package providers

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// A program that is not an MCP server is started, fails, and the check
// answers with its own words (stderr), its exit, and what to do.
func TestCheckAnswersWithTheServersOwnWords(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("a shell script stands in for the program")
	}
	script := filepath.Join(t.TempDir(), "not-mcp")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"usage: not-mcp --port N (needs $CHECK_MODE)\" >&2\nexit 2\n"), 0o755)
	f := newFixture(t, "", nil)
	f.p.build = MCP(zerolog.Nop(), "test")
	got, err := f.call("providers.check", map[string]any{"command": script, "args": []string{"--stdio"},
		"env": map[string]string{"CHECK_MODE": "strict"}, "startTimeout": 20})
	if err != nil {
		t.Fatal(err)
	}
	r := got.(checkReply)
	if r.Status != "failed" || !strings.Contains(r.Error, "exit status 2") ||
		!strings.Contains(r.Stderr, "usage: not-mcp --port N (needs strict)") || !strings.Contains(r.Fix, script+" --stdio") {
		t.Errorf("check reply %+v", r)
	}
}
