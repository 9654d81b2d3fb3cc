package workspace

import (
	"fmt"
	"net/url"
	"strings"
)

// Source says where a download came from, as the extension knows it: URL is
// the address the bytes were fetched from, Referrer the page that offered
// them. Either may be empty. They only feed the Windows Mark-of-the-Web, so
// Windows treats a saved file as one from the internet (SmartScreen, Office
// Protected View), as it does for the browser's own downloads.
type Source struct {
	URL      string
	Referrer string
}

// maxZoneURL bounds a URL written into the mark; a longer one is cut to its
// origin.
const maxZoneURL = 2048

// zoneIdentifier returns the contents of the Zone.Identifier stream that
// marks a file as downloaded from the internet (zone 3). A URL line is
// written only for an http or https URL, without credentials or fragment and
// with every byte outside printable ASCII percent-encoded, so nothing a page
// controls can add a line. A download from a blob:, data: or other URL is
// marked with HostUrl=about:internet, which keeps the zone without copying a
// URL that may hold the file's own bytes.
func zoneIdentifier(src Source) []byte {
	var b strings.Builder
	b.WriteString("[ZoneTransfer]\r\nZoneId=3\r\n")
	if ref, ok := zoneURL(src.Referrer); ok {
		fmt.Fprintf(&b, "ReferrerUrl=%s\r\n", ref)
	}
	if src.URL != "" {
		host, ok := zoneURL(src.URL)
		if !ok {
			host = "about:internet"
		}
		fmt.Fprintf(&b, "HostUrl=%s\r\n", host)
	}
	return []byte(b.String())
}

// zoneURL returns raw as one safe line of a Zone.Identifier, or false when
// raw is not an absolute http or https URL.
func zoneURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	s := printableASCII(u.String())
	if len(s) > maxZoneURL {
		s = printableASCII((&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String())
		if len(s) > maxZoneURL {
			return "", false
		}
	}
	return s, true
}

// printableASCII percent-encodes every byte of s that is a control
// character, a space or outside ASCII.
func printableASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
