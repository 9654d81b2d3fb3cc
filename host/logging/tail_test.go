package logging

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTail(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "gnosis-host.log")
	write := func(name string, lines ...string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		current  []string
		rotated  []string
		n        int
		maxBytes int64
		want     []string
	}{
		{"no log yet", nil, nil, 3, 1 << 10, nil},
		{"the last n lines", []string{"a", "b", "c", "d"}, nil, 2, 1 << 10, []string{"c", "d"}},
		{"fewer lines than n", []string{"a", "b"}, nil, 5, 1 << 10, []string{"a", "b"}},
		{"a line cut by the byte bound is left out", []string{"first line", "second", "third"}, nil, 5, 12, []string{"third"}},
		{"a line that starts at the byte bound is kept", []string{"first line", "second", "third"}, nil, 5, 13, []string{"second", "third"}},
		{"older lines from the rotated file", []string{"c", "d"}, []string{"a", "b"}, 3, 1 << 10, []string{"b", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(log)
			os.Remove(log + ".1")
			if tt.current != nil {
				write(log, tt.current...)
			}
			if tt.rotated != nil {
				write(log+".1", tt.rotated...)
			}
			got, err := Tail(log, tt.n, tt.maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("lines (-want +got):\n%s", d)
			}
		})
	}
}
