package prereq

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outcome records how a test ended.
type outcome struct {
	Failed, Skipped bool
	Message         string
}

// recorder is a testing.TB that records Fatal and Skip; both end the
// goroutine, as the real ones do, which run turns back into a return.
type recorder struct {
	testing.TB
	got outcome
}

type ended struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.got = outcome{Failed: true, Message: fmt.Sprint(args...)}
	panic(ended{})
}
func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }
func (r *recorder) Skip(args ...any) {
	r.got = outcome{Skipped: true, Message: fmt.Sprint(args...)}
	panic(ended{})
}

func run(f func(t testing.TB)) outcome {
	r := &recorder{}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(ended); !ok {
					panic(p)
				}
			}
		}()
		f(r)
	}()
	return r.got
}

func TestAMissingPrerequisiteFailsUnderCIAndSkipsElsewhere(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing-here")
	tests := []struct {
		name string
		ci   string
		want outcome
	}{
		{"CI=true fails", "true", outcome{Failed: true}},
		{"CI=1 fails", "1", outcome{Failed: true}},
		{"CI unset skips", "", outcome{Skipped: true}},
		{"CI=false skips", "false", outcome{Skipped: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			for what, f := range map[string]func(testing.TB){
				"Command": func(t testing.TB) { Command(t, "apt-get install nothing-here", "gnosis-no-such-command", missing) },
				"File":    func(t testing.TB) { File(t, missing, "the fixture", "apt-get install nothing-here") },
			} {
				got := run(f)
				if !strings.Contains(got.Message, "apt-get install nothing-here") {
					t.Errorf("%s: message %q does not name the fix", what, got.Message)
				}
				got.Message = ""
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("%s (-want +got):\n%s", what, d)
				}
			}
		})
	}
}

func TestAPresentPrerequisiteIsReturned(t *testing.T) {
	t.Setenv("CI", "true")
	self, err := filepath.Abs("prereq.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := File(t, self, "this file", "nothing to fix"); got != self {
		t.Errorf("File = %q, want %q", got, self)
	}
	if got := Command(t, "nothing to fix", "gnosis-no-such-command", "sh"); filepath.Base(got) != "sh" {
		t.Errorf("Command = %q, want the path of sh", got)
	}
}
