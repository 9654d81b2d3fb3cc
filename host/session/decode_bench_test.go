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

// BenchmarkDecodeRequest42KB is the 1,000-item call: what the
// request reader spends on a request of strings before it starts it.
func BenchmarkDecodeRequest42KB(b *testing.B) {
	body := []byte(`{"id":17,"method":"execute","params":{"capability":"s.fill","arguments":{"items":[`)
	for i := range 1000 {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"`...)
	}
	body = append(body, `]}}}`...)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := DecodeRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
