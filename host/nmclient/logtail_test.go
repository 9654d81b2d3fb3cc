package nmclient

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLogTailKeepsTheLastBytes(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"under the limit", 10, []string{"ab", "cd"}, "abcd"},
		{"exactly the limit", 4, []string{"ab", "cd"}, "abcd"},
		{"over the limit", 4, []string{"abc", "def"}, "cdef"},
		{"one write larger than the limit", 3, []string{"abcdef"}, "def"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lt := NewLogTail(tt.max)
			for _, w := range tt.writes {
				if n, err := lt.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if diff := cmp.Diff(tt.want, lt.String()); diff != "" {
				t.Errorf("tail (-want +got):\n%s", diff)
			}
		})
	}
}
