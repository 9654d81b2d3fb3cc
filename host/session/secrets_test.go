package session

import (
	"testing"

	"github.com/gnosis/gnosis/host/redact"
)

// Every request's secret-named params (a header map's Authorization, a
// provider's env, a password argument) become known secrets, masked
// wherever they recur, whatever the method and even when it is refused.
func TestRequestsTeachTheSecretsTheyCarry(t *testing.T) {
	var secrets redact.Set
	h := startHost(t, WithSecrets(&secrets))
	h.send(`{"id":1,"method":"relay.fetch","params":{"url":"https://x.example/v1","headers":{"Authorization":"Bearer tok-ABCD1234"}}}`)
	h.send(`{"id":2,"method":"providers.set","params":{"name":"p","env":{"SERVICE_API_KEY":"envSECRET-99"}}}`)
	h.send(`{"id":3,"method":"execute","params":{"capability":"toy.echo","arguments":{"password":"PLANTEDpw-7","text":"hi"}}}`)
	for range 3 {
		h.next()
	}
	got := secrets.Redact("tok-ABCD1234 envSECRET-99 PLANTEDpw-7 hi")
	if got != "[redacted] [redacted] [redacted] hi" {
		t.Errorf("known secrets mask %q", got)
	}
}
