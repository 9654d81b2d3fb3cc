package session

import "testing"

func BenchmarkDecodeRequest(b *testing.B) {
	body := []byte(`{"id":17,"method":"execute","params":{"capability":"computer.echo","arguments":{"text":"hi"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
