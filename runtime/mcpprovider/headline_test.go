package mcpprovider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/prereq"
)

func TestHeadlinePicksWhatFailed(t *testing.T) {
	tests := []struct{ name, stderr, want string }{
		{"node missing module", "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module './x'\nRequire stack:\n- /tmp/a.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n{\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/tmp/a.js' ]\n}\n\nNode.js v20.20.2",
			"Error: Cannot find module './x'"},
		{"node type error", "/srv/s.js:3\nfoo.bar()\n    ^\n\nTypeError: foo.bar is not a function\n    at Object.<anonymous> (/srv/s.js:3:5)\n\nNode.js v22.1.0", "TypeError: foo.bar is not a function"},
		{"python", "Traceback (most recent call last):\n  File \"/srv/s.py\", line 1, in <module>\n    import mcpx\nModuleNotFoundError: No module named 'mcpx'", "ModuleNotFoundError: No module named 'mcpx'"},
		{"go panic", "panic: no display\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:9 +0x25", "panic: no display"},
		{"a plain last line", "starting\nlistening on stdio", "listening on stdio"},
		{"error then chatter", "error: DISPLAY is not set\nbye", "error: DISPLAY is not set"},
		{"nothing", "\n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, headline(tt.stderr)); d != "" {
				t.Errorf("headline (-want +got):\n%s", d)
			}
		})
	}
}

// A real node program that fails to load a module: the line picked from
// its real stderr is node's own error line.
func TestHeadlineOfARealNodeFailure(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		prereq.Missing(t, "node", "install Node.js")
	}
	script := filepath.Join(t.TempDir(), "server.js")
	os.WriteFile(script, []byte(`require("./no-such-module-here")`+"\n"), 0o600)
	out, _ := exec.Command(node, script).CombinedOutput()
	if got := headline(string(out)); !strings.HasPrefix(got, "Error: Cannot find module './no-such-module-here'") {
		t.Errorf("headline = %q from:\n%s", got, out)
	}
}
