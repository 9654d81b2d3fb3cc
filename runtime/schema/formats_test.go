package schema

import "testing"

// TestFormatsTakeTheValuesToolsCommonlyGet guards against false refusals:
// everyday values of each asserted format pass.
func TestFormatsTakeTheValuesToolsCommonlyGet(t *testing.T) {
	for _, c := range []struct{ format, value string }{
		{"date-time", "2024-05-01T13:45:00.123+02:00"},
		{"date", "2024-02-29"},
		{"time", "23:59:60Z"},
		{"duration", "PT1H30M"},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000"},
		{"uri", "https://example.com/path?q=1#frag"},
		{"uri", "mailto:ann@example.com"},
		{"uri-reference", "../a/b?c"},
		{"iri", "https://example.com/café"},
		{"email", "ann.b+tag@sub.example.co.uk"},
		{"idn-email", "anné@bücher.example"},
		{"hostname", "localhost"},
		{"hostname", "xn--bcher-kva.example"},
		{"idn-hostname", "例え.テスト"},
		{"ipv4", "192.168.0.1"},
		{"ipv6", "2001:db8::1"},
		{"uri-template", "/users/{id}{?fields*}"},
		{"json-pointer", "/a/0/b~1c"},
		{"relative-json-pointer", "1/a"},
		{"regex", `^[\p{L} ]+$`},
	} {
		if !formatChecks[c.format].valid(c.value) {
			t.Errorf("%s %q refused", c.format, c.value)
		}
	}
}
