package logging

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoggerWritesJSONLinesToFileAndStderr(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "host.log")
	var stderr bytes.Buffer
	log, closer, err := New(Options{Level: "debug", File: path, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	log.Debug().Str("capability", "computer.click").Msg("execute")
	closer.Close()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{"file": file, "stderr": stderr.Bytes()} {
		var line map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(got), &line); err != nil {
			t.Fatalf("%s: not one JSON line: %q", name, got)
		}
		delete(line, "time")
		want := map[string]any{"level": "debug", "capability": "computer.click", "message": "execute"}
		if diff := cmp.Diff(want, line); diff != "" {
			t.Errorf("%s line (-want +got):\n%s", name, diff)
		}
	}
}

func TestLevels(t *testing.T) {
	tests := []struct {
		level     string
		wantInfo  bool
		wantDebug bool
		problem   bool
	}{
		{"", true, false, false},
		{"debug", true, true, false},
		{"WARN", false, false, false},
		{"loud", true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			var stderr bytes.Buffer
			log, _, err := New(Options{Level: tt.level, File: "-", Stderr: &stderr})
			if (err != nil) != tt.problem {
				t.Errorf("err = %v, want problem %v", err, tt.problem)
			}
			log.Info().Msg("i")
			log.Debug().Msg("d")
			out := stderr.String()
			if got := strings.Contains(out, `"message":"i"`); got != tt.wantInfo {
				t.Errorf("info logged = %v, want %v", got, tt.wantInfo)
			}
			if got := strings.Contains(out, `"message":"d"`); got != tt.wantDebug {
				t.Errorf("debug logged = %v, want %v", got, tt.wantDebug)
			}
		})
	}
}

func TestUnwritableFileFallsBackToStderr(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	var stderr bytes.Buffer
	log, closer, err := New(Options{File: filepath.Join(blocker, "x.log"), Stderr: &stderr})
	if err == nil {
		t.Error("no problem reported for a log file under a regular file")
	}
	log.Info().Msg("still here")
	closer.Close()
	if !strings.Contains(stderr.String(), "still here") {
		t.Errorf("stderr = %q, want the line", stderr.String())
	}
}

func TestRotatingFileCapsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host.log")
	r, err := OpenRotating(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 39) + "\n") // 40 bytes
	for i := 0; i < 7; i++ {
		if _, err := r.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	sizes := map[string]int{}
	for _, p := range []string{path, path + ".1"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes[filepath.Base(p)] = len(b)
	}
	// 7 lines of 40 with a cap of 100: files hold 2 lines each; the 7th is alone.
	want := map[string]int{"host.log": 40, "host.log.1": 80}
	if diff := cmp.Diff(want, sizes); diff != "" {
		t.Errorf("sizes (-want +got):\n%s", diff)
	}
}

func TestRotatingFileContinuesExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host.log")
	os.WriteFile(path, bytes.Repeat([]byte("y"), 90), 0o600)
	r, err := OpenRotating(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("0123456789z")) // 90+11 > 100: rotates first
	r.Close()
	b, _ := os.ReadFile(path)
	if string(b) != "0123456789z" {
		t.Errorf("current file = %q, want only the new line", b)
	}
}
