package nmclient

import (
	"bytes"
	"testing"
)

// FuzzFrames feeds frames (separated by NUL in the input) to a reader: it
// must never panic, and whatever it delivers as a reply must have an id.
func FuzzFrames(f *testing.F) {
	f.Add([]byte(`{"id":1,"ok":true}`))
	f.Add([]byte("{\"id\":1,\"chunk\":0,\"chunks\":2,\"data\":\"{\\\"id\"}\x00{\"id\":1,\"chunk\":1,\"chunks\":2,\"data\":\":1}\"}"))
	f.Add([]byte("{\"chunk\":0,\"chunks\":1,\"data\":\"x\",\"id\":[]}\x00{\"event\":\"x\"}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var rd reader
		for _, body := range bytes.Split(in, []byte{0}) {
			m, _ := rd.frame(body, func(error) {})
			if m != nil && m.Reply && m.ID == nil {
				t.Fatalf("reply without id from %q", body)
			}
		}
	})
}
